/**
 * Issue 39, item 5: repairs converge. For each shape the issue found, inspect's promise
 * ("--repair --write gives it a result") is kept by the first repair, inspect then finds
 * nothing, and a second repair changes nothing.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { isEmptyPlan, planFileRepair, repairSession } from "../src/repair/mod.ts";
import { validateSessionFile } from "../src/formats/mod.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { GeminiSessionBuilder } from "../testing/formats/gemini_builder.ts";

/** Repairs the file until nothing is left to do; returns how many repairs changed it. */
async function repairsUntilDone(path: string): Promise<number> {
  for (let changed = 0; changed < 4; changed++) {
    const { plan } = await repairSession(path);
    if (isEmptyPlan(plan)) return changed;
  }
  throw new Error(`${path}: a fifth repair still changed the file`);
}

/** What inspect finds that repair promises to mend, in a line each. */
async function promised(path: string): Promise<string[]> {
  const report = await inspectSession(path);
  const plan = await planFileRepair(report);
  return [
    ...report.orphanCalls.map((call) => `line ${call.line}: call ${call.callId} without output`),
    ...report.orphanOutputs.map((output) => `line ${output.line}: output ${output.callId}`),
    ...(isEmptyPlan(plan) ? [] : ["a repair plan"]),
  ];
}

/** A Claude Code turn: a prompt, an answer split over a text line and a call line, the result. */
function claudeCall(): ClaudeTranscriptBuilder {
  const b = new ClaudeTranscriptBuilder();
  b.user("List the files");
  const [, call] = b.assistant([{ text: "Listing." }, {
    toolUse: { id: "toolu_L", name: "Bash", input: { command: "ls" } },
  }], { stop: "tool_use" });
  b.toolResult("toolu_L", "a.txt", { parent: call! });
  b.assistant([{ text: "There is a.txt." }], { stop: "end_turn" });
  return b;
}

Deno.test("inspectSession() reads a Claude Code tool_result written before its tool_use line in chain order: nothing to repair", async () => {
  await using dir = await tempDir();
  const lines = claudeCall().lines;
  // The call's line and its result's line swapped in the file, their parentUuid chain as it was.
  const swapped = [lines[0], lines[1], lines[3], lines[2], lines[4]];
  const path = join(dir.path, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, swapped.join("\n") + "\n");
  assertEquals(await promised(path), []);
  const report = await inspectSession(path);
  assertEquals(report.healthy, true);
  assertEquals(await repairsUntilDone(path), 0);
});

/** A prompt, a response of two calls (A and B, a line each), and `results` answering them. */
function twoCalls(results: ("A" | "B")[]): string[] {
  const b = new ClaudeTranscriptBuilder();
  b.user("Check both");
  const lines = b.assistant([
    { toolUse: { id: "toolu_A", name: "Bash", input: { command: "git status" } } },
    { toolUse: { id: "toolu_B", name: "Bash", input: { command: "git log" } } },
  ], { stop: "tool_use" });
  const output = { A: "clean", B: "one commit" };
  for (const id of results) b.toolResult(`toolu_${id}`, output[id], { parent: lines.at(-1)! });
  return b.lines;
}

/**
 * Writes `lines` as a transcript (in an order other than the chain's) and checks it is read in
 * the chain's order: its calls `calls` in that order, nothing to repair, Claude Code's check
 * passing.
 */
