/**
 * The session store in PostgreSQL: sessions and their records in two tables, shared by every
 * process and machine that opens the same database, with the file store's guarantees (one
 * writer per session, records back exactly as appended, resume reading only what follows the
 * last checkpoint).
 *
 * @module
 */
import { checkSessionId, InvalidSessionIdError } from "../../record/_ids.ts";
import { parseRecordLine } from "../../record/_parse.ts";
import type { SessionMeta, SessionRecord } from "../../record/_schemas.ts";
import {
  AmbiguousSessionError,
  oneLine,
  type SessionLocation,
  SessionNotFoundError,
} from "../_store.ts";
import type {
  FoundCheckpoint,
  ListOptions,
  RecordPosition,
  SessionListing,
  SessionStore,
  StoredEntry,
  StoreWriter,
} from "./_contract.ts";
import {
  ClientLink,
  type Db,
  type LinkOptions,
  type NamedStatement,
  PoolLink,
} from "./_connection.ts";
import { displayUrl, isPostgresUrl, urlPassword } from "./_errors.ts";
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

/** Records in append order from a sequence number on: a range of the primary key. */
const READ: NamedStatement = {
  name: "turnlog_read",
  text: `SELECT seq::float8 AS seq, record FROM turnlog_records
    WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3`,
};

interface RecordRow {
  seq: number;
  record: string;
}

interface SummaryRow {
  id: string;
  created_at: Date;
  preview: string | null;
  record_count: string;
  turn_count: string;
  size_bytes: string;
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

function position(seq: number): RecordPosition {
  return { line: seq, offset: seq };
}

/** The longest common prefix length of two strings. */
function common(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
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
  /** The database's URL without user or password: `postgres://host:port/db`. */
  readonly name: string;
  readonly #link: LinkOptions;
  readonly #readBatch: number;
  readonly #pool: PoolLink;
  #ready: Promise<void> | undefined;
  #rowsRead = 0;

  /** Opens nothing yet: the first call connects (and makes the tables when needed). */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    if (!isPostgresUrl(url)) {
      throw new TypeError(
        `Not a PostgreSQL URL: expected postgres://..., got "${displayUrl(url)}"`,
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
   * Creates a session whose first record is `meta` (as `session_meta`, stamped with its
   * `createdAt`) and returns it locked.
   *
   * @throws {SessionExistsError} when a session with this id exists
   */
  async create(meta: SessionMeta): Promise<{ location: SessionLocation; writer: StoreWriter }> {
    if (checkSessionId(meta.id) !== meta.id) {
      throw new InvalidSessionIdError(
        `Invalid session id ${JSON.stringify(meta.id)}: a new session's id is in lower case`,
      );
    }
    const createdAt = new Date(meta.createdAt);
    if (Number.isNaN(createdAt.getTime())) {
      throw new RangeError(`Invalid createdAt ${JSON.stringify(meta.createdAt)} of ${meta.id}`);
    }
    await this.#migrated();
    const location = locationOf(this.name, meta.id, createdAt);
    const writer = await PostgresSessionWriter.lock({
      location,
      connection: this.#writerLink(),
      store: this.name,
      create: meta,
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

  /** Lists sessions newest first, with the first user message and the counts kept per session. */
  async list(options: ListOptions = {}): Promise<SessionListing> {
    const limit = options.limit ?? 25;
    const rows = await this.#query<SummaryRow>(
      `SELECT id, created_at, preview, record_count, turn_count, size_bytes
      FROM turnlog_sessions ORDER BY created_at DESC, id DESC LIMIT $1`,
      [limit + 1],
    );
    return {
      sessions: rows.slice(0, limit).map((row) => ({
        ...locationOf(this.name, row.id, row.created_at),
        preview: row.preview === null ? undefined : oneLine(row.preview),
        recordCount: Number(row.record_count),
        turnCount: Number(row.turn_count),
        sizeBytes: Number(row.size_bytes),
      })),
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
    const shared = Math.max(0, ...neighbours.map((row) => common(row.id, id)));
    for (
      let length = Math.max(Math.min(min, id.length), shared + 1);
      length < id.length;
      length++
    ) {
      if (!id.slice(0, length).endsWith("-")) return id.slice(0, length);
    }
    return id;
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

  /** The last compaction checkpoint: one lookup by the position the sessions row keeps. */
  async lastCheckpoint(location: SessionLocation): Promise<FoundCheckpoint | undefined> {
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
    return { checkpoint: record.payload, position: position(row.seq) };
  }

  /**
   * The newest valid `turn_context` before `before`, by the partial index that holds only
   * `turn_context` rows (the type is written into the statement so the planner can use it).
   */
  async lastRecordBefore(
    location: SessionLocation,
    before: RecordPosition,
    type: "turn_context",
  ): Promise<SessionRecord | undefined> {
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
      if (record?.type === type) return record;
      end = row.seq;
    }
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
