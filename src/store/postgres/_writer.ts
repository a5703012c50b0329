/**
 * The one writer of a session in PostgreSQL: a session-level advisory lock on a connection of
 * its own, held for the writer's life, and appends that commit whole or not at all.
 *
 * @module
 */
import {
  recordText,
  type SessionMeta,
  type SessionMetaRecord,
  type SessionRecord,
} from "../../record/mod.ts";
import { SessionNotFoundError } from "../_find.ts";
import type { SessionLocation } from "../_layout.ts";
import { SessionExistsError, type StoreWriter } from "../_session_store.ts";
import { SessionInUseError } from "../_lock.ts";
import { ClosedWriterError } from "../_writer.ts";
import { TurnlogError } from "../../errors/mod.ts";
import { type ClientLink, transaction } from "./_connection.ts";
import { SessionLockLostError, SessionStoreUnreachableError } from "./_errors.ts";

/** How much of the first user message the sessions row keeps for listings. */
const PREVIEW_CHARS = 2000;

const encoder = new TextEncoder();

/**
 * The advisory lock key of a session: the first 8 bytes of SHA-256 of `turnlog:session:<id>`,
 * as a signed 64-bit integer in decimal. Every process derives the same key for the same id.
 */
export async function sessionLockKey(id: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(`turnlog:session:${id}`));
  return new DataView(digest).getBigInt64(0).toString();
}

/** A batch of records ready for one transaction. */
interface Batch {
  types: string[];
  texts: string[];
  turns: number;
  bytes: number;
  checkpointSeq: number | null;
  preview: string | null;
}

function encodeBatch(records: readonly SessionRecord[], after: number, hasPreview: boolean): Batch {
  const batch: Batch = {
    types: [],
    texts: [],
    turns: 0,
    bytes: 0,
    checkpointSeq: null,
    preview: null,
  };
  records.forEach((record, i) => {
    const seq = after + i + 1;
    const text = recordText(record);
    batch.types.push(record.type);
    batch.texts.push(text);
    batch.bytes += encoder.encode(text).length + 1;
    if (record.type === "turn_context") batch.turns++;
    if (record.type !== "response_item") return;
    const item = record.payload;
    if (item.type === "compaction_checkpoint") batch.checkpointSeq = seq;
    if (item.type === "message" && item.role === "user" && !hasPreview && batch.preview === null) {
      // PostgreSQL text cannot hold NUL; a preview does not need it.
      batch.preview = item.content.slice(0, PREVIEW_CHARS).replaceAll("\u0000", "");
    }
  });
  return batch;
}

/** The sessions row no longer matches what this writer knows: its lock or its count changed. */
class StaleWriterError extends TurnlogError {
  constructor() {
    super("store", "The session changed under this writer: its lock or its record count moved");
    this.name = "StaleWriterError";
  }
}

const UNIQUE_VIOLATION = "23505";

/**
 * Server settings of a writer's connection: the server notices a vanished client (a machine
 * that died without closing its socket) within about a minute, and frees its lock.
 */
export const WRITER_SETTINGS: Record<string, string> = {
  tcp_keepalives_idle: "30",
  tcp_keepalives_interval: "10",
  tcp_keepalives_count: "3",
};

/** The `application_name` of writer connections (what an operator sees in pg_stat_activity). */
export const WRITER_APPLICATION_NAME = "turnlog writer";

/**
 * One append in one statement, so it commits whole or not at all in one round trip: the UPDATE
 * is the guard (this connection still holds the lock, nobody appended since), and the rows go in
 * only when it matched. Sequence numbers follow the count the guard checked.
 */
