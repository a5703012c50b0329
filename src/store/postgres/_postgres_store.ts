/**
 * The session store in PostgreSQL: sessions and their records in two tables, shared by every
 * process and machine that opens the same database, with the file store's guarantees (one
 * writer per session, records back exactly as appended, resume reading only what follows the
 * last checkpoint).
 *
 * @module
 */
import { TurnlogError } from "../../errors/mod.ts";
import { SessionReplay } from "../../history/mod.ts";
import {
  checkSessionId,
  InvalidSessionIdError,
  parseRecordLine,
  type SessionMetaRecord,
  type TurnContext,
} from "../../record/mod.ts";
import { oneLine } from "../../text/mod.ts";
import { AmbiguousSessionError, SessionNotFoundError } from "../_find.ts";
import type { SessionLocation } from "../_layout.ts";
import { prefixBeside } from "../_prefix.ts";
import { type ListedSession, LISTING_VERSION, type SessionListing } from "../_listing.ts";
import type {
  ListSessionsOptions,
  RecordPosition,
  SessionSize,
  SessionStore,
  StoredCheckpoint,
  StoredEntry,
  StoreWriter,
} from "../_session_store.ts";
import { InvalidStoreError } from "../_spec.ts";
import {
  ClientLink,
  type Db,
  type LinkOptions,
  type NamedStatement,
  PoolLink,
} from "./_connection.ts";
import { displayUrl, isPostgresUrl, scrub, urlPassword } from "../_postgres_url.ts";
import { migrate } from "./_migrations.ts";
import { PostgresSessionWriter, WRITER_APPLICATION_NAME, WRITER_SETTINGS } from "./_writer.ts";

/** Options of {@linkcode PostgresStore}. */
export interface PostgresStoreOptions {
  /**
   * Connections the store keeps for finding, listing and reading; every writer has one more.
   *
   * @default {4}
   */
  maxConnections?: number;
  /**
   * Records fetched per round trip when reading forward.
   *
   * @default {1000}
   */
  readBatch?: number;
  /**
   * Seconds to wait for a connection before giving up.
   *
   * @default {10}
   */
  connectTimeout?: number;
}

/**
 * Records in append order from a sequence number on: a bounded range of the primary key
 * (sequence numbers have no gaps), which the planner serves from the index whatever its
 * statistics say (a `LIMIT` over an open range was planned as a scan and a sort of the whole
 * session before the table was analyzed).
 */
const READ: NamedStatement = {
  name: "turnlog_read",
  text: `SELECT seq::float8 AS seq, record FROM turnlog_records
    WHERE session_id = $1 AND seq >= $2 AND seq < $2 + $3 ORDER BY seq`,
};

/**
 * The newest sessions with their counts, and the ids beside each in id order (only they can
 * share a longer prefix with it): one statement of index lookups.
 */
const LIST = `SELECT s.id, s.created_at, s.preview, s.record_count, s.turn_count, s.size_bytes,
    s.forked_from,
    (SELECT b.id FROM turnlog_sessions b WHERE b.id < s.id ORDER BY b.id DESC LIMIT 1) AS before,
    (SELECT a.id FROM turnlog_sessions a WHERE a.id > s.id ORDER BY a.id LIMIT 1) AS after
  FROM (SELECT * FROM turnlog_sessions ORDER BY created_at DESC, id DESC LIMIT $1) s
  ORDER BY s.created_at DESC, s.id DESC`;

interface RecordRow {
  seq: number;
  record: string;
}

interface ListRow {
  id: string;
  created_at: Date;
  preview: string | null;
  record_count: string;
  turn_count: string;
  size_bytes: string;
  forked_from: string | null;
  before: string | null;
  after: string | null;
}

/** A session location's display path: the store's URL, `#`, the session id. */
function locationOf(store: string, id: string, createdAt: Date): SessionLocation {
  return { id, createdAt: createdAt.toISOString(), path: `${store}#${id}` };
}

