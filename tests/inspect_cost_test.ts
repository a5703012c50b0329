/**
 * The cost added to a report's turns (`withCost`): on copies of the turns, or on the turns
 * themselves when the caller says no one else holds them.
 */
import { assert, assertEquals } from "./_assert.ts";
import { withCost } from "../src/inspect/_cost.ts";
import { emptyCounts } from "../src/inspect/_report.ts";
import type { SessionFacts, Turn } from "../src/inspect/mod.ts";
import { UsageColumns } from "../src/formats/mod.ts";

function turnAt(index: number, time: string): Turn {
  return {
    index,
    runId: `t${index}`,
    startLine: index * 10 + 1,
    endLine: index * 10 + 9,
    time,
    resumed: false,
    model: "gpt-5.5",
    wireApi: "responses",
    policy: { approval: "auto" },
    outcome: "succeeded",
    error: null,
    rounds: 1,
    usage: null,
    counts: emptyCounts(),
    ignored: {},
  };
}

async function costed(inPlace: boolean) {
  const turns = [turnAt(0, "2026-02-23T12:00:00.000Z"), turnAt(1, "2026-02-23T13:00:00.000Z")];
  const events = new UsageColumns();
  const tokens = { input: 1000, output: 100, cacheRead: 0, cacheCreation: 0, reasoningOutput: 0 };
  // One response in the second turn alone: the first keeps no cost.
  events.push({ time: "2026-02-23T13:00:05.000Z", model: "gpt-5.5", ...tokens });
  const report = { session: {} as SessionFacts, turns };
  const priced = await withCost(report, events, { provider: "openai", inPlace });
  return { turns, priced };
}

Deno.test("withCost() prices copies of the turns, leaving the caller's as they were", async () => {
  const { turns, priced } = await costed(false);
  assertEquals("cost" in turns[1]!, false);
  assert(priced.turns[1] !== turns[1]);
  assert(typeof priced.turns[1]!.cost === "number" && priced.turns[1]!.cost > 0);
  assertEquals(priced.turns[0], turns[0]);
  assertEquals("cost" in priced.turns[0]!, false);
});

Deno.test("withCost() with inPlace sets each cost on the caller's own turns", async () => {
  const { turns, priced } = await costed(true);
  const copied = await costed(false);
  assert(priced.turns === turns);
  assertEquals(turns, copied.priced.turns);
  assertEquals(JSON.stringify(turns), JSON.stringify(copied.priced.turns));
  assertEquals("cost" in turns[0]!, false);
  assertEquals(priced.session.cost, copied.priced.session.cost);
});