const APPEND = `
  WITH guard AS (
    UPDATE turnlog_sessions SET record_count = $2 + cardinality($8::text[]),
      turn_count = turn_count + $3, size_bytes = size_bytes + $4,
      last_checkpoint_seq = COALESCE($5::bigint, last_checkpoint_seq),
      preview = COALESCE(preview, $6::text), updated_at = now()
    WHERE id = $1 AND record_count = $2 AND pg_backend_pid() = $7
    RETURNING id
  )
  INSERT INTO turnlog_records (session_id, seq, type, record)
  SELECT guard.id, $2 + r.n, r.type, r.record
  FROM guard, unnest($8::text[], $9::text[]) WITH ORDINALITY AS r(type, record, n)`;

const LOCK = `
  SELECT pg_try_advisory_lock($1::bigint) AS locked, pg_backend_pid() AS pid,
    s.record_count AS count, s.preview IS NOT NULL AS preview
  FROM (SELECT 1) AS one LEFT JOIN turnlog_sessions s ON s.id = $2`;

interface LockRow {
  locked: boolean;
  pid: number;
  count: string | null;
  preview: boolean | null;
}

/** What {@linkcode PostgresSessionWriter.lock} needs. */
export interface WriterLockOptions {
  location: SessionLocation;
  /** A connection of the writer's own (one socket); it ends when the writer closes. */
  connection: ClientLink;
  /** The store's URL without password, for messages. */
  store: string;
  /** Create the session with this `session_meta` record first (it must not exist yet). */
  create?: SessionMetaRecord;
}

/**
 * The writer of one session. It holds `pg_try_advisory_lock` on the session's key on its own
 * connection: a second writer anywhere fails at once, and a process that dies loses its
 * connection and with it the lock. Every append is one statement that also checks that this
 * connection still holds the lock and that nobody appended meanwhile.
 */
export class PostgresSessionWriter implements StoreWriter {
  readonly location: SessionLocation;
  readonly #conn: ClientLink;
  readonly #key: string;
  #pid: number;
  #recordCount: number;
  #hasPreview: boolean;
  #appended = 0;
  #closed = false;
  #tail: Promise<void> = Promise.resolve();

  private constructor(
    location: SessionLocation,
    conn: ClientLink,
    state: { key: string; pid: number; recordCount: number; hasPreview: boolean },
  ) {
    this.location = location;
    this.#conn = conn;
    this.#key = state.key;
    this.#pid = state.pid;
    this.#recordCount = state.recordCount;
    this.#hasPreview = state.hasPreview;
  }

  /**
   * Takes the session's lock (and, with `create`, creates the session with its `session_meta`
   * in one transaction).
   *
   * @throws {SessionInUseError} when another writer holds the lock
   * @throws {SessionNotFoundError} when the session does not exist (without `create`)
   * @throws {SessionExistsError} when it does (with `create`)
   */
  static async lock(options: WriterLockOptions): Promise<PostgresSessionWriter> {
    const { location, connection: conn, store, create } = options;
    const key = await sessionLockKey(location.id);
    try {
      const { rows: [row] } = await conn.run(
        (db) => db.query<LockRow>(LOCK, [key, location.id]),
        { retry: true },
      );
      if (!row?.locked) throw new SessionInUseError(location.path);
      if (create === undefined && row.count === null) {
        throw new SessionNotFoundError(location.id, store);
      }
      if (create !== undefined && row.count !== null) {
        throw new SessionExistsError(location.id, store);
      }
      const writer = new PostgresSessionWriter(location, conn, {
        key,
        pid: row.pid,
        recordCount: Number(row.count ?? 0),
        hasPreview: row.preview === true,
      });
      if (create !== undefined) {
        await writer.#commit(encodeBatch([create], 0, false), create.payload);
        writer.#recordCount = 1;
        writer.#appended = 1;
      }
      return writer;
    } catch (error) {
      await conn.end();
      throw error;
    }
  }

  /** Records appended through this writer so far (`session_meta` included for a new session). */
  get appendedRecords(): number {
    return this.#appended;
  }

  /** The session's location path: `<store>#<id>`. */
  get path(): string {
    return this.location.path;
  }

