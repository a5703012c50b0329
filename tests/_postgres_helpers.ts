/**
 * Fixtures of the PostgreSQL store tests: one throwaway cluster per test file (stopped and
 * removed when the file's tests end) and a fresh database per test.
 *
 * @module
 */
import { POSTGRES_SKIPPED, startTestPostgres, type TestPostgres } from "../testing/postgres.ts";
import { PostgresStore } from "../src/store/postgres/mod.ts";

/**
 * Starts the test file's cluster, or says clearly that its PostgreSQL tests are skipped: a
 * line on stdout and an ignored test of that name, which `deno test` lists even when quiet.
 * The cluster stops when the file's process unloads (testing/postgres.ts sees to that).
 */
export async function fileCluster(file: string): Promise<TestPostgres | undefined> {
  const pg = await startTestPostgres();
  if (pg === undefined) {
    console.log(`${file}: ${POSTGRES_SKIPPED}`);
    Deno.test({ name: `${file}: ${POSTGRES_SKIPPED}`, ignore: true, fn() {} });
  }
  return pg;
}

/** A store on a new, empty database of `pg` (closed when disposed), and that database's URL. */
export async function freshStore(pg: TestPostgres): Promise<PostgresStore & { url: string }> {
  const url = await pg.createDatabase();
  return Object.assign(new PostgresStore(url), { url });
}