function storedEntry(path: string, seq: number, text: string): StoredEntry {
  const entry = parseRecordLine(path, {
    line: seq,
    text,
    start: seq,
    end: seq + 1,
    terminated: true,
  });
  return { ...entry, start: seq, end: seq + 1, text };
}

/**
 * Sessions kept in a PostgreSQL database, opened from a `postgres://` URL. Tables are made on
 * first use. Positions are sequence numbers: a record's `line` and `offset` are both its
 * 1-based number in the session.
 *
 * @example
 * ```ts ignore
 * const store = new PostgresStore("postgres://turnlog:secret@db.internal:5432/turnlog");
 * const location = await store.find("0199a1b2");
 * for await (const entry of store.read(location)) console.log(entry.record?.type);
 * await store.close();
 * ```
 */
export class PostgresStore implements SessionStore {
  /** The database's URL without password: `postgres://user@host:port/db`. */
  readonly name: string;
  /** A database keeps no session files. */
  readonly folder: undefined = undefined;
  readonly #link: LinkOptions;
  readonly #readBatch: number;
  readonly #pool: PoolLink;
  #ready: Promise<void> | undefined;
  #rowsRead = 0;

  /**
   * Opens nothing yet: the first call connects (and makes the tables when needed).
   *
   * @throws {InvalidStoreError} when `url` is not a PostgreSQL URL
   */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    if (!isPostgresUrl(url) || !URL.canParse(url)) {
      throw new InvalidStoreError(
        `Not a PostgreSQL URL: expected postgres://user:password@host:port/database, got "${
          scrub(url, urlPassword(url))
        }"`,
      );
    }
    this.name = displayUrl(url);
    this.#link = {
      url,
      name: this.name,
      password: urlPassword(url),
      connectTimeoutMs: (options.connectTimeout ?? 10) * 1000,
      applicationName: "turnlog",
    };
    this.#readBatch = options.readBatch ?? 1000;
    this.#pool = new PoolLink({ ...this.#link, max: options.maxConnections ?? 4 });
  }

  /** Record rows this store has fetched from the database so far (for tests and benchmarks). */
  get recordRowsRead(): number {
    return this.#rowsRead;
  }

  #writerLink(): ClientLink {
    return new ClientLink({
      ...this.#link,
      applicationName: WRITER_APPLICATION_NAME,
      settings: WRITER_SETTINGS,
    });
  }

  async #migrated(): Promise<void> {
    this.#ready ??= this.#pool.run((db) => migrate(db, this.name), { retry: true }).catch(
      (error) => {
        this.#ready = undefined;
        throw error;
      },
    );
    await this.#ready;
  }

  /** Runs one read-only statement (again on a fresh connection if the first one broke). */
  async #query<R extends object>(
    statement: string | NamedStatement,
    values: unknown[],
  ): Promise<R[]> {
    await this.#migrated();
    return await this.#pool.run(async (db: Db) => (await db.query<R>(statement, values)).rows, {
      retry: true,
    });
  }

  /**
   * Creates a session whose first record is `first` (its `session_meta`) and returns it locked.
   *
   * @throws {SessionExistsError} when a session with this id exists
   */
  async create(
    first: SessionMetaRecord,
  ): Promise<{ location: SessionLocation; writer: StoreWriter }> {
    const meta = first.payload;
    if (checkSessionId(meta.id) !== meta.id) {
      throw new InvalidSessionIdError(
        `Invalid session id ${JSON.stringify(meta.id)}: a new session's id is in lower case`,
      );
    }
    const createdAt = new Date(meta.createdAt);
    if (Number.isNaN(createdAt.getTime())) {
      throw new TurnlogError(
        "usage",
        `Invalid createdAt ${JSON.stringify(meta.createdAt)} of ${meta.id}`,
      );
    }
    await this.#migrated();
    const location = locationOf(this.name, meta.id, createdAt);
    const writer = await PostgresSessionWriter.lock({
      location,
      connection: this.#writerLink(),
      store: this.name,
      create: first,
    });
    return { location, writer };
  }

  /**
   * Finds a session by full id or unique prefix: one range scan of the id index.
   *
   * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
   * @throws {SessionNotFoundError} when no session matches
   * @throws {AmbiguousSessionError} when several match
   */
  async find(idOrPrefix: string): Promise<SessionLocation> {
    const prefix = checkSessionId(idOrPrefix);
    // Ids are letters, digits, '-' and '_', all below '~' in "C" order.
    const rows = await this.#query<{ id: string; created_at: Date }>(
      `SELECT id, created_at FROM turnlog_sessions WHERE id >= $1 AND id < $2
      ORDER BY created_at DESC, id DESC`,
      [prefix, `${prefix}~`],
    );
    const matches = rows.map((row) => locationOf(this.name, row.id, row.created_at));
    const exact = matches.find((location) => location.id === prefix);
    if (exact !== undefined) return exact;
    if (matches.length === 0) throw new SessionNotFoundError(idOrPrefix, this.name);
    if (matches.length > 1) throw new AmbiguousSessionError(idOrPrefix, matches);
    return matches[0]!;
  }

  /** The newest session: one step of the newest-first index. */
  async newest(): Promise<SessionLocation | undefined> {
    const [row] = await this.#query<{ id: string; created_at: Date }>(
      "SELECT id, created_at FROM turnlog_sessions ORDER BY created_at DESC, id DESC LIMIT 1",
      [],
    );
    return row && locationOf(this.name, row.id, row.created_at);
  }

  /**
   * Lists sessions newest first, with the first user message and the counts the sessions row
   * keeps: no record is read.
   */
  async list(options: ListSessionsOptions = {}): Promise<SessionListing> {
    const limit = options.limit ?? 25;
    const rows = await this.#query<ListRow>(LIST, [limit + 1]);
    const sessions: ListedSession[] = rows.slice(0, limit).map((row) => ({
      id: row.id,
      shortId: prefixBeside(row.id, [row.before, row.after], 8),
      created: row.created_at.toISOString(),
      path: `${this.name}#${row.id}`,
      sizeBytes: Number(row.size_bytes),
      turns: Number(row.turn_count),
      records: Number(row.record_count),
      firstUserMessage: row.preview === null ? null : oneLine(row.preview, 500),
      forkedFrom: row.forked_from,
    }));
    return {
      format: "turnlog-sessions",
      version: LISTING_VERSION,
      root: this.name,
      sessions,
      more: rows.length > limit,
    };
  }

  /**
   * The shortest prefix of `id`, at least `min` characters and not ending in `-`, that finds
   * only this session; the whole id when no shorter one does. It reads the two ids next to
   * `id` in sort order: only they can share a longer prefix with it.
   */
  async shortestUniquePrefix(id: string, min = 8): Promise<string> {
    const neighbours = await this.#query<{ id: string }>(
      `(SELECT id FROM turnlog_sessions WHERE id < $1 ORDER BY id DESC LIMIT 1)
      UNION ALL
      (SELECT id FROM turnlog_sessions WHERE id > $1 ORDER BY id LIMIT 1)`,
      [id],
    );
    return prefixBeside(id, neighbours.map((row) => row.id), min);
  }

  /**
   * Takes the session's lock on a connection of the writer's own.
   *
   * @throws {SessionInUseError} at once when another run, in any process, holds it
   * @throws {SessionNotFoundError} when the session is not in the store
   */
  async lock(location: SessionLocation): Promise<StoreWriter> {
    await this.#migrated();
    return await PostgresSessionWriter.lock({
      location,
      connection: this.#writerLink(),
      store: this.name,
    });
  }

  /** The session's first record alone. */
  async head(location: SessionLocation): Promise<StoredEntry | undefined> {
    const [row] = await this.#query<RecordRow>(READ, [location.id, 1, 1]);
    if (row === undefined) return undefined;
    this.#rowsRead++;
    return storedEntry(location.path, row.seq, row.record);
  }

  /** Yields the session's records in append order from `from` (inclusive), in batches. */
  async *read(location: SessionLocation, from?: RecordPosition): AsyncGenerator<StoredEntry> {
    let next = from?.offset ?? 1;
    for (;;) {
      const rows = await this.#query<RecordRow>(READ, [location.id, next, this.#readBatch]);
      this.#rowsRead += rows.length;
      for (const row of rows) yield storedEntry(location.path, row.seq, row.record);
      if (rows.length < this.#readBatch) return;
      next = rows[rows.length - 1]!.seq + 1;
    }
  }

  /**
   * The session replayed from its last checkpoint on, by key range from its sequence number
   * (those after it are few: compaction keeps them so), or from its first record when a record
   * after it cannot be read or the checkpoint stores no record count.
   */
  async replayFromLastCheckpoint(location: SessionLocation): Promise<SessionReplay> {
    const found = await this.lastCheckpoint(location);
    if (found?.checkpoint.recordsBefore !== undefined) {
      const tail = new SessionReplay();
      let whole = true;
      for await (const entry of this.read(location, found.position)) {
        whole = entry.problem === undefined;
        if (!whole) break;
        tail.push(entry);
      }
      if (whole) return tail;
    }
    const replay = new SessionReplay();
    for await (const entry of this.read(location)) replay.push(entry);
    return replay;
  }

  /** The last compaction checkpoint: one lookup by the position the sessions row keeps. */
  async lastCheckpoint(location: SessionLocation): Promise<StoredCheckpoint | undefined> {
    const [row] = await this.#query<RecordRow>(
      `SELECT r.seq::float8 AS seq, r.record FROM turnlog_sessions s
      JOIN turnlog_records r ON r.session_id = s.id AND r.seq = s.last_checkpoint_seq
      WHERE s.id = $1`,
      [location.id],
    );
    if (row === undefined) return undefined;
    this.#rowsRead++;
    const { record } = storedEntry(location.path, row.seq, row.record);
    if (record?.type !== "response_item" || record.payload.type !== "compaction_checkpoint") {
      return undefined;
    }
    return { checkpoint: record.payload, position: { line: row.seq, offset: row.seq } };
  }

  /**
   * The newest valid `turn_context` before `before`, by the partial index that holds only
   * `turn_context` rows (the type is written into the statement so the planner can use it).
   */
  async lastTurnContextBefore(
    location: SessionLocation,
    before: RecordPosition,
  ): Promise<TurnContext | undefined> {
    let end = before.offset;
    for (;;) {
      const [row] = await this.#query<RecordRow>(
        `SELECT seq::float8 AS seq, record FROM turnlog_records
        WHERE session_id = $1 AND type = 'turn_context' AND seq < $2
        ORDER BY seq DESC LIMIT 1`,
        [location.id, end],
      );
      if (row === undefined) return undefined;
      this.#rowsRead++;
      const { record } = storedEntry(location.path, row.seq, row.record);
      if (record?.type === "turn_context") return record.payload;
      end = row.seq;
    }
  }

  /**
   * The counts the sessions row keeps.
   *
   * @throws {SessionNotFoundError} when the session is not in the store
   */
  async size(location: SessionLocation): Promise<SessionSize> {
    const [row] = await this.#query<{ record_count: string; size_bytes: string }>(
      "SELECT record_count, size_bytes FROM turnlog_sessions WHERE id = $1",
      [location.id],
    );
    if (row === undefined) throw new SessionNotFoundError(location.id, this.name);
    return { records: Number(row.record_count), sizeBytes: Number(row.size_bytes) };
  }

  /** None: a database keeps whole records, in no file of a session's own. */
  fileOf(_location: SessionLocation): undefined {
    return undefined;
  }

  /** Closes the store's connections; writers keep theirs until they close. */
  async close(): Promise<void> {
    await this.#pool.end();
  }

  /** Closes the store (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
