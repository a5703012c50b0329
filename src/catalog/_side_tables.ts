/**
 * Tables kept in the catalog's database beside the catalog's own (usage's, the doctor's),
 * stamped with what kept them (their version, a price table): tables of another stamp are made
 * again, empty. The stamp is the first column of the one row of its own table.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { inWriteTransaction } from "./_transaction.ts";

/** Tables kept beside the catalog's. */
export interface SideTables {
  /** The table whose one row holds the stamp, in its first column. */
  stampTable: string;
  /** What keeps them now: tables of another stamp are made again. */
  stamp: string;
  /** Their `CREATE TABLE` (and index) statements, the stamp's table among them. */
  create: string;
}

/** Whether the database's tables were kept with `stamp` (none, or of another shape: not). */
export function sideTablesCurrent(db: DatabaseSync, stampTable: string, stamp: string): boolean {
  try {
    const row = db.prepare(`SELECT * FROM ${stampTable}`).get();
    return row !== undefined && String(Object.values(row)[0]) === stamp;
  } catch {
    return false;
  }
}

/**
 * Makes `tables`, again (every table their statements create dropped first) when they were
 * kept with another stamp. A database whose tables are current is only read: no write lock.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { keepSideTables, sideTablesCurrent } from "./_side_tables.ts";
 * const db = new DatabaseSync(":memory:");
 * const create = "CREATE TABLE t_version (v TEXT); CREATE TABLE t_rows (x INTEGER);";
 * keepSideTables(db, { stampTable: "t_version", stamp: "1", create });
 * db.exec("INSERT INTO t_rows VALUES (7)");
 * keepSideTables(db, { stampTable: "t_version", stamp: "1", create });
 * assert.equal(db.prepare("SELECT count(*) AS n FROM t_rows").get()!.n, 1);
 * keepSideTables(db, { stampTable: "t_version", stamp: "2", create });
 * assert.equal(db.prepare("SELECT count(*) AS n FROM t_rows").get()!.n, 0);
 * assert.equal(sideTablesCurrent(db, "t_version", "2"), true);
 * ```
 */
export function keepSideTables(db: DatabaseSync, tables: SideTables): void {
  const { stampTable, stamp, create } = tables;
  if (sideTablesCurrent(db, stampTable, stamp)) return;
  inWriteTransaction(db, () => {
    if (sideTablesCurrent(db, stampTable, stamp)) return;
    for (const [, name] of create.matchAll(/CREATE TABLE (\w+)/g)) {
      db.exec(`DROP TABLE IF EXISTS ${name}`);
    }
    db.exec(create);
    db.prepare(`INSERT INTO ${stampTable} VALUES (?)`).run(stamp);
  });
}
