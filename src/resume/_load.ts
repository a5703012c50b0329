/**
 * A session file read back: its `session_meta`, its replayed model-visible history (from the
 * last compaction checkpoint when it can), the newest turn context, and its problems. It never
 * writes.
 *
 * @module
 */
import {
  type DroppedItem,
  findLastCheckpoint,
  normalizeHistory,
  readRecords,
  replayRecord,
} from "../history/mod.ts";
import { readLinesBackward } from "../io/mod.ts";
import {
  type FunctionCallOutputItem,
  type LineProblem,
  parseRecordLine,
  type ResponseItem,
  SessionFileError,
  type SessionMeta,
  type SessionRecord,
  type TurnContext,
} from "../record/mod.ts";
import { findSession, resolveSessionsRoot, type SessionLocation } from "../store/mod.ts";
import { detectFormat } from "../formats/mod.ts";
import { resumeForeignFile } from "./_foreign.ts";

/** A session file read back: its meta, its replayed history and what was wrong with it. */
export interface LoadedSession {
  /** Where the session's file is. */
  location: SessionLocation;
  /** The session's `session_meta`. */
  meta: SessionMeta;
  /** The replayed model-visible history, before normalization. */
  replayed: ResponseItem[];
  /** The newest `turn_context`, whose policy a resumed turn keeps. */
  lastTurn: TurnContext | undefined;
  /** Number of valid records. */
  recordCount: number;
  /** Lines that are not valid records; resume skips them (`inspect --repair` moves them out). */
  problems: LineProblem[];
  /**
   * Byte offset of the checkpoint replay started from; undefined when replay read the file
   * from its first line.
   */
  replayedFrom: number | undefined;
}

/** Options of {@linkcode loadSession}. */
export interface LoadSessionOptions {
  /** Start at the last compaction checkpoint when it can (the default); false: read every line. */
  fromCheckpoint?: boolean;
  /** Block size of the backward reads, in bytes. */
  blockSize?: number;
}

const TURN_CONTEXT_MARKER = '"turn_context"';

/**
 * Reads a session file and replays it.
 *
 * The short way: the last compaction checkpoint is found by reading the file backward in
 * blocks; replay starts from the history it stores and reads only the records after it. The
 * part before the checkpoint is never read, apart from the `session_meta` at the head and, when
 * no turn started after the checkpoint, the nearest `turn_context` before it (again read
 * backward). The record count comes from the count the checkpoint stores.
 *
 * The long way, from the first line, when there is no checkpoint, when the checkpoint stores no
 * record count, or when a line after it is bad (so every problem gets its exact line number).
 * Either way the replayed history is the same. Bad lines are collected, not thrown; only a file
 * without a `session_meta` first record is an error.
 */
export async function loadSession(
  location: SessionLocation,
  options: LoadSessionOptions = {},
): Promise<LoadedSession> {
  if (options.fromCheckpoint !== false) {
    const found = await findLastCheckpoint(location.path, { blockSize: options.blockSize });
    const recordsBefore = found?.checkpoint.recordsBefore;
    if (found !== undefined && recordsBefore !== undefined) {
      const tail = await loadFromCheckpoint(location, found.start, options.blockSize);
      if (tail !== undefined) return { ...tail, recordCount: recordsBefore + tail.recordCount };
    }
  }
  return await loadFromStart(location);
}

async function loadFromStart(location: SessionLocation): Promise<LoadedSession> {
  let meta: SessionMeta | undefined;
  const replayed: ResponseItem[] = [];
  const problems: LineProblem[] = [];
  let lastTurn: TurnContext | undefined;
  let recordCount = 0;
  for await (const entry of readRecords(location.path)) {
    if (entry.problem) {
      problems.push(entry.problem);
      continue;
    }
    const record = entry.record;
    recordCount++;
    if (meta === undefined) {
      meta = expectMeta(location, entry.line, record);
      continue;
    }
    if (record.type === "turn_context") lastTurn = record.payload;
    replayRecord(replayed, record);
  }
  if (meta === undefined) {
    const first = problems[0];
    throw new SessionFileError(
      first
        ? `${first.message} (no session_meta record could be read)`
        : `${location.path}:1: empty session file, no session_meta record`,
    );
  }
  return { location, meta, replayed, lastTurn, recordCount, problems, replayedFrom: undefined };
}

