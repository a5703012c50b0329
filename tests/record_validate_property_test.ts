/**
 * The hand-written record checks (src/record/_validate.ts, kept for speed) held equal to the
 * zod schemas the record types are inferred from: for random records of every type, valid and
 * broken, the hand checks accept exactly what `SessionRecordSchema` accepts and build the very
 * record zod returns (same values, same key order).
 */
import fc from "fast-check";
import { SessionRecordSchema } from "../src/record/schemas.ts";
import { validateRecord } from "../src/record/_validate.ts";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";

type Json = Record<string, unknown>;

// Values near every bound the schemas draw: empty strings, 0, negatives, fractions, unsafe
// integers, and the enums' own words (also in the wrong place).
const text = fc.oneof(
  { arbitrary: fc.string({ minLength: 1, maxLength: 6 }), weight: 15 },
  { arbitrary: fc.constant(""), weight: 1 },
);
const word = fc.constantFrom("x", "auto", "chat", "user", "failed", "codex", "claude-code");
const count = fc.oneof(fc.nat(1000), fc.constantFrom(0, 1, 2 ** 53 - 1));
const positive = fc.integer({ min: 1, max: 1000 });
const odd = fc.oneof(
  fc.constantFrom<unknown>(null, "", "X", -1, 0, 1.5, 2 ** 53, NaN, true, [], {}, { a: 1 }),
  word,
  fc.integer({ min: -5, max: 5 }),
);

const policy = fc.record({ approval: fc.constantFrom("auto", "ask-changes", "ask-all") });
const wireApi = fc.constantFrom("responses", "chat");
const message = fc.record({
  type: fc.constant("message"),
  role: fc.constantFrom("system", "user", "assistant"),
  content: text,
});
const call = fc.record({
  type: fc.constant("function_call"),
  callId: text,
  name: text,
  arguments: text,
});
const output = fc.record({
  type: fc.constant("function_call_output"),
  callId: text,
  toolName: text,
  output: text,
  isError: fc.boolean(),
  synthesized: fc.constant(true),
}, { requiredKeys: ["type", "callId", "toolName", "output", "isError"] });
const summary = fc.record({ type: fc.constant("compaction_summary"), content: text });
const item = fc.oneof(message, call, output, summary);
const checkpoint = fc.record({
  type: fc.constant("compaction_checkpoint"),
  version: positive,
  reason: text,
  tokensBefore: count,
  removedItemCount: count,
  keptItemCount: count,
  recordsBefore: count,
  replacementHistory: fc.array(item, { maxLength: 3 }),
}, {
  requiredKeys: [
    "type",
    "version",
    "reason",
    "tokensBefore",
    "removedItemCount",
    "keptItemCount",
    "replacementHistory",
  ],
});
const meta = fc.record({
  version: positive,
  id: text,
  createdAt: text,
  cwd: text,
  modelProvider: text,
  model: text,
  wireApi,
  policy,
  importedFrom: fc.record({
    format: fc.oneof(word, text),
    path: text,
    sessionId: fc.option(text, { nil: null }),
  }),
  forkedFrom: fc.record({ sessionId: text, turn: fc.option(positive, { nil: null }) }),
}, {
  requiredKeys: [
    "version",
    "id",
    "createdAt",
    "cwd",
    "modelProvider",
    "model",
    "wireApi",
    "policy",
  ],
});
const context = fc.record({
  runId: text,
  model: text,
  wireApi,
  policy,
  resumed: fc.boolean(),
});
const finished = fc.record({
  runId: text,
  outcome: fc.constantFrom("succeeded", "failed", "cancelled"),
  error: text,
  rounds: count,
  usage: fc.record({ inputTokens: count, outputTokens: count, totalTokens: count }),
}, { requiredKeys: ["runId", "outcome", "rounds"] });

/** A record of every type, most of them valid (the strings may be empty, which some refuse). */
const record: fc.Arbitrary<Json> = fc.oneof(
  fc.tuple(fc.constant("response_item"), fc.oneof(item, checkpoint)),
  fc.tuple(fc.constant("session_meta"), meta),
  fc.tuple(fc.constant("turn_context"), context),
  fc.tuple(fc.constant("run_finished"), finished),
).chain(([type, payload]) =>
  fc.record({ timestamp: fc.oneof(fc.constant("2026-01-01T00:00:00.000Z"), text) }).map((
    { timestamp },
  ) => ({ timestamp, type, payload }))
);

/** The places of a value: every key of every object in it, by path. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== "object" || value === null) return [];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((key) => [
    [...at, key],
    ...paths((value as Record<string | number, unknown>)[key], [...at, key]),
  ]);
}

/** `value` with the thing at `path` replaced by `by` (removed when `by` is undefined). */
function changed(value: unknown, path: (string | number)[], by: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (by === undefined && !Array.isArray(parent)) delete parent[last];
  else parent[last] = by;
  return copy;
}

/** A record, then a few of its places changed to odd values, removed, or given a new key. */
const broken: fc.Arbitrary<unknown> = record.chain((valid) =>
  fc.array(fc.tuple(fc.nat(), fc.oneof(odd, fc.constant(undefined))), {
    minLength: 1,
    maxLength: 3,
  }).map((changes) =>
    changes.reduce<unknown>((value, [pick, by]) => {
      const places = paths(value);
      return places.length === 0 ? value : changed(value, places[pick % places.length]!, by);
    }, valid)
  )
);

/** The hand checks' verdict and record against zod's, for one value. */
function agrees(value: unknown, verdicts: { valid: number; invalid: number }): void {
  const zod = SessionRecordSchema.safeParse(value);
  const hand = typeof value === "object" && value !== null && !Array.isArray(value)
    ? validateRecord(value as Json)
    : undefined;
  if (!zod.success) {
    assertStrictEquals(
      hand,
      undefined,
      `zod rejects, the hand checks accept ${JSON.stringify(value)}`,
    );
    verdicts.invalid++;
    return;
  }
  assert(hand !== undefined, `zod accepts, the hand checks do not: ${JSON.stringify(value)}`);
  assertEquals(hand, zod.data);
  assertStrictEquals(JSON.stringify(hand), JSON.stringify(zod.data));
  verdicts.valid++;
}

Deno.test("validateRecord() accepts exactly what SessionRecordSchema accepts, random records of every type", () => {
  const verdicts = { valid: 0, invalid: 0 };
  fc.assert(fc.property(record, (value) => agrees(value, verdicts)), { numRuns: 2000, seed: 35 });
  // Strings are sometimes empty where the schema wants one character: both verdicts occur.
  assert(verdicts.valid > 1000 && verdicts.invalid > 200, JSON.stringify(verdicts));
});

Deno.test("validateRecord() rejects exactly what SessionRecordSchema rejects, records with random damage", () => {
  const verdicts = { valid: 0, invalid: 0 };
  fc.assert(fc.property(broken, (value) => agrees(value, verdicts)), { numRuns: 3000, seed: 36 });
  // Most damage breaks the record; some (an optional key removed, an unknown one added) does not.
  assert(verdicts.valid > 60 && verdicts.invalid > 2000, JSON.stringify(verdicts));
});
