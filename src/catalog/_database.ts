/**
 * The catalog's database: one SQLite file (WAL, a busy timeout, its schema's version in
 * `user_version`), opened or made, and made again from nothing when it is damaged or of another
 * version, with one line saying so. It is a cache: deleting it loses nothing.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { dirname } from "../_path.ts";

/**
 * `statement`, made to give its rows as arrays (node:sqlite's `setReturnArrays`, which Deno's
 * has and its types do not name): a row made as an object costs node:sqlite an object of as
 * many keys, in dictionary mode, and twice the time (64 rows of 26 columns: 163 KB and 1.7 ms
 * against 71 KB and 1.0 ms).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { returningArrays } from "./_database.ts";
 * const db = new DatabaseSync(":memory:");
 * assert.deepEqual(returningArrays(db.prepare("SELECT 1 AS a, 'b' AS b")).all(), [[1, "b"]]);
 * ```
 */
export function returningArrays(statement: StatementSync): StatementSync {
  (statement as StatementSync & { setReturnArrays(enabled: boolean): void }).setReturnArrays(true);
  return statement;
}

/** The schema's version: a catalog of any other version is made again. */
export const CATALOG_VERSION = 5;

/** How long a command waits for another one's write to end, in ms. */
const BUSY_TIMEOUT_MS = 30_000;

const SCHEMA = `
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  root TEXT NOT NULL,
  format TEXT NOT NULL,
  archived INTEGER NOT NULL,
  session TEXT NOT NULL,
  session_id TEXT NOT NULL,
  project TEXT,
  ino INTEGER,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  indexed INTEGER NOT NULL,
  tail_hash TEXT NOT NULL,
  lines INTEGER NOT NULL,
  inherits INTEGER NOT NULL,
  texted INTEGER NOT NULL DEFAULT 0,
  deleted INTEGER NOT NULL DEFAULT 0,
  racy INTEGER NOT NULL DEFAULT 0,
  state TEXT,
  first_at TEXT,
  last_at TEXT,
  cwd TEXT,
  title TEXT,
  first_prompt TEXT,
  turns INTEGER,
  healthy INTEGER,
  verdict TEXT,
  findings INTEGER,
  tokens TEXT,
  models TEXT,
  forked_from TEXT,
  forks INTEGER,
  unreadable TEXT,
  resume TEXT
);
CREATE INDEX files_root ON files (root, deleted);
CREATE INDEX files_session ON files (session);
CREATE TABLE lines (
  id INTEGER PRIMARY KEY,
  file INTEGER NOT NULL,
  line INTEGER NOT NULL,
  turn INTEGER NOT NULL,
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  roles TEXT NOT NULL
);
CREATE INDEX lines_file ON lines (file, line);
CREATE VIRTUAL TABLE text USING fts5 (
  body, content = '', contentless_delete = 1, tokenize = 'trigram', detail = none
);
`;

/**
 * SQLite's words for a file that is not a sound database (SQLITE_CORRUPT, SQLITE_NOTADB):
 * Deno's node:sqlite gives the message without the result code.
 */
const DAMAGED = /file is not a database|database disk image is malformed/;

/** Whether an error is SQLite saying the database file is damaged (or not a database). */
export function isDamage(error: unknown): boolean {
  const code = (error as { errcode?: number } | null)?.errcode;
  if (code === 11 || code === 26) return true;
  return error instanceof Error && DAMAGED.test(error.message);
}

/** Why a catalog was made again, in a line for the user; null when it was just made. */
export type Rebuilt = string | null;

function removeDatabase(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    try {
      Deno.removeSync(file);
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
}

function makeFolder(path: string): void {
  try {
    Deno.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
}

/**
 * Opens the file, making its folder (0700) first when it is not there: a catalog already made
 * costs no `mkdir` (nor the first call of Deno's, about 0.5 ms of a warm listing's start).
 */
function openFile(path: string): DatabaseSync {
  try {
    return new DatabaseSync(path);
  } catch (error) {
    try {
      Deno.statSync(dirname(path));
    } catch {
      makeFolder(path);
      return new DatabaseSync(path);
    }
    throw error;
  }
}

/** Sets what each connection needs; returns the schema's version (0: a catalog not made). */
function configure(db: DatabaseSync): number {
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec("PRAGMA synchronous = NORMAL");
  const row = db.prepare("PRAGMA user_version").get() as { user_version: number };
  return row.user_version;
}

function create(db: DatabaseSync): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    const version = (db.prepare("PRAGMA user_version").get() as { user_version: number })
      .user_version;
    // Another command made it between our look and our lock.
    if (version === 0) {
      db.exec(SCHEMA);
      db.exec(`PRAGMA user_version = ${CATALOG_VERSION}`);
    }
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * Opens the catalog at `path`, making it when it is missing, and making it again when it is
 * damaged or of another schema version (`rebuilt` says why, in words). The file is the user's
 * alone (0600), in a folder made 0700 when it is made.
 */
export function openDatabase(path: string): { db: DatabaseSync; rebuilt: Rebuilt } {
  let rebuilt: Rebuilt = null;
  for (let attempt = 0;; attempt++) {
    let db: DatabaseSync | undefined;
    try {
      db = openFile(path);
      const version = configure(db);
      if (version === CATALOG_VERSION) return { db, rebuilt };
      if (version !== 0) {
        rebuilt = `the catalog ${path} is of version ${version}, this turnlog's is ` +
          `${CATALOG_VERSION}: made again`;
        db.close();
        removeDatabase(path);
        continue;
      }
      // A catalog to make: the user's alone, and in WAL mode, which the file keeps (a catalog
      // of this version is both already, and costs neither a chmod nor the pragma).
      Deno.chmodSync(path, 0o600);
      db.exec("PRAGMA journal_mode = WAL");
      create(db);
      return { db, rebuilt };
    } catch (error) {
      db?.close();
      if (!isDamage(error) || attempt > 0) throw error;
      rebuilt = `the catalog ${path} is damaged (${(error as Error).message}): made again`;
      removeDatabase(path);
    }
  }
}

/** Closes a damaged catalog, removes its files and opens a new one. */
export function remakeDatabase(db: DatabaseSync, path: string): DatabaseSync {
  try {
    db.close();
  } catch {
    // Closing a damaged database may fail too: its files go either way.
  }
  removeDatabase(path);
  return openDatabase(path).db;
}
