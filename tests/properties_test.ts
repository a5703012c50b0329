import fc from "fast-check";
import { normalizeHistory } from "../src/history/mod.ts";
import type { ResponseItem } from "../src/record/mod.ts";
import { checkPairing, historyPairingItems } from "../testing/pairing.ts";
import { checkSessionCase, sessionCaseArbitrary } from "../testing/properties/check.ts";
import { hostileText, rawControlPrinted } from "./_terminal_properties.ts";
import { appenderCaseArbitrary, appenderLosesLine } from "../testing/properties/appender.ts";
import { assertEquals } from "./_assert.ts";

/** Runs per property; `TURNLOG_PROPERTY_RUNS` raises it (the faults task runs many more). */
const RUNS = Number(Deno.env.get("TURNLOG_PROPERTY_RUNS") ?? 100);

const callIds = fc.constantFrom("a", "b", "c");
const itemArbitrary: fc.Arbitrary<ResponseItem> = fc.oneof(
  fc.record({
    type: fc.constant("message" as const),
    role: fc.constantFrom("user" as const, "assistant" as const),
    content: fc.constant("text"),
  }),
  fc.record({
    type: fc.constant("function_call" as const),
    callId: callIds,
    name: fc.constant("read_file"),
    arguments: fc.constant("{}"),
  }),
  fc.record({
    type: fc.constant("function_call_output" as const),
    callId: callIds,
    toolName: fc.constant("read_file"),
    output: fc.string({ maxLength: 3 }),
    isError: fc.boolean(),
  }),
);

Deno.test("normalizeHistory pairs every call under both APIs' rules, for any sequence of items", () => {
  fc.assert(
    fc.property(fc.array(itemArbitrary, { maxLength: 14 }), (items) => {
      const { history, synthesized, dropped } = normalizeHistory(items);
      assertEquals(checkPairing(historyPairingItems(history)), {
        unansweredCalls: [],
        strayOutputs: [],
      });
      // Nothing but outputs is added or removed, and the other items keep their order.
      const others = (list: readonly ResponseItem[]) =>
        list.filter((item) => item.type !== "function_call_output");
      assertEquals(others(history), others(items));
      const outputs = (list: readonly ResponseItem[]) =>
        list.filter((item) => item.type === "function_call_output").length;
      assertEquals(outputs(history), outputs(items) - dropped.length + synthesized.length);
    }),
    { numRuns: RUNS * 25 },
  );
});

Deno.test("inspect, resume and repair keep their promises on randomly damaged sessions", async () => {
  const root = await Deno.makeTempDir({ prefix: "turnlog-properties-" });
  try {
    await fc.assert(
      fc.asyncProperty(sessionCaseArbitrary, (c) => checkSessionCase(root, c)),
      { numRuns: RUNS },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

/** Asserts that `failure` finds nothing wrong, each run in a fresh temp folder. */
async function assertNoFailure<T>(
  arbitrary: fc.Arbitrary<T>,
  failure: (dir: string, value: T) => Promise<string | undefined>,
): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      const dir = await Deno.makeTempDir({ prefix: "turnlog-property-" });
      try {
        assertEquals(await failure(dir, value), undefined);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
    { numRuns: Math.max(10, RUNS / 4) },
  );
}

Deno.test("inspect's views and resume's printer never print a raw control character from a session", async () => {
  await assertNoFailure(hostileText, rawControlPrinted);
});

Deno.test("an appender during a repair of another tool's file never loses a line", async () => {
  await assertNoFailure(appenderCaseArbitrary, appenderLosesLine);
});