async function assertReadInChainOrder(lines: string[], calls: string[]): Promise<void> {
  await using dir = await tempDir();
  const path = join(dir.path, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  assertEquals(await promised(path), []);
  assertEquals((await validateSessionFile(path, "claude-code")).findings, []);
  const report = await inspectSession(path, { entries: true });
  const entries = report.turns.flatMap((turn) => turn.entries ?? []);
  assertEquals(entries.flatMap((e) => e.kind === "function_call" ? [e.callId] : []), calls);
  assertEquals(await repairsUntilDone(path), 0);
}

Deno.test("inspectSession() reads a Claude Code response's first line written after its call and result in chain order: nothing to repair", async () => {
  const [prompt, text, call, result] = claudeCall().lines;
  // The response's text line last in the file: the chain still runs text, call, result.
  await assertReadInChainOrder([prompt!, call!, result!, text!], ["toolu_L"]);
});

Deno.test("inspectSession() reads a Claude Code call written before its prompt's line, and its sibling's, in chain order", async () => {
  const [prompt, callA, callB, ...results] = twoCalls(["B", "A"]);
  // The first call's line before the prompt it answers: the chain runs prompt, A, B, results.
  await assertReadInChainOrder([callA!, prompt!, callB!, ...results], ["toolu_A", "toolu_B"]);
  // The first call's line after both results: the response is still A then B.
  await assertReadInChainOrder([prompt!, ...results, callB!, callA!], ["toolu_A", "toolu_B"]);
});

Deno.test("inspectSession() gives a Claude Code turn the model of its answer read after it, written before its prompt", async () => {
  await using dir = await tempDir();
  const b = new ClaudeTranscriptBuilder({ model: "claude-first" });
  b.user("One?");
  b.assistant([{ text: "One." }], { stop: "end_turn" });
  b.set({ model: "claude-second" }).user("Two?");
  b.assistant([{ text: "Two." }], { stop: "end_turn" });
  const [p1, a1, p2, a2] = b.lines;
  const path = join(dir.path, `${CLAUDE_SESSION_ID}.jsonl`);
  // The first answer before its prompt: the chain reads prompt, answer, prompt, answer.
  await Deno.writeTextFile(path, [a1, p1, p2, a2].join("\n") + "\n");
  const report = await inspectSession(path);
  assertEquals(report.turns.map((turn) => turn.model), ["claude-first", "claude-second"]);
});

Deno.test("repairSession() answers a Claude Code call whose line comes after its sibling's result line, once", async () => {
  await using dir = await tempDir();
  const [prompt, callA, callB, resultA] = twoCalls(["A"]);
  // The result of A first, then the line of B, then the line of A: the chain runs A, B, result.
  const path = join(dir.path, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, [prompt, resultA, callB, callA].join("\n") + "\n");
  const before = await inspectSession(path);
  assertEquals(before.orphanCalls.map((call) => call.callId), ["toolu_B"]);
  assertEquals(before.orphanOutputs, [], "the result of A answers A");
  assertEquals(await repairsUntilDone(path), 1);
  assertEquals(await promised(path), []);
});

/** A call without its result, as a Gemini model message holds it. */
const geminiCall = {
  id: "m2",
  timestamp: "2026-12-01T10:00:05.000Z",
  type: "gemini",
  content: "Reading.",
  model: "gemini-2.5-flash",
  toolCalls: [{ id: "read_file__r1", name: "read_file", args: { file_path: "a.txt" } }],
};
const geminiPrompt = {
  id: "m1",
  timestamp: "2026-12-01T10:00:04.000Z",
  type: "user",
  content: [{ text: "Read a.txt" }],
};
const geminiFollowUp = {
  id: "m4",
  timestamp: "2026-12-01T10:00:06.000Z",
  type: "user",
  content: [{ text: "Go on" }],
};
const geminiAnswer = {
  id: "m3",
  timestamp: "2026-12-01T10:00:07.000Z",
  type: "gemini",
  content: "Done.",
  model: "gemini-2.5-flash",
};

Deno.test("repairSession() writes a response into a Gemini checkpoint that holds a call without one followed by later messages", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder().context();
  b.raw({ $set: { messages: [geminiPrompt, geminiCall, geminiFollowUp, geminiAnswer] } });
  b.user("Thanks").gemini({ text: "Welcome." });
  const path = join(dir.path, "session-2026-12-01T10-00-5a7e0c1d.jsonl");
  await Deno.writeTextFile(path, b.text());
  assertEquals(await promised(path), [
    "line 3: call read_file__r1 without output",
    "a repair plan",
  ]);
  assertEquals(await repairsUntilDone(path), 1);
  assertEquals(await promised(path), []);
  const set = JSON.parse((await Deno.readTextFile(path)).split("\n")[2]!).$set;
  assertEquals(set.messages.map((m: { id: string }) => m.id), [
    "m1",
    "m2",
    "m4",
    "turnlog-repair-read_file__r1",
    "m3",
  ]);
});

Deno.test("repairSession() on a Gemini checkpoint whose call's next message is rewritten to a stray response: one repair", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder().context();
  b.raw({ $set: { messages: [geminiPrompt, geminiCall, geminiAnswer] } });
  // The message after the call written again, holding only a response no call asked for: once
  // it is taken out, the checkpoint ends with the call without its response.
  b.raw({
    id: "m3",
    timestamp: "2026-12-01T10:00:08.000Z",
    type: "user",
    content: [{ functionResponse: { id: "ls__9", name: "list_directory", response: {} } }],
  });
  const path = join(dir.path, "session-2026-12-01T10-00-5a7e0c1d.jsonl");
  await Deno.writeTextFile(path, b.text());
  assertEquals(await promised(path), [
    "line 3: call read_file__r1 without output",
    "a repair plan",
  ]);
  assertEquals(await repairsUntilDone(path), 1, "the stray out and the response in, at once");
  assertEquals(await promised(path), []);
});

Deno.test("repairSession() writes a Gemini response where the history reads it: after the content it answers, not inside the next", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder();
  // m2 comes into the history before m4 and m3, but its last copy (with the call) is written
  // after their lines: a response after that copy would come after m3, answering nothing.
  b.raw({ ...geminiCall, toolCalls: [] });
  b.raw(geminiFollowUp);
  b.raw(geminiAnswer);
  b.raw(geminiCall);
  const path = join(dir.path, "session-2026-12-01T10-00-5a7e0c1d.jsonl");
  await Deno.writeTextFile(path, b.text());
  assertEquals(await promised(path), [
    "line 5: call read_file__r1 without output",
    "a repair plan",
  ]);
  assertEquals(await repairsUntilDone(path), 1);
  assertEquals(await promised(path), []);
});
