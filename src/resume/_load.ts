/**
 * A session file read back: its `session_meta`, its replayed model-visible history (from the
 * last compaction checkpoint when it can), the newest turn context, and its problems. It never
 * writes.
 *
 * @module
 */
import {
  type DroppedItem,
  forEachRecord,
  normalizeHistory,
  readRecords,
  type ReplayedFromEnd,
  replayFromEnd,
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
 * The file is parsed once, from its end back to its last compaction checkpoint (every line
 * after the checkpoint is needed anyway, so parsing them is the search). Replay starts from
 * the history the checkpoint stores; the part before it is never read, apart from the
 * `session_meta` at the head and, when no turn started after the checkpoint, the nearest
 * `turn_context` before it (found backward by its type name). The record count comes from
 * the count the checkpoint stores.
 *
 * Without a checkpoint, or when the checkpoint stores no record count, or when a line after
 * it is bad (so that every problem gets its exact line number), the parse goes on to the first
 * line: the whole file, read once. Either way the replayed history is the same as a forward
 * replay's (`fromCheckpoint: false`). Bad lines are collected, not thrown; only a file
 * without a `session_meta` first record is an error.
 */
export async function loadSession(
  location: SessionLocation,
  options: LoadSessionOptions = {},
): Promise<LoadedSession> {
  if (options.fromCheckpoint === false) return await loadFromStart(location);
  const { blockSize } = options;
  const read = await replayFromEnd(location.path, { blockSize });
  const { replayed, lastTurn, checkpoint } = read;
  if (checkpoint === undefined) {
    const meta = wholeFileMeta(location, read);
    const recordCount = read.records;
    const problems = read.problems;
    return { location, meta, replayed, lastTurn, recordCount, problems, replayedFrom: undefined };
  }
  const meta = await headMeta(location);
  if (meta === undefined) return await loadFromStart(location);
  return {
    location,
    meta,
    replayed,
    lastTurn: lastTurn ?? await lastTurnContextBefore(location.path, checkpoint.start, blockSize),
    recordCount: checkpoint.recordsBefore + read.records,
    problems: [],
    replayedFrom: checkpoint.start,
  };
}

/** The `session_meta` of a file read whole: its first valid record, or an error that says why. */
function wholeFileMeta(location: SessionLocation, read: ReplayedFromEnd): SessionMeta {
  if (read.first) return expectMeta(location, read.first.line, read.first.record);
  throw noMeta(location, read.problems);
}

/** The long way: every line from the first, replayed forward. */
async function loadFromStart(location: SessionLocation): Promise<LoadedSession> {
  let meta: SessionMeta | undefined;
  const replayed: ResponseItem[] = [];
  const problems: LineProblem[] = [];
  let lastTurn: TurnContext | undefined;
  let recordCount = 0;
  await forEachRecord(location.path, (entry) => {
    if (entry.problem) {
      problems.push(entry.problem);
      return;
    }
    const record = entry.record;
    recordCount++;
    if (meta === undefined) {
      meta = expectMeta(location, entry.line, record);
      return;
    }
    if (record.type === "turn_context") lastTurn = record.payload;
    replayRecord(replayed, record);
  });
  if (meta === undefined) throw noMeta(location, problems);
  return { location, meta, replayed, lastTurn, recordCount, problems, replayedFrom: undefined };
}

/** The error for a file without a valid record: its first problem, or that it is empty. */
function noMeta(location: SessionLocation, problems: readonly LineProblem[]): SessionFileError {
  const first = problems[0];
  return new SessionFileError(
    first
      ? `${first.message} (no session_meta record could be read)`
      : `${location.path}:1: empty session file, no session_meta record`,
  );
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

/** The `session_meta` at the head of the file; undefined when its first record is another. */
async function headMeta(location: SessionLocation): Promise<SessionMeta | undefined> {
  let meta: SessionMeta | undefined;
  await forEachRecord(location.path, ({ line, record }) => {
    if (record) meta = expectMeta(location, line, record);
    return false;
  }, { chunkSize: 16 * 1024 });
  return meta;
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
