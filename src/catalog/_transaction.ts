/**
 * One write transaction on the catalog's database, for the catalog and the tables kept beside it
 * (usage's, the doctor's).
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";

/**
 * Runs `work` in a write transaction (`BEGIN IMMEDIATE`: the write lock taken first, so two
 * commands wait for each other rather than fail halfway), committed when it returns and rolled
 * back when it throws.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { inWriteTransaction } from "./_transaction.ts";
 * const db = new DatabaseSync(":memory:");
 * db.exec("CREATE TABLE t (x INTEGER)");
 * assert.throws(() =>
 *   inWriteTransaction(db, () => {
 *     db.exec("INSERT INTO t VALUES (1)");
 *     throw new Error("no");
 *   })
 * );
 * inWriteTransaction(db, () => db.exec("INSERT INTO t VALUES (2)"));
 * assert.deepEqual(db.prepare("SELECT x FROM t").all().map((row) => row.x), [2]);
 * ```
 */
export function inWriteTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
