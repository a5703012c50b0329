/**
 * A quick timing of the PostgreSQL store beside the file store at 10,000 records, on a
 * throwaway cluster: appends (one record per call, 100 per call, all in one call), a full read,
 * a read from a checkpoint near the end. Not part of `deno task bench`; run it by hand:
 * `deno run -A bench/postgres_quick.ts [--records N]`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { POSTGRES_SKIPPED, startTestPostgres } from "../testing/postgres.ts";
import { newId } from "../src/record/_ids.ts";
import { readRecords } from "../src/record/_parse.ts";
import {
  FORMAT_VERSION,
  responseItemRecord,
  type SessionMeta,
  type SessionRecord,
} from "../src/record/_schemas.ts";
import { createSession } from "../src/store/_store.ts";
import { PostgresStore, type StoreWriter } from "../src/store/postgres/mod.ts";

const { values } = parseArgs({ options: { records: { type: "string", default: "10000" } } });
const COUNT = Number(values.records);

function meta(): SessionMeta {
  const id = newId();
  return {
    version: FORMAT_VERSION,
    id,
    createdAt: new Date().toISOString(),
    cwd: "/work",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
  };
}

/** Records of about 300 bytes each, every tenth a 2 KB tool output. */
function records(n: number): SessionRecord[] {
  return Array.from({ length: n }, (_, i) =>
    responseItemRecord(
      i % 10 === 9
        ? {
          type: "function_call_output",
          callId: `c${i}`,
          toolName: "read_file",
          output: "line of a file\n".repeat(140),
          isError: false,
        }
        : { type: "message", role: "assistant", content: `answer ${i} `.repeat(20) },
    ));
}

function checkpointAt(recordsBefore: number): SessionRecord {
  return responseItemRecord({
    type: "compaction_checkpoint",
    version: 1,
    reason: "bench",
    tokensBefore: 100_000,
    removedItemCount: recordsBefore,
    keptItemCount: 1,
    recordsBefore,
    replacementHistory: [{ type: "compaction_summary", content: "summary" }],
  });
}

async function time(label: string, work: () => Promise<unknown>): Promise<[string, number]> {
  const start = performance.now();
  await work();
  return [label, Math.round(performance.now() - start)];
}

async function appendAll(writer: StoreWriter, all: SessionRecord[], per: number): Promise<void> {
  for (let i = 0; i < all.length; i += per) await writer.append(all.slice(i, i + per));
}

const clusterStart = performance.now();
const cluster = await startTestPostgres();
if (cluster === undefined) {
  console.log(`postgres_quick.ts: ${POSTGRES_SKIPPED}`);
  Deno.exit(0);
}
const rows: [string, number][] = [["cluster start (initdb + server + database)", 0]];
rows[0]![1] = Math.round(performance.now() - clusterStart);
const all = records(COUNT);
const tail = 100;
const withCheckpoint = [...all.slice(0, COUNT - tail), checkpointAt(COUNT - tail + 1)];
withCheckpoint.push(...all.slice(COUNT - tail + 1));
const store = new PostgresStore(cluster.url);
const dir = await Deno.makeTempDir({ prefix: "turnlog-bench-" });
try {
  await store.list(); // tables made, pool warm
  for (const per of [1, 100, COUNT]) {
    const { writer } = await store.create(meta());
    rows.push(
      await time(
        `postgres append ${COUNT} records, ${per} per call`,
        () => appendAll(writer, all, per),
      ),
    );
    await writer.close();
    const file = await createSession(dir, { ...meta(), id: newId() });
    rows.push(
      await time(
        `file     append ${COUNT} records, ${per} per call`,
        () => appendAll(file.writer, all, per),
      ),
    );
    file.writer.close();
  }
  const { location, writer } = await store.create(meta());
  await appendAll(writer, withCheckpoint, 500);
  await writer.close();
  const file = await createSession(dir, { ...meta(), id: newId() });
  await appendAll(file.writer, withCheckpoint, 500);
  file.writer.close();
  rows.push(
    await time(`postgres read all ${COUNT + 1} records`, async () => {
      for await (const _ of store.read(location));
    }),
  );
  rows.push(
    await time(`file     read all ${COUNT + 1} records`, async () => {
      for await (const _ of readRecords(file.location.path));
    }),
  );
  const before = store.recordRowsRead;
  rows.push(
    await time(`postgres last checkpoint + read the ${tail} records from it`, async () => {
      const found = await store.lastCheckpoint(location);
      for await (const _ of store.read(location, found!.position));
    }),
  );
  rows.push([`  (record rows fetched for that: ${store.recordRowsRead - before})`, NaN]);
} finally {
  await store.close();
  await cluster.stop();
  await Deno.remove(dir, { recursive: true });
}
for (const [label, ms] of rows) {
  console.log(`${label.padEnd(62)} ${Number.isNaN(ms) ? "" : `${ms} ms`}`);
}
