/**
 * Claude Code transcripts in the shapes the real tool writes and resumes (generated fixtures of
 * what Claude Code 2.1.x wrote): read the way Claude Code builds its request, checked as
 * healthy, and left alone by repair.
 */
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { invalidRecords, readText, resumedHistory } from "./_formats.ts";
import { planForeignRepair, validateSessionFile } from "../src/formats/mod.ts";
import { claudeCodeFactsOf } from "../src/formats/claude_code/mod.ts";
import type { ResponseItem } from "../src/record/mod.ts";
import {
  claudeAlternatingParallel,
  claudeApiError,
  claudeKilledParallel,
  claudeLostLogicalParent,
  claudeSplitParallel,
} from "../testing/formats/claude_shapes.ts";

const NAME = "7acd37a8-0000-4000-8000-000000000001.jsonl";

/** The history Claude Code sends, in short: `call A`, `output A`, `user: ...`. */
function shortHistory(history: readonly ResponseItem[]): string[] {
  return history.map((item) => {
    if (item.type === "function_call") return `call ${item.callId}`;
    if (item.type === "function_call_output") return `output ${item.callId}`;
    if (item.type === "message") return `${item.role}: ${item.content}`;
    return item.type;
  });
}

async function readShape(text: string) {
  await using dir = await tempDir();
  const read = await readText(dir.path, NAME, text, "claude-code");
  const validation = await validateSessionFile(read.path, "claude-code");
  const plan = await planForeignRepair(read.path, "claude-code");
  assertEquals(invalidRecords(read.records), []);
  return { ...read, validation, plan };
}

Deno.test("readForeignSession(claude-code) merges parallel calls split over lines by message.id, results in their lines' order", async () => {
  const { lines, validation, plan, records } = await readShape(claudeSplitParallel());
  assertEquals(lines.slice(1), [
    "1 turn_context 00000000-0000-4000-8000-000000000001 claude-opus-4-5-20251101 ask-changes",
    "1 user: Check the repository",
    '2 call toolu_A Bash {"command":"git status"}',
    '3 call toolu_B Bash {"command":"git diff --stat"}',
    '6 call toolu_C Bash {"command":"git log -1"}',
    "5 output toolu_A Bash: nothing to commit",
    "8 output toolu_B Bash:  0 files changed",
    "9 output toolu_C Bash: commit 1234",
    "10 assistant: The tree is clean.",
    "10 run_finished 00000000-0000-4000-8000-000000000001 succeeded rounds=2",
  ]);
  assertEquals(shortHistory(resumedHistory(records).history), [
    "user: Check the repository",
    "call toolu_A",
    "call toolu_B",
    "call toolu_C",
    "output toolu_A",
    "output toolu_B",
    "output toolu_C",
    "assistant: The tree is clean.",
  ]);
  assertEquals(validation.findings, [], "Claude Code sends it and the API accepts it");
  assertEquals(plan.inserted, []);
  assertEquals(plan.moved, []);
  assertEquals(plan.rewritten, []);
});

Deno.test("readForeignSession(claude-code) reads 2.1.328's alternating parallel lines as one message and its results", async () => {
  const { lines, validation, plan } = await readShape(claudeAlternatingParallel());
  assertEquals(lines.slice(3, 9), [
    '2 call toolu_A Bash {"command":"echo one"}',
    '4 call toolu_B Bash {"command":"echo two"}',
    '6 call toolu_C Bash {"command":"echo three"}',
    "3 output toolu_A Bash: one",
    "5 output toolu_B Bash: two",
    "7 output toolu_C Bash: three",
  ]);
  assertEquals(
    lines.at(-1),
    "8 run_finished 00000000-0000-4000-8000-000000000001 succeeded rounds=2",
  );
  assertEquals(validation.findings, []);
  assertEquals([plan.inserted, plan.moved, plan.rewritten], [[], [], []]);
});

Deno.test("readForeignSession(claude-code) continues a compaction whose logical parent is missing from the turns before it", async () => {
  const { lines, facts, validation, plan } = await readShape(claudeLostLogicalParent());
  assertEquals(facts.forks, [], "the turns before the boundary are no separate conversation");
  assertEquals(facts.turns, 3);
  assertEquals(claudeCodeFactsOf(facts)?.boundaryJoins, [{ line: 5, continuesLine: 4 }]);
  assertEquals(lines.filter((line) => / (user|assistant): /.test(line)), [
    "1 user: Step one",
    "2 assistant: One done.",
    "3 user: Step two",
    "4 assistant: Two done.",
    "7 user: Step three",
    "8 assistant: Three done.",
  ]);
  assert(lines.some((line) => line.startsWith("6 checkpoint ") && / removed=4 kept=0 /.test(line)));
  assertEquals(validation.findings, []);
  assertEquals([plan.inserted, plan.moved, plan.rewritten], [[], [], []]);
});

Deno.test("readForeignSession(claude-code) takes Claude Code's own mend as the killed turn interrupted", async () => {
  const { lines, validation, plan } = await readShape(claudeKilledParallel(true));
  assertEquals(lines.slice(3, 10), [
    '2 call toolu_A Bash {"command":"echo one"}',
    '4 call toolu_B Bash {"command":"echo waiting; sleep 60; echo woke"}',
    "3 output toolu_A Bash: one",
    "5 output toolu_B Bash error: [Tool call interrupted: the session ended before this call's " +
    "result was recorded, so its outcome is unknown. Check whether it took effect before " +
    "relying on it or running it again.]",
    "6 assistant: No response requested.",
    "6 run_finished 00000000-0000-4000-8000-000000000001 cancelled rounds=1",
    "7 turn_context 00000000-0000-4000-8000-000000000007 claude-opus-4-5-20251101 ask-changes",
  ]);
  assertEquals(validation.findings, []);
  assertEquals([plan.inserted, plan.moved, plan.rewritten], [[], [], []]);
});

Deno.test("planForeignRepair(claude-code) gives only the killed parallel call a result, after its own line", async () => {
  const { validation, plan } = await readShape(claudeKilledParallel(false));
  assertEquals(validation.findings.map((finding) => [finding.kind, finding.line, finding.callId]), [
    ["unanswered_call", 4, "toolu_B"],
  ]);
  assertEquals(plan.moved, []);
  assertEquals(plan.rewritten, []);
  assertEquals(plan.inserted.map((line) => [line.afterLine, line.callId]), [[4, "toolu_B"]]);
  const useB = JSON.parse(claudeKilledParallel(false).split("\n")[3]!).uuid;
  assertEquals(JSON.parse(plan.inserted[0]!.text).parentUuid, useB);
});

Deno.test("readForeignSession(claude-code) ends a turn the API refused as failed, with Claude Code's error line", async () => {
  const { lines, validation } = await readShape(claudeApiError());
  assertEquals(lines.slice(1, 5), [
    "1 turn_context 00000000-0000-4000-8000-000000000001 claude-opus-4-5-20251101 ask-changes",
    "1 user: Run the checks",
    "2 assistant: API Error: 400 messages.1: tool_use ids were found without tool_result",
    "2 run_finished 00000000-0000-4000-8000-000000000001 failed rounds=0",
  ]);
  assertEquals(
    lines.at(-1),
    "4 run_finished 00000000-0000-4000-8000-000000000003 succeeded rounds=1",
  );
  assertEquals(validation.findings, []);
});
