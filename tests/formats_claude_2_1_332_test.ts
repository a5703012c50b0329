/**
 * Claude Code 2.1.332's transcripts: its new fields (`rowSource`, `sentAtMs` on prompts;
 * `thread`, `echoWireToolInputs` on `api-request`) read as before, a resume's model swap (a
 * `system` line with `subtype: "informational"`, `level: "warning"` and `modelRestriction`)
 * shown where it happened (the notes of the text view, `--json` and the page) and not counted
 * as ignored, and its `cost-state` totals kept in the facts, not counted as ignored either.
 * The shapes are those the real 2.1.332 writes (its `cost-state`, its prompts); the swap's line
 * is made by hand, as the issue tells it.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { readText } from "./_formats.ts";
import { validateSessionFile } from "../src/formats/mod.ts";
import { claudeCodeFactsOf } from "../src/formats/claude_code/mod.ts";
import { inspectSession, renderReport } from "../src/inspect/mod.ts";
import { renderSessionPage } from "../src/html/mod.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

const NAME = `${CLAUDE_SESSION_ID}.jsonl`;
const SWAP_TEXT = "claude-opus-3 is retired: this session continues on claude-opus-4-5-20251101";

/** A session of 2.1.332 resumed after its model was retired. */
function resumedAfterRetirement(): string {
  const b = new ClaudeTranscriptBuilder({ version: "2.1.332", model: "claude-opus-3" });
  const prompt = { rowSource: "local", sentAtMs: 1796502440535, promptSource: "sdk" };
  const first = b.user("say one", { extra: prompt });
  const one = b.assistant([{ text: "One." }], { parent: first, stop: "end_turn" });
  b.meta({
    type: "api-request",
    sessionId: CLAUDE_SESSION_ID,
    id: "8531f8f7-70f2-4ae1-9e62-74b493d4c896",
    version: "2.1.332",
    thread: "main",
    echoWireToolInputs: true,
    params: { model: "claude-opus-3" },
  });
  const swap = b.system({
    subtype: "informational",
    level: "warning",
    content: SWAP_TEXT,
    modelRestriction: {
      requestedModel: "claude-opus-3",
      effectiveModel: "claude-opus-4-5-20251101",
    },
  }, { parent: one.at(-1)! });
  b.set({ model: "claude-opus-4-5-20251101" });
  const second = b.user("say two", { parent: swap, extra: prompt });
  b.assistant([{ text: "Two." }], { parent: second, stop: "end_turn" });
  b.meta({
    type: "cost-state",
    sessionId: CLAUDE_SESSION_ID,
    totalCostUSD: 0.097292,
    totalAPIDuration: 1797,
    modelUsage: {
      "claude-opus-3": { inputTokens: 24218, outputTokens: 21, costUSD: 0.05 },
      "claude-opus-4-5-20251101": { inputTokens: 100, outputTokens: 5, costUSD: 0.047292 },
    },
    hasUnknownModelCost: false,
  });
  return b.text();
}

const SWAP_NOTE =
  `line 4: model swap: claude-opus-3 asked for, claude-opus-4-5-20251101 used (${SWAP_TEXT})`;

Deno.test("readForeignSession(claude-code) reads 2.1.332: the model swap and cost-state in the facts, neither counted as ignored", async () => {
  await using dir = await tempDir();
  const read = await readText(dir.path, NAME, resumedAfterRetirement(), "claude-code");
  assertEquals(
    read.lines.filter((line) => / (user|assistant): /.test(line)),
    ["1 user: say one", "2 assistant: One.", "5 user: say two", "6 assistant: Two."],
  );
  assertEquals(read.facts.ignored, { "api-request": 1 });
  assertEquals(read.facts.models, ["claude-opus-3", "claude-opus-4-5-20251101"]);
  const claude = claudeCodeFactsOf(read.facts)!;
  assertEquals(claude.modelSwaps, [{
    line: 4,
    requestedModel: "claude-opus-3",
    effectiveModel: "claude-opus-4-5-20251101",
    level: "warning",
    content: SWAP_TEXT,
  }]);
  assertEquals(claude.cost, {
    line: 7,
    totalCostUSD: 0.097292,
    models: { "claude-opus-3": 0.05, "claude-opus-4-5-20251101": 0.047292 },
    unknownModelCost: false,
  });
  assertEquals((await validateSessionFile(read.path, "claude-code")).findings, []);
});

Deno.test("inspectSession() shows a Claude Code model swap where it happened: text view, --json and the page", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, NAME);
  await Deno.writeTextFile(path, resumedAfterRetirement());
  const report = await inspectSession(path);
  assertEquals(report.healthy, true);
  assertEquals(report.session.notes.includes(SWAP_NOTE), true, "--json: the session's notes");
  const text = renderReport(report, { color: false });
  assertEquals(text.includes(SWAP_NOTE), true, "the text view");
  const page = renderSessionPage(report);
  assertEquals(page.includes(SWAP_NOTE), true, "the page");
});
