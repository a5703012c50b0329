/**
 * The store interface as the PostgreSQL backend implements it: what every session store offers
 * (create, find, list, lock, read forward, find the last checkpoint). The shared interface of
 * `src/store/` replaces these declarations when the two backends meet.
 *
 * @module
 */
import type { RecordEntry } from "../../record/_parse.ts";
import type { CompactionCheckpoint, SessionMeta, SessionRecord } from "../../record/_schemas.ts";
import type { SessionLocation, SessionSummary } from "../_store.ts";

export type { SessionLocation, SessionSummary };

/**
 * Where a record is: its 1-based number in the session and a store-specific offset (the byte
 * offset in a file; the row's sequence number in PostgreSQL).
 */
export interface RecordPosition {
  /** The record's 1-based number in the session. */
  line: number;
  /** Where the store finds it: a byte offset in a file, a sequence number in PostgreSQL. */
  offset: number;
}

/**
 * One stored record read back: a record or a problem, where it is (`start`/`end`: byte range in
 * a file; `seq` and `seq + 1` in PostgreSQL), and its exact stored text.
 */
export type StoredEntry = RecordEntry & {
  start: number;
  end: number;
  /** The record's JSON text exactly as it was appended. */
  text: string;
};

/** A session in a listing, with the counts the store keeps. */
export interface StoredSessionSummary extends SessionSummary {
  /** Records in the session. */
  recordCount: number;
  /** Turns (runs): the `turn_context` records. */
  turnCount: number;
  /** Size of the session as a JSONL file: the records' UTF-8 bytes plus one newline each. */
  sizeBytes: number;
}

/** One page of a listing, newest first. */
export interface SessionListing {
  /** The sessions of this page, newest first. */
  sessions: StoredSessionSummary[];
  /** True when older sessions exist beyond this page. */
  more: boolean;
}

/** Options of {@linkcode SessionStore.list}. */
export interface ListOptions {
  /**
   * Sessions per page.
   *
   * @default {25}
   */
  limit?: number;
}

/** The one writer of a session: it holds the session's lock until closed, and only appends. */
export interface StoreWriter {
  /** Appends records in order; durable when the promise resolves. */
  append(records: readonly SessionRecord[]): Promise<void>;
  /** Records appended through this writer so far. */
  readonly appendedRecords: number;
  /** Releases the lock. */
  close(): Promise<void> | void;
}

/** The last compaction checkpoint of a session and where it is. */
export interface FoundCheckpoint {
  /** The checkpoint record's payload. */
  checkpoint: CompactionCheckpoint;
  /** Where the checkpoint record is; reading from here starts with it. */
  position: RecordPosition;
}

/** A place that keeps sessions: the JSONL file store or a PostgreSQL database. */
export interface SessionStore {
  /** The store for messages: a root folder, or a URL without its password. */
  readonly name: string;
  /** Creates a session holding `meta` as its first record; returns its locked writer. */
  create(meta: SessionMeta): Promise<{ location: SessionLocation; writer: StoreWriter }>;
  /** Finds a session by full id or unique prefix. */
  find(idOrPrefix: string): Promise<SessionLocation>;
  /** Lists sessions newest first, with a one-line preview and counts. */
  list(options?: ListOptions): Promise<SessionListing>;
  /** The shortest prefix of `id` (at least `min` characters) that finds only this session. */
  shortestUniquePrefix(id: string, min?: number): Promise<string>;
  /** Takes the session's single-writer lock, failing at once when another run holds it. */
  lock(location: SessionLocation): Promise<StoreWriter>;
  /** Yields the session's records forward, in append order, from `from` (inclusive) on. */
  read(location: SessionLocation, from?: RecordPosition): AsyncIterable<StoredEntry>;
  /** The session's last compaction checkpoint, or undefined when it has none. */
  lastCheckpoint(location: SessionLocation): Promise<FoundCheckpoint | undefined>;
  /** The newest valid record of `type` before `position`. */
  lastRecordBefore(
    location: SessionLocation,
    position: RecordPosition,
    type: "turn_context",
  ): Promise<SessionRecord | undefined>;
  /** Releases the store's connections (writers keep their own until closed). */
  close(): Promise<void>;
}
