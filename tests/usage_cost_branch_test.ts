/**
 * A turn's cost is the responses of the branch that turn shows: after a Claude Code rewind, the
 * responses the rewind left aside count in the session's cost (they were paid for, as ccusage
 * counts them), in no turn's, and the session says so (text, JSON, the session page).
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { inspectSession, renderReport } from "../src/inspect/mod.ts";
import { renderSessionPage } from "../src/html/mod.ts";
import { responseTurnFinder } from "../src/usage/mod.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

/** Four turns, then a prompt off the end of turn 2: turns 3 and 4 are left aside. */
async function rewound(dir: string): Promise<string> {
  const b = new ClaudeTranscriptBuilder();
  const ends = b.questions(4);
  b.user("Question 3 again", { parent: ends[1]! });
  b.assistant([{ text: "Another answer 3" }], { stop: "end_turn" });
  const path = join(dir, "7acd37a8-0000-4000-8000-000000000001.jsonl");
  await Deno.writeTextFile(path, b.lines.join("\n") + "\n");
  return path;
}

const nano = (usd: number | null | undefined) => Math.round((usd ?? NaN) * 1e9);

Deno.test("inspectSession() of a Claude Code rewind: each turn costs its own branch's responses; the session counts those left aside and says so", async () => {
  await using dir = await tempDir();
  const report = await inspectSession(await rewound(dir.path));
  // Every response of the builder has the same tokens and model: one response's price.
  const one = report.turns[0]!.cost!;
  assert(one > 0);
  assertEquals(report.turns.map((turn) => [turn.startLine, nano(turn.cost)]), [
    [1, nano(one)],
    [3, nano(one)],
    [9, nano(one)],
  ]);
  const cost = report.session.cost!;
  assertEquals(nano(cost.usd), nano(5 * one));
  assertEquals([cost.aside?.responses, nano(cost.aside?.usd)], [2, nano(2 * one)]);
  assertEquals(report.forks.map((fork) => [fork.kind, fork.line, fork.lastLine]), [
    ["rewind", 5, 8],
  ]);
  const text = renderReport(report, { color: false });
  assertEquals(
    text.split("\n").find((line) => line.trimStart().startsWith("cost ")),
    "  cost     $0.01 (the price table @pydantic/genai-prices 0.1.8); <$0.01 of it on 2 " +
      "responses of forks, not the conversation",
  );
  assert(
    renderSessionPage(report).includes(
      "&lt;$0.01 of it on 2 responses of forks, not the conversation",
    ),
  );
});

Deno.test("inspectSession() of a Claude Code transcript without a rewind has no responses aside", async () => {
  await using dir = await tempDir();
  const b = new ClaudeTranscriptBuilder();
  b.user("Question 1");
  b.assistant([{ text: "Answer 1" }], { stop: "end_turn" });
  const path = join(dir.path, "7acd37a8-0000-4000-8000-000000000002.jsonl");
  await Deno.writeTextFile(path, b.lines.join("\n") + "\n");
  const report = await inspectSession(path);
  assertEquals(report.session.cost?.aside, undefined);
  assertEquals(nano(report.turns[0]!.cost), nano(report.session.cost!.usd));
});

Deno.test("responseTurnFinder() goes by a response's line (a turn's, or a branch left aside), else by its time, in a few halvings a response", () => {
  const turns = [
    { time: "2026-01-01T00:00:00Z", startLine: 1, endLine: 4 },
    { time: "2026-01-01T00:01:00Z", startLine: 5, endLine: 6 },
    { time: "2026-01-01T00:03:00Z", startLine: 11, endLine: 14 },
  ];
  // A retry inside a rewound branch: the rewind's lines hold the retry's.
  const turnOf = responseTurnFinder(turns, [{ line: 7, lastLine: 10 }, { line: 8, lastLine: 8 }]);
  // On turn 2's lines, written after turn 3 started (a turn's lines decide, not the time).
  assertEquals(turnOf({ time: "2026-01-01T00:04:00Z", line: 6 }), 1);
  // On the branch a rewind left aside: later than turn 2 in time, yet no turn's.
  assertEquals(turnOf({ time: "2026-01-01T00:02:00Z", line: 8 }), -1);
  assertEquals(turnOf({ time: "2026-01-01T00:02:00Z", line: 9 }), -1);
  // Without a line (Codex, Gemini, turnlog's runs), or on no turn's line: by time.
  assertEquals(turnOf({ time: "2026-01-01T00:02:00Z" }), 1);
  assertEquals(turnOf({ time: "2026-01-01T00:03:30Z", line: 20 }), 2);
  assertEquals(turnOf({ time: "2025-12-31T00:00:00Z" }), 0);
  // 200,000 responses over 20,000 turns of 10 lines, every other turn's responses aside.
  const many = Array.from({ length: 20_000 }, (_, i) => ({
    time: new Date(i * 60_000).toISOString(),
    startLine: i * 20 + 1,
    endLine: i * 20 + 10,
  }));
  const aside = many.map((turn) => ({ line: turn.endLine + 1, lastLine: turn.endLine + 10 }));
  const started = performance.now();
  const find = responseTurnFinder(many, aside);
  let asideCount = 0;
  let last = -1;
  for (let i = 0; i < 200_000; i++) {
    const at = find({ time: "", line: Math.floor(i / 10) * 20 + 1 + (i % 10) * 2 });
    if (at < 0) asideCount++;
    else last = at;
  }
  assertEquals([asideCount, last], [100_000, 19_999]);
  assertEquals(performance.now() - started < 5_000, true);
});
