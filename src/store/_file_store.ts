/**
 * The file store behind the store interface: today's JSONL files under a sessions folder, each
 * operation the store's existing function (find from file names, the listing, the locked
 * writer, the forward and backward readers).
 *
 * @module
 */
import {
  findLastCheckpoint,
  replayFromLastCheckpoint,
  type SessionReplay,
} from "../history/mod.ts";
import { type Line, readLines, readLinesBackward } from "../io/mod.ts";
import {
  checkSessionId,
  InvalidSessionIdError,
  parseRecordLine,
  type SessionMetaRecord,
  type TurnContext,
} from "../record/mod.ts";
import { findSession, SessionNotFoundError, shortestUniquePrefix } from "./_find.ts";
import {
  resolveSessionsRoot,
  sessionFilePath,
  type SessionLocation,
  walkSessions,
} from "./_layout.ts";
import { listSessions, type SessionListing, summarizeSessionFile } from "./_listing.ts";
import {
  type ListSessionsOptions,
  type LockOptions,
  type RecordPosition,
  SessionExistsError,
  type SessionSize,
  type SessionStore,
  type StoredCheckpoint,
  type StoredEntry,
} from "./_session_store.ts";
import { SessionWriter } from "./_writer.ts";

/** Options of {@linkcode FileStore}. */
export interface FileStoreOptions {
  /** Block size of the backward reads (the last checkpoint, the last turn context), in bytes. */
  blockSize?: number | undefined;
}

const TURN_CONTEXT_MARKER = '"turn_context"';

/** A line read as a stored entry: its record or problem, its byte range and its text. */
function storedEntry(path: string, line: Line): StoredEntry {
  return { ...parseRecordLine(path, line), start: line.start, end: line.end, text: line.text };
}

/**
 * Sessions kept as JSONL files under a sessions folder: `<root>/YYYY/MM/DD/<time>-<id>.jsonl`.
 * Positions are byte offsets; a location's `path` is the session file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileStore } from "./mod.ts";
 * const root = await Deno.makeTempDir();
 * const store = new FileStore(root);
 * assert.equal(await store.newest(), undefined);
 * assert.equal(store.name, root);
 * await Deno.remove(root, { recursive: true });
 * ```
 */
export class FileStore implements SessionStore {
  /** The sessions folder. */
  readonly root: string;
  /** The sessions folder, as messages name the store. */
  readonly name: string;
  /** The sessions folder: a file store keeps files. */
  readonly folder: string;
  readonly #blockSize: number | undefined;

  /** A store at `root` (absent: `TURNLOG_SESSIONS_DIR`, else `./sessions`); nothing is opened. */
  constructor(root?: string, options: FileStoreOptions = {}) {
    this.root = resolveSessionsRoot(root);
    this.name = this.root;
    this.folder = this.root;
    this.#blockSize = options.blockSize;
  }

  /** Creates the session's file, its first line `first`, locked. */
  async create(
    first: SessionMetaRecord,
  ): Promise<{ location: SessionLocation; writer: SessionWriter }> {
    const meta = first.payload;
    if (checkSessionId(meta.id) !== meta.id) {
      throw new InvalidSessionIdError(
        `Invalid session id ${JSON.stringify(meta.id)}: a new session's id is in lower case`,
      );
    }
    const createdAt = new Date(meta.createdAt);
    const path = sessionFilePath(this.root, meta.id, createdAt);
    try {
      const writer = await SessionWriter.createWith(path, first);
      return { location: { id: meta.id, path, createdAt: meta.createdAt }, writer };
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new SessionExistsError(meta.id, this.name, { cause: error });
      }
      throw error;
    }
  }

  /** Finds a session from file names alone (see {@linkcode findSession}). */
  find(idOrPrefix: string): Promise<SessionLocation> {
    return findSession(this.root, idOrPrefix);
  }

  /** The newest session, from folder and file names alone. */
  async newest(): Promise<SessionLocation | undefined> {
    for await (const location of walkSessions(this.root)) return location;
    return undefined;
  }

  /** Lists the newest sessions (see {@linkcode listSessions}). */
  list(options: ListSessionsOptions = {}): Promise<SessionListing> {
    return listSessions(this.root, options);
  }

  /** The shortest unique prefix of `id` in this folder. */
  shortestUniquePrefix(id: string, min?: number): Promise<string> {
    return shortestUniquePrefix(this.root, id, min);
  }

  /**
   * Opens the session's file for appending, locked (see {@linkcode SessionWriter.open}).
   *
   * @throws {SessionInUseError} when another writer holds the lock
   * @throws {SessionNotFoundError} when the file is gone
   */
  async lock(location: SessionLocation, options: LockOptions = {}): Promise<SessionWriter> {
    try {
      return await SessionWriter.open(location.path, { seal: options.seal ?? true });
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new SessionNotFoundError(location.id, this.name, { cause: error });
    }
  }

  /** The file's first non-empty line, read in a small chunk. */
  async head(location: SessionLocation): Promise<StoredEntry | undefined> {
    for await (const line of readLines(location.path, { chunkSize: 16 * 1024 })) {
      if (line.text.length === 0 && line.terminated) continue;
      return storedEntry(location.path, line);
    }
    return undefined;
  }

  /**
   * The file's non-empty lines from byte `from.offset` (the start of a line; its number is
   * `from.line`, 0 when unknown) on.
   */
  async *read(location: SessionLocation, from?: RecordPosition): AsyncGenerator<StoredEntry> {
    const options = from === undefined ? {} : { start: from.offset, firstLine: from.line };
    for await (const line of readLines(location.path, options)) {
      if (line.text.length === 0 && line.terminated) continue;
      yield storedEntry(location.path, line);
    }
  }

  /**
   * The session replayed from its last checkpoint on, parsed from the file's end (see
   * {@linkcode replayFromLastCheckpoint}); line numbers are 0 when the checkpoint was found.
   */
  replayFromLastCheckpoint(location: SessionLocation): Promise<SessionReplay> {
    return replayFromLastCheckpoint(location.path, { blockSize: this.#blockSize });
  }

  /**
   * The last checkpoint, found by reading the file backward (see {@linkcode findLastCheckpoint});
   * its position's line is 0: the backward search does not count lines.
   */
  async lastCheckpoint(location: SessionLocation): Promise<StoredCheckpoint | undefined> {
    const found = await findLastCheckpoint(location.path, { blockSize: this.#blockSize });
    return found && { checkpoint: found.checkpoint, position: { line: 0, offset: found.start } };
  }

  /** The newest valid `turn_context` that ends before the position's byte, read backward. */
  async lastTurnContextBefore(
    location: SessionLocation,
    position: RecordPosition,
  ): Promise<TurnContext | undefined> {
    const path = location.path;
    const lines = readLinesBackward(path, {
      end: position.offset,
      blockSize: this.#blockSize,
      only: TURN_CONTEXT_MARKER,
    });
    for await (const line of lines) {
      const { record } = parseRecordLine(path, { ...line, text: line.text, line: 0 });
      if (record?.type === "turn_context") return record.payload;
    }
    return undefined;
  }

  /** The file's size and its non-empty lines, counted by a byte scan. */
  async size(location: SessionLocation): Promise<SessionSize> {
    const { records, sizeBytes } = await summarizeSessionFile(location.path);
    return { records, sizeBytes };
  }

  /** The session's file: its location's path. */
  fileOf(location: SessionLocation): string {
    return location.path;
  }

  /** Nothing to release: every file is opened and closed by the call that reads it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
