/**
 * The session store interface: what every place that keeps sessions offers (create, find by
 * id or prefix, list newest first, one writer at a time, read forward, the last checkpoint and
 * reading from it), so that resume, the runtime, the inspector and the server work on the JSONL
 * files and on a shared database alike without knowing which.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type { SessionReplay } from "../history/mod.ts";
import type {
  CompactionCheckpoint,
  RecordEntry,
  SessionMetaRecord,
  SessionRecord,
  TurnContext,
} from "../record/mod.ts";
import type { SessionLocation } from "./_layout.ts";
import type { SessionListing } from "./_listing.ts";

/**
 * Where a record is: its 1-based number in the session and where the store finds it (the byte
 * offset of its line in a file; its sequence number in a database).
 */
export interface RecordPosition {
  /** The record's 1-based number in the session; 0 when the store does not know it. */
  line: number;
  /** Where the store finds it: a byte offset in a file, a sequence number in a database. */
  offset: number;
}

/**
 * One record read back for replay: a record or a problem, and where it is (`start`/`end`: its
 * byte range in a file; `seq` and `seq + 1` in a database).
 */
export type ReplayEntry = RecordEntry & {
  /** Where the record starts: a byte offset in a file, a sequence number in a database. */
  start: number;
  /** Where the next record starts. */
  end: number;
};

/** One stored record read back: a {@linkcode ReplayEntry} and its exact stored text. */
export type StoredEntry = ReplayEntry & {
  /** The record's JSON text exactly as it was appended (a file's line, without its newline). */
  text: string;
};

/** The last compaction checkpoint of a session and where it is. */
export interface StoredCheckpoint {
  /** The checkpoint record's payload. */
  checkpoint: CompactionCheckpoint;
  /** Where the checkpoint record is; reading from here starts with it. */
  position: RecordPosition;
}

/** How large a session is now. */
export interface SessionSize {
  /** Records (non-empty lines of a file). */
  records: number;
  /** Bytes as a JSONL file: each record's UTF-8 text and its newline. */
  sizeBytes: number;
}

/** Options of {@linkcode SessionStore.list}. */
export interface ListSessionsOptions {
  /**
   * Sessions listed at most, newest first.
   *
   * @default {25}
   */
  limit?: number;
}

/** Options of {@linkcode SessionStore.lock}. */
export interface LockOptions {
  /**
   * Make sure the next append starts a record of its own at once (a file: a torn last line is
   * moved to the sidecar); false: the caller calls {@linkcode StoreWriter.seal} once it has
   * read the session and accepted it.
   *
   * @default {true}
   */
  seal?: boolean;
}

/** The one writer of a session: it holds the session's lock until closed, and only appends. */
export interface StoreWriter {
  /** The session's location path (a file's path; `<store>#<id>` in a database). */
  readonly path: string;
  /** Appends records in order, in one write; durable when the promise resolves. */
  append(records: readonly SessionRecord[]): Promise<void>;
  /** Records appended through this writer so far (`session_meta` included for a new session). */
  readonly appendedRecords: number;
  /**
   * Makes sure the next append starts a record of its own (a file's torn last line is moved to
   * the sidecar); a database keeps whole records only, so there it does nothing.
   */
  seal(): Promise<void>;
  /** Waits for the appends asked for, then releases the lock. */
  close(): Promise<void> | void;
}

/**
 * A place that keeps sessions: the JSONL files under a sessions folder (the default) or a
 * PostgreSQL database every instance shares. Records come back exactly as appended, in append
 * order; one writer at a time holds a session, and a second one, from any process, fails at
 * once with {@linkcode SessionInUseError}.
 */
export interface SessionStore {
  /** The store for messages: the sessions folder, or the database's URL without a password. */
  readonly name: string;
  /**
   * Creates a session whose first record is `first` (its `session_meta`, kept exactly) and
   * returns its locked writer.
   *
   * @throws {SessionExistsError} when a session with this id exists
   */
  create(first: SessionMetaRecord): Promise<{ location: SessionLocation; writer: StoreWriter }>;
  /**
   * Finds a session by full id or unique prefix.
   *
   * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
   * @throws {SessionNotFoundError} when no session matches
   * @throws {AmbiguousSessionError} when several match
   */
  find(idOrPrefix: string): Promise<SessionLocation>;
  /** The newest session, or undefined when the store holds none. */
  newest(): Promise<SessionLocation | undefined>;
  /** Lists the newest sessions first, with their first user message and counts. */
  list(options?: ListSessionsOptions): Promise<SessionListing>;
  /** The shortest prefix of `id` (at least `min` characters) that finds only this session. */
  shortestUniquePrefix(id: string, min?: number): Promise<string>;
  /**
   * Takes the session's single-writer lock.
   *
   * @throws {SessionInUseError} at once when another run, in any process, holds it
   */
  lock(location: SessionLocation, options?: LockOptions): Promise<StoreWriter>;
  /** The session's first entry alone (its `session_meta`), or undefined for an empty session. */
  head(location: SessionLocation): Promise<StoredEntry | undefined>;
  /** Yields the session's entries forward, in append order, from `from` (inclusive) on. */
  read(location: SessionLocation, from?: RecordPosition): AsyncIterable<StoredEntry>;
  /**
   * The session replayed from its last compaction checkpoint on (the checkpoint the first
   * record taken) when it stores its record count and no entry after it is a problem; else
   * replayed from its first entry. A file is parsed once, from its end back to the checkpoint;
   * a database reads the key range from the checkpoint's sequence number.
   */
  replayFromLastCheckpoint(location: SessionLocation): Promise<SessionReplay>;
  /** The session's last valid compaction checkpoint, or undefined when it has none. */
  lastCheckpoint(location: SessionLocation): Promise<StoredCheckpoint | undefined>;
  /** The newest valid `turn_context` before `position`, or undefined. */
  lastTurnContextBefore(
    location: SessionLocation,
    position: RecordPosition,
  ): Promise<TurnContext | undefined>;
  /** How large the session is now. */
  size(location: SessionLocation): Promise<SessionSize>;
  /**
   * The file that keeps the session, when the store keeps each session in a JSONL file of its
   * own (what only a file has: its bytes to repair, its growth to watch); undefined when the
   * store keeps whole records only (a database).
   */
  fileOf(location: SessionLocation): string | undefined;
  /**
   * The folder of the store's session files (what `walkSessions` walks, what a search of the
   * store reads), when it keeps files; undefined for a database.
   */
  readonly folder: string | undefined;
  /** Releases the store's connections (a writer keeps its own until it closes). */
  close(): Promise<void>;
}

/** A session with this id is already in the store. */
export class SessionExistsError extends TurnlogError {
  /** An error naming the id and the store. */
  constructor(id: string, store: string, options?: ErrorOptions) {
    super("usage", `Session already exists: ${id} in ${store}`, options);
    this.name = "SessionExistsError";
  }
}
