/**
 * Files read by this thread and workers together (`src/io/_shared_reads.ts`), and the catalog's
 * first build read so (`src/catalog/_facts_pool.ts`): the same results as one thread, and a
 * worker that fails leaves its files to this thread.
 *
 * @module
 */
import { join } from "node:path";
import { Catalog } from "../src/catalog/mod.ts";
import { SharedReads } from "../src/io/_shared_reads.ts";
import { assert, assertEquals } from "./_assert.ts";
import { CORPUS_MISSING, corpusSources } from "./_corpus.ts";
import { tempDir } from "./_helpers.ts";
import { needing } from "./_needs.ts";

const SERVE = new URL("../src/io/_shared_reads.ts", import.meta.url).href;

/** A worker module in `dir` that serves `read` (a function's source over a number). */
async function workerOf(dir: string, read: string): Promise<URL> {
  const path = join(dir, `worker_${crypto.randomUUID()}.ts`);
  await Deno.writeTextFile(
    path,
    `import { serveReads } from ${JSON.stringify(SERVE)};\nserveReads(${read});\n`,
  );
  return new URL(`file://${path}`);
}

const square = (n: number) => Promise.resolve(`${n * n} here`);

Deno.test("SharedReads reads every job once, in a worker or in this thread, and answers each in the jobs' order", async () => {
  await using dir = await tempDir();
  const worker = await workerOf(dir.path, "(n: number) => Promise.resolve(`${n * n} worker`)");
  const jobs = Array.from({ length: 40 }, (_, n) => n);
  using reads = new SharedReads(jobs, { worker, name: "test", workers: 1, readHere: square });
  const got = [];
  for (const at of jobs.keys()) got.push(await reads.read(at));
  assertEquals(got.map((answer) => Number(answer.split(" ")[0])), jobs.map((n) => n * n));
  // The worker is sent the first two jobs at once; this thread reads ahead while it waits.
  const byWorker = got.filter((answer) => answer.endsWith("worker")).length;
  assertEquals(reads.counts, { worker: byWorker, here: jobs.length - byWorker });
  assert(reads.counts.worker >= 2 && reads.counts.here >= 1, JSON.stringify(reads.counts));
});

Deno.test("SharedReads leaves to this thread the jobs of a worker that cannot run", async () => {
  await using dir = await tempDir();
  const worker = await workerOf(dir.path, "(() => { throw new Error('no worker'); })()");
  const jobs = Array.from({ length: 10 }, (_, n) => n);
  using reads = new SharedReads(jobs, { worker, name: "test", workers: 2, readHere: square });
  for (const at of jobs.keys()) assertEquals(await reads.read(at), `${at * at} here`);
  assertEquals(reads.counts, { worker: 0, here: 10 });
});

Deno.test("SharedReads rejects a job its worker could not read with the worker's error, or reads it here again (again)", async () => {
  await using dir = await tempDir();
  const worker = await workerOf(
    dir.path,
    "(n: number) => n % 2 ? Promise.reject(new Error(`odd ${n}`)) : Promise.resolve(`${n * n} worker`)",
  );
  const jobs = [0, 1, 2, 3];
  // The first two jobs are the worker's: it is sent them as the reads start.
  using strict = new SharedReads(jobs, { worker, name: "test", workers: 1, readHere: square });
  assertEquals(await strict.read(0), "0 worker");
  assertEquals(((await strict.read(1).catch((error) => error)) as Error).message, "odd 1");
  using again = new SharedReads(jobs, {
    worker,
    name: "test",
    workers: 1,
    readHere: square,
    again: true,
  });
  assertEquals([await again.read(0), await again.read(1)], ["0 worker", "1 here"]);
});

Deno.test({
  ...needing(
    "Catalog.update() with workers keeps the corpus's files rows a read in this thread keeps, byte for byte",
    CORPUS_MISSING,
  ),
  async fn() {
    await using dir = await tempDir();
    const sources = await corpusSources(dir.path);
    using alone = Catalog.open({ path: join(dir.path, "alone.sqlite") });
    using pooled = Catalog.open({ path: join(dir.path, "pooled.sqlite") });
    const read = await alone.update(sources, { text: false, workers: 0 });
    assert(read.read > 10, JSON.stringify(read));
    assertEquals(await pooled.update(sources, { text: false, workers: 1 }), read);
    const rows = (catalog: Catalog) =>
      catalog.db.prepare("SELECT * FROM files ORDER BY path").all();
    assertEquals(rows(pooled), rows(alone));
  },
});
