/**
 * Claude Code 2.1.332's transcripts: its new fields (`rowSource`, `sentAtMs` on prompts;
 * `thread`, `echoWireToolInputs` on `api-request`) read as before, a `/compact` whose next
 * lines hang off the summary (the preserved segment spliced in between, as Claude Code loads it), a resume's model swap (a
 * `system` line with `subtype: "informational"`, `level: "warning"` and `modelRestriction`)
 * shown where it happened (the notes of the text view, `--json` and the page) and not counted
 * as ignored, and its `cost-state` totals kept in the facts, not counted as ignored either.
 * The shapes are those the real 2.1.332 writes (its `cost-state`, its prompts); the swap's line
 * is made by hand, as the issue tells it.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { readText, resumedHistory } from "./_formats.ts";
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

/**
 * A session compacted by 2.1.332's `/compact` in `-p` mode, then resumed, as the real CLI wrote
 * it: the boundary preserves the segment `head`..`tail` (the answer before it, or its whole
 * last round), its anchor is the summary, and the lines after the compaction (the command's
 * caveat, the command, its output, the next prompt) hang off the summary, not the tail.
 */
function compactedByCommand(preserveRound: boolean): string {
  const b = new ClaudeTranscriptBuilder({ version: "2.1.332" });
  b.user("run `echo one`", { extra: { promptSource: "sdk" } });
  const [call] = b.assistant([{
    toolUse: { id: "toolu_01", name: "Bash", input: { command: "echo one" } },
  }]);
  b.toolResult("toolu_01", "one", { parent: call! });
  b.attachment();
  const [answer] = b.assistant([{ text: "Bash(echo one) returned: one" }], { stop: "end_turn" });
  b.compaction("Summary: the user ran echo one.", {
    logicalParent: answer!,
    trigger: "manual",
    preserved: { head: preserveRound ? call! : answer!, tail: answer! },
  });
  b.user("<local-command-caveat>Caveat: the command below ran locally.</local-command-caveat>", {
    extra: { isMeta: true },
  });
  b.user("<command-name>/compact</command-name>\n<command-message>compact</command-message>");
  b.user("<local-command-stdout>Compacted </local-command-stdout>");
  b.attachment();
  b.user("what did I ask before");
  b.assistant([{ text: "You asked me to run echo one." }], { stop: "end_turn" });
  return b.text();
}

Deno.test("readForeignSession(claude-code) reads a /compact of 2.1.332: the preserved answer is in the checkpoint though the next lines hang off the summary", async () => {
  await using dir = await tempDir();
  const read = await readText(dir.path, NAME, compactedByCommand(false), "claude-code");
  const checkpoint = read.lines.find((line) => line.includes(" checkpoint "));
  assertEquals(
    checkpoint,
    "7 checkpoint claude-code manual compaction (compact_boundary at line 6) removed=4 kept=1 " +
      "[compaction_summary:Summary: the user ran echo one. | assistant:Bash(echo one) returned: one]",
  );
  // What Claude Code's resume sends: the summary, the preserved answer, then what follows.
  assertEquals(resumedHistory(read.records).history, [
    { type: "compaction_summary", content: "Summary: the user ran echo one." },
    { type: "message", role: "assistant", content: "Bash(echo one) returned: one" },
    {
      type: "message",
      role: "user",
      content:
        "<local-command-caveat>Caveat: the command below ran locally.</local-command-caveat>",
    },
    {
      type: "message",
      role: "user",
      content: "<command-name>/compact</command-name>\n<command-message>compact</command-message>",
    },
    {
      type: "message",
      role: "user",
      content: "<local-command-stdout>Compacted </local-command-stdout>",
    },
    { type: "message", role: "user", content: "what did I ask before" },
    { type: "message", role: "assistant", content: "You asked me to run echo one." },
  ]);
  assertEquals(read.facts.forks, []);
});

Deno.test("readForeignSession(claude-code) reads a /compact of 2.1.332 that preserves a whole round: its call, result and answer, in order", async () => {
  await using dir = await tempDir();
  const read = await readText(dir.path, NAME, compactedByCommand(true), "claude-code");
  const history = resumedHistory(read.records).history;
  assertEquals(
    history.map((item) =>
      item.type === "message" ? `${item.role}: ${item.content.slice(0, 24)}` : item.type
    ),
    [
      "compaction_summary",
      "function_call",
      "function_call_output",
      "assistant: Bash(echo one) returned:",
      "user: <local-command-caveat>Ca",
      "user: <command-name>/compact</",
      "user: <local-command-stdout>Co",
      "user: what did I ask before",
      "assistant: You asked me to run echo",
    ],
  );
  assertEquals(read.facts.forks, []);
});
