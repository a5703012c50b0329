/**
 * A session read back from its store: its `session_meta`, its replayed model-visible history
 * (from the last compaction checkpoint when it can), the newest turn context, and its problems.
 * It never writes.
 *
 * @module
 */
import { dirname } from "node:path";
import { readRecords, SessionReplay } from "../history/mod.ts";
import { SessionFileError, type SessionMeta } from "../record/mod.ts";
import {
  FileStore,
  impliedSessionsRoot,
  type SessionLocation,
  type SessionStore,
} from "../store/mod.ts";
import { adapterOfFile } from "../formats/mod.ts";
import { resumeForeignFile } from "./_foreign.ts";
import { type LoadedSession, normalizeLoaded, type ResumedSession } from "./_loaded.ts";

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
 * The short way: the store replays the records from the last compaction checkpoint on
 * ({@linkcode SessionStore.replayFromLastCheckpoint}: a file is parsed once, from its end back
 * to it; a database reads the key range from the position its sessions row keeps); replay
 * starts from the history the checkpoint stores. The part before the checkpoint is never
 * read, apart from the `session_meta` at the head and, when no turn started after the
 * checkpoint, the nearest `turn_context` before it; the record count comes from the count the
 * checkpoint stores.
 *
 * The long way, from the first record, when there is no checkpoint, when it stores no record
 * count, or when a line after it is bad (so every problem gets its exact line number), or
 * when `fromCheckpoint` is false. Either way the replayed history is the same. Bad lines are
 * collected, not thrown; only a session without its `session_meta` first is an error.
 */
export async function loadSession(
  location: SessionLocation,
  options: LoadSessionOptions = {},
): Promise<LoadedSession> {
  const store = options.store ?? fileStoreOf(location, options.blockSize);
  if (options.fromCheckpoint !== false) {
    return await loaded(store, location, await store.replayFromLastCheckpoint(location));
  }
  const replay = new SessionReplay();
  for await (const entry of store.read(location)) replay.push(entry);
  return await loaded(store, location, replay);
}

/**
 * What a replay read, as a loaded session: a replay from a checkpoint takes its meta from the
 * head, and its last turn from before the checkpoint when no turn started after it.
 */
async function loaded(
  store: SessionStore,
  location: SessionLocation,
  replay: SessionReplay,
): Promise<LoadedSession> {
  const { from, history: replayed, problems } = replay;
  const recordCount = replay.recordCount ?? replay.records;
  if (from === undefined) {
    const meta = replay.sessionMeta(location.path, location.id);
    const lastTurn = replay.lastTurn;
    return { location, meta, replayed, lastTurn, recordCount, problems, replayedFrom: undefined };
  }
  const head = new SessionReplay();
  const first = await store.head(location);
  if (first !== undefined) head.push(first);
  const position = { line: 0, offset: from.start };
  return {
    location,
    meta: head.sessionMeta(location.path, location.id),
    replayed,
    lastTurn: replay.lastTurn ?? await store.lastTurnContextBefore(location, position),
    recordCount,
    problems,
    replayedFrom: from.start,
  };
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
  if (!adapter.own) return await resumeForeignFile(path, adapter.name);
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
