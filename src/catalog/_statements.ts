/**
 * The statements an update writes the catalog's rows with, prepared once per database, and the
 * point between two write steps where the fault test may kill the process.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { KnownFile } from "./_walk.ts";

/**
 * The environment variable that kills the process (SIGKILL) at the n-th write step of an
 * update (a line's text inserted, a file's transaction committed): for the fault test alone.
 */
export const CATALOG_KILL_AT_ENV = "TURNLOG_CATALOG_KILL_AT";

let steps = 0;
let killAt: number | undefined | null = null;

/** One write step: where the fault test may kill the process. */
export function faultPoint(): void {
  if (killAt === null) {
    const granted =
      Deno.permissions.querySync({ name: "env", variable: CATALOG_KILL_AT_ENV }).state ===
        "granted";
    const text = granted ? Deno.env.get(CATALOG_KILL_AT_ENV) : undefined;
    killAt = text === undefined || text === "" ? undefined : Number(text);
  }
  if (killAt !== undefined && ++steps === killAt) Deno.kill(Deno.pid, "SIGKILL");
}

/** The statements an update runs, prepared once. */
export class Statements {
  readonly byPath: StatementSync;
  readonly insertFile: StatementSync;
  readonly dropText: StatementSync;
  readonly dropLines: StatementSync;
  readonly insertLine: StatementSync;
  readonly insertText: StatementSync;
  readonly saveFile: StatementSync;
  readonly markTexted: StatementSync;
  /** A row whose file is not as it says (read since, it did not give its lines): read again. */
  readonly markStale: StatementSync;

  constructor(db: DatabaseSync) {
    this.byPath = db.prepare(
      "SELECT id, path, ino, size, mtime, indexed, tail_hash, lines, texted, deleted, racy " +
        "FROM files WHERE path = ?",
    );
    this.insertFile = db.prepare(
      "INSERT INTO files (path, root, format, archived, session, session_id, project, size, " +
        "mtime, indexed, tail_hash, lines, inherits) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, '', 0, 0)",
    );
    this.dropText = db.prepare(
      "DELETE FROM text WHERE rowid IN (SELECT id FROM lines WHERE file = ?)",
    );
    this.dropLines = db.prepare("DELETE FROM lines WHERE file = ?");
    this.insertLine = db.prepare(
      "INSERT INTO lines (file, line, turn, start, end, roles) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.insertText = db.prepare("INSERT INTO text (rowid, body) VALUES (?, ?)");
    this.saveFile = db.prepare(
      `UPDATE files SET root = ?, format = ?, archived = ?, session = ?, session_id = ?,
        project = ?, ino = ?, size = ?, mtime = ?, indexed = ?, tail_hash = ?, lines = ?,
        inherits = ?, texted = ?, deleted = 0, racy = ?, state = ?, first_at = ?, last_at = ?, cwd = ?, title = ?,
        first_prompt = ?, turns = ?, healthy = ?, verdict = ?, findings = ?, tokens = ?,
        models = ?, forked_from = ?, forks = ?, unreadable = ? WHERE id = ?`,
    );
    this.markTexted = db.prepare("UPDATE files SET texted = 1 WHERE id = ?");
    this.markStale = db.prepare("UPDATE files SET racy = 1 WHERE id = ?");
  }

  /** A file's text rows dropped (its lines and their text). */
  dropRows(fileId: number): void {
    this.dropText.run(fileId);
    this.dropLines.run(fileId);
  }
}

const statements = new WeakMap<DatabaseSync, Statements>();

/** The statements of `db`, prepared the first time they are asked for. */
export function statementsOf(db: DatabaseSync): Statements {
  let found = statements.get(db);
  if (found === undefined) statements.set(db, found = new Statements(db));
  return found;
}

/** Whether `row` is still the file as `known` saw it (no other command read it since). */
export function sameRow(row: KnownFile | undefined, known: KnownFile): boolean {
  return row !== undefined && row.ino === known.ino && row.size === known.size &&
    row.mtime === known.mtime && row.indexed === known.indexed && row.deleted === known.deleted;
}
