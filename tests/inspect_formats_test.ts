/**
 * The inspector on other tools' files: Codex rollouts and Claude Code transcripts written by
 * the project's own generators, through the report, its text view and the HTML page; and
 * every format of the registry on the adapter contract's fixture.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { attributes, parsePage, texts } from "./_html_helpers.ts";
import { renderSessionPage } from "../src/html/mod.ts";
import {
  type InspectReport,
  inspectSession,
  renderReport,
  type TurnEntry,
} from "../src/inspect/mod.ts";
import { ForeignRepairError, planFileRepair, planRepair } from "../src/repair/mod.ts";
import { InspectReportSchema } from "../src/inspect/schemas.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { codexOrphans, codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { writeClaudeHome } from "../testing/formats/homes.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { ADAPTERS } from "../src/formats/mod.ts";

async function inspectText(dir: string, name: string, text: string): Promise<InspectReport> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, text);
  const report = await inspectSession(path, { entries: true });
  InspectReportSchema.parse(JSON.parse(JSON.stringify(report)));
  return report;
}

/** A turn's entries in one short line each. */
function describe(entries: readonly TurnEntry[] | undefined): string[] {
  return (entries ?? []).map((e) => {
    switch (e.kind) {
      case "message":
        return `${e.line} ${e.role}: ${e.text}`;
      case "function_call":
        return `${e.line} call ${e.callId} -> ${e.output?.line ?? (e.orphan ? "orphan" : "-")}`;
      case "function_call_output":
        return `${e.line} output ${e.callId}${e.isError ? " error" : ""}`;
      case "ignored":
        return `${e.line}-${e.lastLine} ignored ${JSON.stringify(e.kinds)}`;
      default:
        return `${e.line} ${e.kind}`;
    }
  });
}

Deno.test("inspectSession() reads a Codex rollout turn by turn, with its header facts and what it cannot show", async () => {
  await using dir = await tempDir();
  const report = await inspectText(dir.path, "rollout.jsonl", codexTurnIds());
  const { session } = report;
  assertEquals(
    [session.format, session.state, session.toolVersion, session.approvalSource, session.models],
    ["codex", "records", "0.135.0", "never", ["gpt-5.5"]],
  );
  assertEquals([session.firstPrompt, session.gitBranch, session.cwd], [
    "List the files",
    "main",
    "/work/project",
  ]);
  assertEquals([session.lines, session.records, session.tokens?.total], [30, 17, 3490]);
  assertEquals(session.notes, ["turns from task_started and task_complete events"]);
  assertEquals(report.turns.map((t) => [t.runId, t.counts.function_call, t.ignored]), [
    ["t1", 1, { image: 1, reasoning: 1 }],
    ["t2", 2, { web_search_call: 1 }],
  ]);
  assertEquals(report.totals.ignored, { image: 1, reasoning: 1, web_search_call: 1 });
  assertEquals(report.totals.counts.total, 20);
  assertEquals(
    describe(report.turns[1]!.entries),
    [
      "18 turn_context",
      "18 user: Read b.txt and search the web",
      '21-21 ignored {"web_search_call":1}',
      "22 call c2 -> 23",
      "23 output c2 error",
      "24 call c3 -> 26",
      "26 output c3 error",
      "28 assistant: b.txt does not exist.",
      "30 run_finished",
    ].filter((line) => !line.endsWith("turn_context")),
  );
  assertEquals([report.healthy, report.forks, report.subagents], [true, [], []]);
  const text = renderReport(report, { color: false });
  assertMatch(text, /\n {2}format {3}Codex CLI rollout \(version 0\.135\.0\)\n/);
  assertMatch(text, /\n {2}prompt {3}List the files\n/);
  assertMatch(text, /\n {2}branch {3}main\n/);
  assertMatch(text, /\n {2}approval never\n/);
  assertMatch(
    text,
    /\n {2}tokens {3}3,490 \(3,400 in, 90 out, 2,900 read from cache, 45 reasoning\)\n/,
  );
  assertMatch(text, /\n {2}ignored {2}1 image, 1 reasoning, 1 web_search_call\n/);
  // The reasoning's summary is readable: shown where it was written, not counted away.
  assertMatch(text, /\n 5 │ ignored {4}1 image\n/);
  assertMatch(text, /\n 9 │ thinking {3}Thinking\n/);
  assertMatch(text, /turn +lines .* bad line +ignored +total\n/);
});

