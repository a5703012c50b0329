/**
 * Claude Code's usage as events made on asking (`compactUsage`: the inspector's read): the
 * same events, in the same order, as the objects a plain read gives, and the rest of the facts
 * the same; on responses with odd times, none, `<synthetic>` models, and on the corpus.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { readForeignSession } from "../src/formats/mod.ts";

async function factsOf(path: string, compactUsage: boolean) {
  const session = readForeignSession(path, "claude-code", { compactUsage });
  for await (const _ of session.batches());
  return session.facts;
}

async function assertSameUsage(path: string): Promise<number> {
  const objects = await factsOf(path, false);
  const columns = await factsOf(path, true);
  assertEquals(objects.usageColumns, undefined, path);
  assertEquals(columns.usage, undefined, path);
  const events = columns.usageColumns!;
  assertEquals(events.toArray(), objects.usage, path);
  assertEquals(events.length, objects.usage!.length, path);
  for (let i = 0; i < events.length; i++) assertEquals(events.at(i), objects.usage![i], path);
  assertEquals(events.at(-1), objects.usage!.at(-1), path);
  assertEquals(events.at(events.length), undefined, path);
  const { usage: _, ...rest } = objects;
  const { usageColumns: __, ...compactRest } = columns;
  assertEquals(compactRest, rest, path);
  return events.length;
}

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** An assistant line of response `id` at `time` (none when undefined), answered by `model`. */
function answer(n: number, id: string, time: string | undefined, model: string): string {
  return JSON.stringify({
    parentUuid: uuid(n - 1),
    type: "assistant",
    requestId: `req_${id}`,
    message: {
      model,
      id,
      role: "assistant",
      content: [{ type: "text", text: `answer ${n}` }],
      usage: { input_tokens: n, output_tokens: 2 * n, cache_read_input_tokens: 3 },
    },
    uuid: uuid(n),
    ...(time === undefined ? {} : { timestamp: time }),
  });
}

Deno.test("readForeignSession(claude-code) with compactUsage gives the same events as objects", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "5b1e0c4e-0000-4000-8000-000000000001.jsonl");
  const prompt = JSON.stringify({
    parentUuid: null,
    type: "user",
    message: { role: "user", content: "Go" },
    uuid: uuid(1),
    timestamp: "2026-01-23T17:00:00.000Z",
  });
  await Deno.writeTextFile(
    path,
    [
      prompt,
      answer(2, "msg_1", "2026-01-23T17:00:01.000Z", "claude-opus-4-5-20251101"),
      answer(3, "msg_1", "2026-01-23T17:00:02.000Z", "claude-opus-4-5-20251101"),
      answer(4, "msg_2", undefined, "claude-opus-4-5-20251101"),
      answer(5, "msg_3", "2026-01-23T17:00:03Z", "<synthetic>"),
      answer(6, "msg_4", "2026-02-30T17:00:04.000Z", "claude-sonnet-4-5"),
      answer(7, "msg_5", "2026-01-23T17:00:05.123Z", "claude-sonnet-4-5"),
    ].join("\n") + "\n",
  );
  // msg_2 has no time: no event (as before); the odd and impossible times are kept as written.
  assertEquals(await assertSameUsage(path), 4);
  const events = (await factsOf(path, true)).usageColumns!.toArray();
  assertEquals(events.map((event) => [event.time, event.model, event.output, event.line]), [
    ["2026-01-23T17:00:01.000Z", "claude-opus-4-5-20251101", 6, 2],
    ["2026-01-23T17:00:03Z", null, 10, 5],
    ["2026-02-30T17:00:04.000Z", "claude-sonnet-4-5", 12, 6],
    ["2026-01-23T17:00:05.123Z", "claude-sonnet-4-5", 14, 7],
  ]);
});

Deno.test({
  name: "readForeignSession(claude-code) with compactUsage gives the corpus's events as objects",
  ignore: CORPUS_MISSING !== undefined,
  async fn() {
    let events = 0;
    for await (const path of corpusFiles(join(CORPUS, "claude"))) {
      events += await assertSameUsage(path);
    }
    // The corpus has responses: the comparison above compared some.
    assertEquals(events > 0, true);
  },
});