  /** Nothing to seal: the database keeps whole records only (an append commits whole or not). */
  seal(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Appends records in one statement, committed when this resolves. After a lost connection
   * (a database restart between two appends) it takes the lock back on a new connection when
   * nobody else appended meanwhile, and goes on.
   *
   * @throws {SessionStoreUnreachableError} when the database cannot be reached; nothing of
   * this call is stored
   * @throws {SessionLockLostError} when the lock could not be taken back as it was
   */
  append(records: readonly SessionRecord[]): Promise<void> {
    // One at a time, in call order: each append's guard expects the count the previous left.
    const appended = this.#tail.then(() => this.#appendNow(records));
    this.#tail = appended.catch(() => {});
    return appended;
  }

  async #appendNow(records: readonly SessionRecord[]): Promise<void> {
    if (this.#closed) throw new ClosedWriterError(this.location.path);
    if (records.length === 0) return;
    const batch = encodeBatch(records, this.#recordCount, this.#hasPreview);
    try {
      await this.#commit(batch);
    } catch (error) {
      if (!(error instanceof StaleWriterError || error instanceof SessionStoreUnreachableError)) {
        throw error;
      }
      await this.#relock();
      try {
        await this.#commit(batch);
      } catch (again) {
        if (again instanceof StaleWriterError) {
          throw await this.#closeWith(this.#lost("the session changed meanwhile"));
        }
        throw again;
      }
    }
    this.#recordCount += records.length;
    this.#appended += records.length;
    if (batch.preview !== null) this.#hasPreview = true;
  }

  async #commit(batch: Batch, create?: SessionMeta): Promise<void> {
    const id = this.location.id;
    const values = [
      id,
      this.#recordCount,
      batch.turns,
      batch.bytes,
      batch.checkpointSeq,
      batch.preview,
      this.#pid,
      batch.types,
      batch.texts,
    ];
    const inserted = await this.#conn.run(async (db) => {
      try {
        if (create === undefined) {
          return (await db.query({ name: "turnlog_append", text: APPEND, values })).rowCount;
        }
        return await transaction(db, async () => {
          await db.query(
            "INSERT INTO turnlog_sessions (id, created_at, forked_from) VALUES ($1, $2, $3)",
            [id, create.createdAt, create.forkedFrom?.sessionId ?? null],
          );
          return (await db.query({ name: "turnlog_append", text: APPEND, values })).rowCount;
        });
      } catch (error) {
        if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) throw new StaleWriterError();
        throw error;
      }
    });
    if (inserted !== batch.texts.length) throw new StaleWriterError();
  }

  /** Takes the lock back on the current (maybe new) connection, if the session is unchanged. */
  async #relock(): Promise<void> {
    const { rows: [row] } = await this.#conn.run((db) =>
      db.query<LockRow>(LOCK, [this.#key, this.location.id])
    );
    if (!row?.locked) throw await this.#closeWith(this.#lost("another run holds it now"));
    if (Number(row.count) !== this.#recordCount) {
      throw await this.#closeWith(
        this.#lost(
          `the session changed meanwhile (${row.count} records, this run expected ${this.#recordCount})`,
        ),
      );
    }
    this.#pid = row.pid;
  }

  #lost(reason: string): SessionLockLostError {
    return new SessionLockLostError(this.location.path, reason);
  }

  async #closeWith(error: Error): Promise<Error> {
    await this.#release();
    return error;
  }

  /**
   * Waits for the appends already asked for, then releases the lock (at once, on the server)
   * and closes the writer's connection.
   */
  async close(): Promise<void> {
    await this.#tail;
    await this.#release();
  }

  async #release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#conn.run((db) => db.query("SELECT pg_advisory_unlock_all()"));
    } catch {
      // The connection is gone, and the lock with it.
    } finally {
      await this.#conn.end();
    }
  }

  /** Closes the writer (for `await using`). */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
