/**
 * The store's tables, made on first use by numbered migrations: each runs once, in a
 * transaction, under an advisory lock, so processes starting together migrate one at a time.
 *
 * @module
 */
import { type Db, transaction } from "./_connection.ts";
import { SessionStoreVersionError } from "./_errors.ts";

/** One step of the schema. */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}

/**
 * The schema, oldest first. Never edit a released migration; add the next one.
 *
 * Records keep their JSON text exactly as appended (`text`, not `jsonb`, which would reorder
 * keys) in append order (`seq`, 1-based per session). The sessions row carries what listing and
 * resume need without reading records: counts, the first user message, and the sequence number
 * of the last compaction checkpoint (and, from version 2, the session a fork came from).
 * `COLLATE "C"` makes an id prefix a plain index range.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "sessions and records",
    statements: [
      `CREATE TABLE turnlog_sessions (
        id text COLLATE "C" PRIMARY KEY,
        created_at timestamptz NOT NULL,
        record_count bigint NOT NULL DEFAULT 0,
        turn_count bigint NOT NULL DEFAULT 0,
        size_bytes bigint NOT NULL DEFAULT 0,
        last_checkpoint_seq bigint,
        preview text,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      `CREATE INDEX turnlog_sessions_newest ON turnlog_sessions (created_at DESC, id DESC)`,
      `CREATE TABLE turnlog_records (
        session_id text COLLATE "C" NOT NULL REFERENCES turnlog_sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        type text NOT NULL,
        record text NOT NULL,
        PRIMARY KEY (session_id, seq)
      )`,
      `CREATE INDEX turnlog_records_turn_context ON turnlog_records (session_id, seq)
        WHERE type = 'turn_context'`,
    ],
  },
  {
    version: 2,
    name: "the session a fork came from",
    statements: [`ALTER TABLE turnlog_sessions ADD COLUMN forked_from text`],
  },
  {
    version: 3,
    name: "record text compressed with lz4",
    // lz4 decompresses several times faster than the default pglz, which a full resume feels
    // (about a third off reading 100 MB); a server without it (before 14, or built without
    // lz4) keeps pglz.
    statements: [
      `DO $$ BEGIN
        IF current_setting('server_version_num')::int >= 140000 THEN
          EXECUTE 'ALTER TABLE turnlog_records ALTER COLUMN record SET COMPRESSION lz4';
        END IF;
      EXCEPTION WHEN feature_not_supported THEN NULL;
      END $$`,
    ],
  },
];

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The advisory lock key migrations run under: the bytes of "turnlogM". */
const MIGRATION_LOCK = "8391739299265996621";

const UNDEFINED_TABLE = "42P01";

async function appliedVersion(db: Db): Promise<number> {
  try {
    const { rows } = await db.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM turnlog_migrations",
    );
    return rows[0]?.version ?? 0;
  } catch (error) {
    if ((error as { code?: unknown }).code === UNDEFINED_TABLE) return 0;
    throw error;
  }
}

/**
 * Brings the database's schema up to {@linkcode SCHEMA_VERSION}. Once it is there this is one
 * read; otherwise each missing migration runs in its own transaction, holding the migration
 * lock, and re-checks under the lock whether another process applied it meanwhile.
 *
 * @throws {SessionStoreVersionError} when the database is newer than this code
 */
export async function migrate(
  db: Db,
  store: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> {
  const known = migrations[migrations.length - 1]?.version ?? 0;
  const found = await appliedVersion(db);
  if (found > known) throw new SessionStoreVersionError(store, found, known);
  for (const migration of migrations) {
    if (migration.version <= found) continue;
    await transaction(db, async () => {
      await db.query("SELECT pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK]);
      await db.query(`CREATE TABLE IF NOT EXISTS turnlog_migrations (
        version int PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = await db.query("SELECT 1 FROM turnlog_migrations WHERE version = $1", [
        migration.version,
      ]);
      if (done.rowCount !== 0) return;
      for (const statement of migration.statements) await db.query(statement);
      await db.query("INSERT INTO turnlog_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name,
      ]);
    });
  }
}