function expectMeta(location: SessionLocation, line: number, record: SessionRecord): SessionMeta {
  const { path, id } = location;
  if (record.type !== "session_meta") {
    throw new SessionFileError(
      `${path}:${line}: expected the session_meta record first, found ${record.type}`,
    );
  }
  if (record.payload.id !== id) {
    throw new SessionFileError(
      `${path}:${line}: session_meta names the session ${JSON.stringify(record.payload.id)}, ` +
        `but the file is found as ${JSON.stringify(id)}; it was copied or renamed by hand`,
    );
  }
  return record.payload;
}

/**
 * Replays from the checkpoint line at byte `start`; undefined when the long way must be taken
 * (a bad line after the checkpoint, or a head without `session_meta`). `recordCount` counts the
 * records from the checkpoint on.
 */
async function loadFromCheckpoint(
  location: SessionLocation,
  start: number,
  blockSize: number | undefined,
): Promise<LoadedSession | undefined> {
  const path = location.path;
  let meta: SessionMeta | undefined;
  for await (const entry of readRecords(path, { chunkSize: 16 * 1024 })) {
    if (entry.record) meta = expectMeta(location, entry.line, entry.record);
    break;
  }
  if (meta === undefined) return undefined;
  const replayed: ResponseItem[] = [];
  let lastTurn: TurnContext | undefined;
  let recordCount = 0;
  // Line numbers are unknown from here; a bad line sends the caller the long way.
  for await (const entry of readRecords(path, { start, firstLine: 0 })) {
    if (entry.problem) return undefined;
    recordCount++;
    if (entry.record.type === "turn_context") lastTurn = entry.record.payload;
    replayRecord(replayed, entry.record);
  }
  lastTurn ??= await lastTurnContextBefore(path, start, blockSize);
  return { location, meta, replayed, lastTurn, recordCount, problems: [], replayedFrom: start };
}

/** The newest valid `turn_context` that ends before byte `end`, read backward. */
async function lastTurnContextBefore(
  path: string,
  end: number,
  blockSize: number | undefined,
): Promise<TurnContext | undefined> {
  for await (const line of readLinesBackward(path, { end, blockSize, only: TURN_CONTEXT_MARKER })) {
    const { record } = parseRecordLine(path, { ...line, text: line.text, line: 0 });
    if (record?.type === "turn_context") return record.payload;
  }
  return undefined;
}

/** A session ready to continue: the normalized history and what normalization did. */
export interface ResumedSession extends LoadedSession {
  /** The normalized history: what the model would be sent. */
  history: ResponseItem[];
  /** Outputs synthesized for calls a crash left without one. */
  synthesizedItems: FunctionCallOutputItem[];
  /** Outputs left out because their call is missing. */
  droppedItems: DroppedItem[];
}

/**
 * Rebuilds a session's history from its file: find by id or prefix, replay, normalize. It
 * re-reads the file every time (no cache), so another process or machine can resume too. It
 * writes nothing.
 *
 * @throws {SessionNotFoundError} for an unknown id; no file is created
 */
export async function resumeSession(
  sessionId: string,
  options: { root?: string } = {},
): Promise<ResumedSession> {
  const location = await findSession(resolveSessionsRoot(options.root), sessionId);
  return normalizeLoaded(await loadSession(location));
}

/** A loaded session with its history normalized. */
export function normalizeLoaded(loaded: LoadedSession): ResumedSession {
  const { history, synthesized, dropped } = normalizeHistory(loaded.replayed);
  return { ...loaded, history, synthesizedItems: synthesized, droppedItems: dropped };
}

/**
 * A session file at any path read back as resume would read it (its id taken from its
 * `session_meta`), normalized: the model-visible history the next resume would send, before
 * the new user message. A Codex rollout or a Claude Code transcript is read by its adapter
 * (the active branch's history). It writes nothing.
 *
 * @throws {SessionFileError} when the file has no `session_meta` first record (another
 * tool's file: when it holds no conversation)
 */
export async function resumeFile(path: string): Promise<ResumedSession> {
  const detected = await detectFormat(path);
  if (detected.format === "codex" || detected.format === "claude-code") {
    return await resumeForeignFile(path, detected.format);
  }
  let meta: SessionMeta | undefined;
  for await (const entry of readRecords(path, { chunkSize: 16 * 1024 })) {
    if (entry.record?.type === "session_meta") meta = entry.record.payload;
    if (entry.record) break;
  }
  if (meta === undefined) {
    throw new SessionFileError(`${path}:1: no session_meta record first: not a session to resume`);
  }
  return normalizeLoaded(await loadSession({ id: meta.id, path, createdAt: meta.createdAt }));
}