Deno.test("inspectSession() on a Codex rollout with orphan calls: per-turn calls, orphans, the repair it offers", async () => {
  await using dir = await tempDir();
  const report = await inspectText(dir.path, "rollout.jsonl", codexOrphans());
  assertEquals(report.turns.map((t) => [t.runId, t.counts.function_call, t.outcome]), [
    ["t1", 1, null],
    ["t2", 1, "succeeded"],
    ["t3", 1, null],
  ]);
  assertEquals(report.orphanCalls.map((c) => [c.callId, c.turn]), [["o1", 1], ["o3", 3]]);
  assertEquals([report.healthy, report.problems], [false, []]);
  const text = renderReport(report, { color: false });
  assertMatch(text, /⚠ no output: --repair --write gives it a result saying it was interrupted/);
  assertMatch(text, /Repair: add --repair to see what would change in this Codex CLI rollout/);
  assertMatch(text, /Codex's check, line 6: function_call o1 \(exec_command\) has no output/);
  let refused: unknown;
  try {
    planRepair(report);
  } catch (error) {
    refused = error;
  }
  assert(refused instanceof ForeignRepairError, "a pure plan needs the file for another tool's");
  const plan = await planFileRepair(report);
  assertEquals(plan.inserted.map((add) => [add.callId, add.afterLine]), [["o1", 6], ["o3", 24]]);
  assertEquals([plan.moved, plan.rewritten, plan.method], [[], [], "rewrite"]);
});

Deno.test("inspectSession() on Claude Code: forks, subagents, and empty or metadata-only files as such", async () => {
  await using dir = await tempDir();
  const home = await writeClaudeHome(dir.path);
  const forks = await inspectSession(home.forks, { entries: true });
  assertEquals(forks.forks, [
    {
      id: "00000000-0000-4000-8000-000000000009",
      kind: "rewind",
      line: 9,
      lastLine: 10,
      fromLine: 8,
      turn: 1,
      lines: 2,
      messages: 2,
      title: "a rewind (another prompt): 2 messages on lines 9-10",
    },
    {
      id: "00000000-0000-4000-8000-000000000011",
      kind: "local_command",
      line: 17,
      lastLine: 18,
      fromLine: 1,
      turn: 1,
      lines: 2,
      messages: 2,
      title: "a local command: 2 messages on lines 17-18",
    },
  ]);
  const main = await inspectSession(home.session);
  assertEquals(main.subagents, [
    {
      id: "a1b2c3d",
      path: join(
        home.projects,
        "-work-project",
        home.sessionId,
        "subagents",
        "agent-a1b2c3d.jsonl",
      ),
      style: "folder",
      line: 4,
      turn: 1,
      title: "Explore",
    },
    {
      id: "0badc0de",
      path: join(home.projects, "-work-project", "agent-0badc0de.jsonl"),
      style: "sidecar",
      line: null,
      turn: null,
      title: "Warmup",
    },
  ]);
  const text = renderReport(forks, { color: false });
  assertMatch(
    text,
    /\nForks: branches that are not the conversation \(2\)\n {2}line 9 \(turn 1\): a rewind/,
  );
  assertMatch(
    renderReport(main, { color: false }),
    /\nSubagents \(2\)\n {2}a1b2c3d \(line 4, turn 1\): Explore\n/,
  );
  for (
    const [path, state, verdict] of [
      [home.empty, "empty", "empty file: no conversation"],
      [home.metadataOnly, "metadata-only", "no conversation: only the session's metadata lines"],
    ] as const
  ) {
    const report = await inspectSession(path);
    assertEquals([report.session.state, report.healthy, report.problems], [state, true, []]);
    assertMatch(renderReport(report, { color: false }), new RegExp(`^Session \\S+  ${verdict}\n`));
  }
});

/** A Claude Code line answering two parallel calls and adding text: several entries, one line. */
function sharedLine(): string {
  const b = new ClaudeTranscriptBuilder();
  b.user("Two at once", { parent: null });
  const [, callB] = b.assistant([
    { toolUse: { id: "toolu_A", name: "Bash", input: { command: "ls" } } },
    { toolUse: { id: "toolu_B", name: "Read", input: { file_path: "a.txt" } } },
  ], { stop: "tool_use" });
  b.userBlocks([
    { type: "tool_result", tool_use_id: "toolu_A", content: "a.txt" },
    { type: "tool_result", tool_use_id: "toolu_B", content: "no such file", is_error: true },
    { type: "text", text: "and keep going" },
  ], { parent: callB! });
  b.assistant([{ text: "Done." }], { stop: "end_turn" });
  return b.text();
}

Deno.test("renderReport() and renderSessionPage() show each output of a shared line beneath its own call", async () => {
  await using dir = await tempDir();
  const report = await inspectText(dir.path, "shared.jsonl", sharedLine());
  assertEquals([report.session.lines, report.session.records], [5, 10]);
  assertEquals(report.turns[0]!.counts.function_call_output, 2);
  const text = renderReport(report, { color: false });
  assertMatch(
    text,
    /2 │ call {7}Bash \{"command":"ls"\} \[toolu_A\]\n4 │ {3}↳ output {5}a\.txt\n3 │ call {7}Read .*\n4 │ {3}↳ error {6}no such file\n4 │ user {7}and keep going\n/,
  );
  const page = parsePage(renderSessionPage(report));
  assertEquals(attributes(page, ".call [data-output-for]", "data-output-for"), [
    "toolu_A",
    "toolu_B",
  ]);
  assertStrictEquals(page.querySelector("#session")!.getAttribute("data-format"), "claude-code");
  assert(page.querySelector("#session")!.textContent!.includes("Claude Code transcript"));
});

Deno.test("renderSessionPage() of a Claude Code transcript lists its forks, subagents and what it cannot show", async () => {
  await using dir = await tempDir();
  const home = await writeClaudeHome(dir.path);
  const forks = parsePage(renderSessionPage(await inspectSession(home.forks, { entries: true })));
  assertStrictEquals(forks.querySelector("#session")!.getAttribute("data-format"), "claude-code");
  assertEquals(attributes(forks, "#findings [data-fork]", "data-fork"), [
    "00000000-0000-4000-8000-000000000009",
    "00000000-0000-4000-8000-000000000011",
  ]);
  const main = parsePage(renderSessionPage(await inspectSession(home.session, { entries: true })));
  assertEquals(attributes(main, "#findings [data-subagent]", "data-subagent"), [
    "a1b2c3d",
    "0badc0de",
  ]);
  const codex = parsePage(
    renderSessionPage(await inspectText(dir.path, "rollout.jsonl", codexTurnIds())),
  );
  assertEquals(attributes(codex, ".entry.ignored", "data-ignored"), [
    "image",
    "reasoning",
    "web_search_call",
  ]);
  // The reasoning's summary, folded in the reading view.
  assertEquals(texts(codex, "#reading details.thinking .md"), ["Thinking\n"]);
});

for (const adapter of ADAPTERS) {
  Deno.test(`inspectSession() of ${adapter.tool}'s session reads it through its adapter: report, text, page and repair plan in its tool's words`, async () => {
    await using dir = await tempDir();
    const session = await FIXTURES[adapter.name]!.write(dir.path);
    const report = await inspectSession(session.path, { entries: true });
    InspectReportSchema.parse(report);
    assertEquals([report.session.format, report.session.id], [adapter.name, session.id]);
    assert(report.totals.turns > 0 && report.session.firstPrompt !== null, "a conversation");
    // The adapter that found the file, handed on, reads it the same as detection does.
    assertEquals(await inspectSession(session.path, { entries: true, adapter }), report);
    const text = renderReport(report, { color: false });
    assert(text.includes(`\n  format   ${adapter.fileNoun}`), text);
    assert(!text.includes("Records per turn"), "no turnlog bookkeeping");
    const page = parsePage(renderSessionPage(report));
    assertEquals(attributes(page, "header#session", "data-format"), [adapter.name]);
    assert(page.querySelector(".kicker")?.textContent?.startsWith(`${adapter.shortTool} session`));
    const plan = await planFileRepair(report);
    assertEquals([plan.format, plan.path], [adapter.name, session.path]);
    assertEquals(await planFileRepair(report, { adapter }), plan);
  });
}
