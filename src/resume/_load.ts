/**
 * A session read back from its store: its `session_meta`, its replayed model-visible history
 * (from the last compaction checkpoint when it can), the newest turn context, and its problems.
 * It never writes.
 *
 * @module
 */
import { dirname } from "node:path";
import {
  type DroppedItem,
  normalizeHistory,
  readRecords,
  type ReplayedFromEnd,
  replayFromEnd,
  replayRecord,
} from "../history/mod.ts";
import {
  type FunctionCallOutputItem,
  type LineProblem,
  type ResponseItem,
  SessionFileError,
  type SessionMeta,
  type SessionRecord,
  type TurnContext,
} from "../record/mod.ts";
import {
  FileStore,
  impliedSessionsRoot,
  type RecordPosition,
  type SessionLocation,
  type SessionStore,
} from "../store/mod.ts";
import { adapterOfFile } from "../formats/mod.ts";
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
   * Where the checkpoint replay started from is (a file's byte offset, a database's sequence
   * number); undefined when replay read the session from its first record.
   */
  replayedFrom: number | undefined;
}

/** Options of {@linkcode loadSession}. */
export interface LoadSessionOptions {
  /** Start at the last compaction checkpoint when it can (the default); false: read every line. */
  fromCheckpoint?: boolean;
  /** Block size of the backward reads, in bytes (the file store this makes; not `store`'s). */
  blockSize?: number;
  /** The store that keeps the session; absent: the file at `location.path`. */
  store?: SessionStore | undefined;
}

/** The file store a session file is in: the root its path implies, else its folder. */
function fileStoreOf(location: SessionLocation, blockSize: number | undefined): FileStore {
  const root = impliedSessionsRoot(location.path) ?? dirname(location.path);
  return new FileStore(root, { blockSize });
}

/**
 * Reads a session and replays it.
 *
 * The short way: the last compaction checkpoint is found (a file is parsed once, from its end
 * back to it: every line after the checkpoint is needed anyway, so parsing them is the search;
 * a database finds it by the position its sessions row keeps); replay starts from the history
 * it stores and the records after it. The part before the checkpoint is never read, apart
 * from the `session_meta` at the head and, when no turn started after the checkpoint, the
 * nearest `turn_context` before it. The record count comes from the count the checkpoint
 * stores.
 *
 * The long way, from the first record, when there is no checkpoint, when the checkpoint stores
 * no record count, or when a line after it is bad (so every problem gets its exact line
 * number); a file is then parsed on to its first line, still once. Either way the replayed
 * history is the same. Bad lines are collected, not thrown;
 * only a session without a `session_meta` first record is an error.
 */
export async function loadSession(
  location: SessionLocation,
  options: LoadSessionOptions = {},
): Promise<LoadedSession> {
  const store = options.store ?? fileStoreOf(location, options.blockSize);
  if (store.kind === "files" && options.fromCheckpoint !== false) {
    return await loadFileFromEnd(store, location, options.blockSize);
  }
  if (options.fromCheckpoint !== false) {
    const found = await store.lastCheckpoint(location);
    const recordsBefore = found?.checkpoint.recordsBefore;
    if (found !== undefined && recordsBefore !== undefined) {
      const tail = await loadFromCheckpoint(store, location, found.position);
      if (tail !== undefined) return { ...tail, recordCount: recordsBefore + tail.recordCount };
    }
  }
  return await loadFromStart(store, location);
}

async function loadFromStart(
  store: SessionStore,
  location: SessionLocation,
): Promise<LoadedSession> {
  let meta: SessionMeta | undefined;
  const replayed: ResponseItem[] = [];
  const problems: LineProblem[] = [];
  let lastTurn: TurnContext | undefined;
  let recordCount = 0;
  for await (const entry of store.read(location)) {
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
  if (meta === undefined) throw noMeta(location, problems);
  return { location, meta, replayed, lastTurn, recordCount, problems, replayedFrom: undefined };
}

/** The error for a session without a valid record: its first problem, or that it is empty. */
function noMeta(location: SessionLocation, problems: readonly LineProblem[]): SessionFileError {
  const first = problems[0];
  return new SessionFileError(
    first
      ? `${first.message} (no session_meta record could be read)`
      : `${location.path}:1: empty session file, no session_meta record`,
  );
}

/**
 * A session file replayed from its end (see `replayFromEnd`): read once, back to its last
 * checkpoint, or whole.
 */
async function loadFileFromEnd(
  store: SessionStore,
  location: SessionLocation,
  blockSize: number | undefined,
): Promise<LoadedSession> {
  const read = await replayFromEnd(location.path, { blockSize });
  const { replayed, lastTurn, checkpoint } = read;
  if (checkpoint === undefined) {
    const meta = wholeFileMeta(location, read);
    const recordCount = read.records;
    const problems = read.problems;
    return { location, meta, replayed, lastTurn, recordCount, problems, replayedFrom: undefined };
  }
  const head = await store.head(location);
  if (head?.record === undefined) return await loadFromStart(store, location);
  const position = { line: 0, offset: checkpoint.start };
  return {
    location,
    meta: expectMeta(location, head.line, head.record),
    replayed,
    lastTurn: lastTurn ?? await store.lastTurnContextBefore(location, position),
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
 * Replays from the checkpoint record at `position`; undefined when the long way must be taken
 * (a bad line after the checkpoint, or a head without `session_meta`). `recordCount` counts
 * the records from the checkpoint on.
 */
async function loadFromCheckpoint(
  store: SessionStore,
  location: SessionLocation,
  position: RecordPosition,
): Promise<LoadedSession | undefined> {
  const head = await store.head(location);
  if (head?.record === undefined) return undefined;
  const meta = expectMeta(location, head.line, head.record);
  const replayed: ResponseItem[] = [];
  let lastTurn: TurnContext | undefined;
  let recordCount = 0;
  // A file's line numbers are unknown from here; a bad line sends the caller the long way.
  for await (const entry of store.read(location, position)) {
    if (entry.problem) return undefined;
    recordCount++;
    if (entry.record.type === "turn_context") lastTurn = entry.record.payload;
    replayRecord(replayed, entry.record);
  }
  lastTurn ??= await store.lastTurnContextBefore(location, position);
  return {
    location,
    meta,
    replayed,
    lastTurn,
    recordCount,
    problems: [],
    replayedFrom: position.offset,
  };
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
 * Rebuilds a session's history from its store: find by id or prefix, replay, normalize. It
 * re-reads the session every time (no cache), so another process or machine can resume too.
 * It writes nothing.
 *
 * @throws {SessionNotFoundError} for an unknown id; nothing is created
 */
export async function resumeSession(
  sessionId: string,
  options: { root?: string; store?: SessionStore } = {},
): Promise<ResumedSession> {
  const store = options.store ?? new FileStore(options.root);
  const location = await store.find(sessionId);
  return normalizeLoaded(await loadSession(location, { store }));
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
  const adapter = await adapterOfFile(path);
  if (adapter) return await resumeForeignFile(path, adapter.name);
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
