/**
 * The reader validates the hot record types by hand; zod stays the source of truth. These
 * tests prove that `parseRecordLine` gives exactly zod's verdict and zod's output (same
 * values, same key order, unknown keys stripped) for every record of generated sessions and
 * for many mutated ones.
 */
import {
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  MessageItemSchema,
  SessionRecordSchema,
} from "../src/record/schemas.ts";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { parseRecordLine } from "../src/record/mod.ts";
import { readLines } from "../src/io/mod.ts";
import { writeSession } from "../testing/generate/mod.ts";

/** parseRecordLine on `text` must agree with zod on the parsed JSON. */
function assertAgreesWithZod(text: string): "valid" | "invalid" {
  const entry = parseRecordLine("s.jsonl", {
    line: 1,
    text,
    start: 0,
    end: text.length + 1,
    terminated: true,
  });
  const zod = SessionRecordSchema.safeParse(JSON.parse(text));
  if (zod.success) {
    assert(entry.record !== undefined, `zod accepts, the reader did not: ${text}`);
    assertEquals(entry.record, zod.data);
    // Same key order, so a re-serialized history is byte for byte the same.
    assertStrictEquals(JSON.stringify(entry.record), JSON.stringify(zod.data));
    return "valid";
  }
  assert(entry.problem !== undefined, `zod rejects, the reader accepted: ${text}`);
  assert(
    entry.problem.kind === "invalid_record" || entry.problem.kind === "unknown_type",
    entry.problem.kind,
  );
  return "invalid";
}

const BASE = {
  message: { type: "message", role: "user", content: "hello" },
  function_call: { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" },
  function_call_output: {
    type: "function_call_output",
    callId: "c1",
    toolName: "read_file",
    output: "text",
    isError: false,
  },
} as const;

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "system",
  "assistant",
  0,
  -1,
  1.5,
  true,
  false,
  [],
  ["x"],
  {},
  { a: 1 },
];

Deno.test("the hand-written validation agrees with zod on every mutation of the hot records", () => {
  let valid = 0;
  let invalid = 0;
  const count = (verdict: "valid" | "invalid") => verdict === "valid" ? valid++ : invalid++;
  for (const payload of Object.values(BASE)) {
    const keys = [...Object.keys(payload), "synthesized", "extra", "type"];
    for (const key of keys) {
      for (const odd of ODD_VALUES) {
        const changed: Record<string, unknown> = { ...payload };
        if (odd === undefined) delete changed[key];
        else changed[key] = odd;
        count(assertAgreesWithZod(
          JSON.stringify({
            timestamp: "2026-01-01T00:00:00.000Z",
            type: "response_item",
            payload: changed,
          }),
        ));
      }
    }
    // Keys in another order, extra keys on the envelope and the payload, synthesized: true.
    const reversed = Object.fromEntries(Object.entries(payload).reverse());
    count(assertAgreesWithZod(
      JSON.stringify({ payload: reversed, type: "response_item", timestamp: "t", note: 1 }),
    ));
    count(assertAgreesWithZod(
      JSON.stringify({
        timestamp: "t",
        type: "response_item",
        payload: { ...payload, synthesized: true },
      }),
    ));
    // The envelope itself broken.
    for (const odd of ODD_VALUES) {
      for (const key of ["timestamp", "payload"]) {
        const envelope: Record<string, unknown> = {
          timestamp: "t",
          type: "response_item",
          payload,
        };
        if (odd === undefined) delete envelope[key];
        else envelope[key] = odd;
        count(assertAgreesWithZod(JSON.stringify(envelope)));
      }
    }
  }
  // Every record type still goes through zod (the others are not on the hot path).
  count(assertAgreesWithZod(
    '{"timestamp":"t","type":"run_finished","payload":{"runId":"r","outcome":"succeeded","rounds":1,"x":2}}',
  ));
  count(assertAgreesWithZod(
    '{"timestamp":"t","type":"response_item","payload":{"type":"compaction_summary","content":"s"}}',
  ));
  count(
    assertAgreesWithZod('{"timestamp":"t","type":"response_item","payload":{"type":"reasoning"}}'),
  );
  count(assertAgreesWithZod('{"timestamp":"t","type":"response_item","payload":[]}'));
  // Both verdicts occur, so the test can tell a reader that accepts everything from one that
  // rejects everything.
  assert(valid > 20 && invalid > 100, `${valid} valid, ${invalid} invalid`);
});

Deno.test("the schemas still have the keys the hand-written validation builds", () => {
  // If this fails, a schema changed: the reader's fast path has switched itself off (zod
  // does all the work, correctly but slower). Update validateHotRecord in src/reader.ts to
  // the new shape, then these lists.
  assertEquals(Object.keys(MessageItemSchema.shape), ["type", "role", "content"]);
  assertEquals(MessageItemSchema.shape.role.options, ["system", "user", "assistant"]);
  assertEquals(Object.keys(FunctionCallItemSchema.shape), ["type", "callId", "name", "arguments"]);
  assertEquals(Object.keys(FunctionCallOutputItemSchema.shape), [
    "type",
    "callId",
    "toolName",
    "output",
    "isError",
    "synthesized",
  ]);
  for (const option of SessionRecordSchema.options) {
    assertEquals(Object.keys(option.shape), ["timestamp", "type", "payload"]);
  }
});

Deno.test("the reader returns zod's records for every line of generated sessions", async () => {
  await using dir = await tempDir();
  for (const checkpoints of [false, true]) {
    const session = await writeSession(dir.path, {
      size: 256 * 1024,
      seed: 7,
      checkpoints: checkpoints ? "spread" : 0,
    });
    let lines = 0;
    for await (const line of readLines(session.path)) {
      assertStrictEquals(assertAgreesWithZod(line.text), "valid");
      lines++;
    }
    assertStrictEquals(lines, session.records);
  }
});
