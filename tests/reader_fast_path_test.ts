/**
 * The reader checks valid records by hand (src/record/_validate.ts); zod stays the source of
 * truth. These tests prove that `parseRecordLine` gives exactly zod's verdict, zod's output
 * (same values, same key order, unknown keys stripped) and zod's error message for every record
 * of generated sessions and for many mutations of every record type.
 */
import { SessionRecordSchema } from "../src/record/schemas.ts";
import { handChecksMatchSchemas, validateRecord } from "../src/record/_validate.ts";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { firstIssue, parseRecordLine } from "../src/record/mod.ts";
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
  if (entry.problem.kind === "invalid_record") {
    // The same words as the interpreted schema's first issue.
    const type = (JSON.parse(text) as { type: string }).type;
    assertStrictEquals(
      entry.problem.message,
      `s.jsonl:1: invalid ${type} record: ${firstIssue(zod.error)}`,
    );
  }
  return "invalid";
}

/** One valid record of every type and payload type: the mutations start from these. */
const BASE: [type: string, payload: Record<string, unknown>][] = [
  ["response_item", { type: "message", role: "user", content: "hello" }],
  ["response_item", { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" }],
  ["response_item", {
    type: "function_call_output",
    callId: "c1",
    toolName: "read_file",
    output: "text",
    isError: false,
  }],
  ["response_item", { type: "compaction_summary", content: "so far" }],
  ["response_item", {
    type: "compaction_checkpoint",
    version: 1,
    reason: "threshold",
    tokensBefore: 1200,
    removedItemCount: 3,
    keptItemCount: 2,
    recordsBefore: 7,
    replacementHistory: [
      { type: "compaction_summary", content: "so far" },
      { type: "message", role: "user", content: "hi" },
    ],
  }],
  ["session_meta", {
    version: 1,
    id: "019bc269-b9fa-745e-a416-4d63b0e4e992",
    createdAt: "2026-01-01T00:00:00.000Z",
    cwd: "/w",
    modelProvider: "openai",
    model: "gpt-5",
    wireApi: "chat",
    policy: { approval: "auto" },
    importedFrom: { format: "codex", path: "/h/.codex/s.jsonl", sessionId: null },
    forkedFrom: { sessionId: "019bc269-b9fa-745e-a416-4d63b0e4e990", turn: 2 },
  }],
  ["turn_context", {
    runId: "r1",
    model: "gpt-5",
    wireApi: "responses",
    policy: { approval: "ask-all" },
    resumed: false,
  }],
  ["run_finished", {
    runId: "r1",
    outcome: "failed",
    error: "boom",
    rounds: 2,
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
  }],
];

const ODD_VALUES: unknown[] = [
  undefined,
  null,
  "",
  "x",
  "system",
  "assistant",
  "chat",
  "auto",
  "succeeded",
  "codex",
  0,
  -1,
  1.5,
  1e20,
  true,
  false,
  [],
  ["x"],
  [{ type: "message", role: "user", content: "x" }],
  [{ type: "function_call_output", callId: "c", toolName: "t", output: "", isError: true }],
  [{ type: "compaction_checkpoint" }],
  {},
  { a: 1 },
  { approval: "auto" },
  { sessionId: "s", turn: null },
  { format: "claude-code", path: "/p", sessionId: "s" },
  { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
];

/** `value` with `key` set to `odd` (removed when `odd` is undefined). */
function mutated(value: Record<string, unknown>, key: string, odd: unknown) {
  const changed: Record<string, unknown> = { ...value };
  if (odd === undefined) delete changed[key];
  else changed[key] = odd;
  return changed;
}

/** Every payload of BASE with every key (and a nested object's keys) set to every odd value. */
function* mutations(): Generator<string> {
  const record = (type: string, payload: unknown) =>
    JSON.stringify({ timestamp: "2026-01-01T00:00:00.000Z", type, payload });
  for (const [type, payload] of BASE) {
    const keys = [...Object.keys(payload), "synthesized", "recordsBefore", "extra", "type"];
    for (const key of keys) {
      for (const odd of ODD_VALUES) yield record(type, mutated(payload, key, odd));
      const nested = payload[key];
      if (typeof nested !== "object" || nested === null) continue;
      // One level down: a policy, a usage, a fork, an item of the replacement history.
      const inner = (Array.isArray(nested) ? nested[0] : nested) as Record<string, unknown>;
      for (const innerKey of [...Object.keys(inner), "synthesized", "extra"]) {
        for (const odd of ODD_VALUES) {
          const changed = mutated(inner, innerKey, odd);
          yield record(type, { ...payload, [key]: Array.isArray(nested) ? [changed] : changed });
        }
      }
    }
    // Keys in another order, extra keys on the envelope and the payload.
    const reversed = Object.fromEntries(Object.entries(payload).reverse());
    yield JSON.stringify({ payload: reversed, type, timestamp: "t", note: 1 });
    yield record(type, { ...payload, synthesized: true });
    // The envelope itself broken.
    for (const odd of ODD_VALUES) {
      for (const key of ["timestamp", "payload", "type"]) {
        yield JSON.stringify(mutated({ timestamp: "t", type, payload }, key, odd));
      }
    }
  }
}

Deno.test("parseRecordLine() agrees with zod on every mutation of every record type", () => {
  let valid = 0;
  let invalid = 0;
  for (const text of mutations()) {
    if (assertAgreesWithZod(text) === "valid") valid++;
    else invalid++;
  }
  // Both verdicts occur, so the test can tell a reader that accepts everything from one that
  // rejects everything.
  assert(valid > 200 && invalid > 1000, `${valid} valid, ${invalid} invalid`);
});

Deno.test("parseRecordLine() checks valid records by hand: the schemas still have the keys it knows", () => {
  // If this fails, a schema changed and the hand-written checks do not know it: update
  // src/record/_validate.ts to the new shape (they would accept lines zod now rejects, or
  // build records of the old shape).
  assert(handChecksMatchSchemas());
});

Deno.test("parseRecordLine() returns zod's records for every line of generated sessions", async () => {
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
      // And none of them needed zod: the hand-written checks took every one.
      assert(validateRecord(JSON.parse(line.text)) !== undefined, line.text);
      lines++;
    }
    assertStrictEquals(lines, session.records);
  }
});
