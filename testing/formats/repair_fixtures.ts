/**
 * Damaged session files of every other tool (Codex rollouts, Claude Code transcripts, Gemini
 * CLI sessions) for the tests of their repair, each with the file it should read like once
 * repaired: what a crash leaves (a call without its result, one or several, a parallel call
 * cut short, a torn last line, NUL padding, two lines glued together) and what a bad edit
 * leaves (a result whose call is not there).
 *
 * @module
 */
import { ClaudeTranscriptBuilder } from "./claude_builder.ts";
import { CodexRolloutBuilder } from "./codex_builder.ts";
import { GeminiSessionBuilder, geminiToolSession } from "./gemini_builder.ts";

/** A damaged file, and how it reads once repaired (before any synthesized result). */
export interface RepairFixture {
  /** The file as damage left it. */
  damaged: string;
  /** The same conversation undamaged: repair must give a file that reads like it. */
  clean: string;
  /** Calls repair writes a result for, in file order. */
  synthesized: string[];
  /** Results repair takes off the branch. */
  removed: string[];
}

const tool = (id: string, name: string, input: Record<string, unknown>) => ({
  toolUse: { id, name, input },
});

/** A short Claude Code conversation: a prompt, a call and its result, an answer. */
function claudeStart(): ClaudeTranscriptBuilder {
  const b = new ClaudeTranscriptBuilder();
  b.user("List the files");
  const [, call] = b.assistant([{ text: "Listing." }, tool("toolu_L", "Bash", { command: "ls" })], {
    stop: "tool_use",
  });
  b.toolResult("toolu_L", "a.txt", { parent: call! });
  b.assistant([{ text: "There is a.txt." }], { stop: "end_turn" });
  b.system({ subtype: "turn_duration", durationMs: 1000 });
  return b;
}

/** Half a line, as an append cut off by a crash leaves it. */
const half = (line: string) => line.slice(0, Math.floor(line.length / 2));

const same = (text: string, synthesized: string[], removed: string[] = []): RepairFixture => ({
  damaged: text,
  clean: text,
  synthesized,
  removed,
});

/** Claude Code: the process died right after an assistant line asking for one tool. */
export function claudeCrashOneCall(): RepairFixture {
  const b = claudeStart();
  b.user("Run the tests");
  b.assistant([{ text: "Running." }, tool("toolu_T", "Bash", { command: "npm test" })], {
    stop: "tool_use",
  });
  return same(b.text(), ["toolu_T"]);
}

/**
 * Claude Code: the process died after a response asking for three tools (one line each, after
 * a thinking line); the user came back and typed on the same branch, and got an answer.
 */
export function claudeCrashSeveralCalls(): RepairFixture {
  const b = claudeStart();
  b.user("Read the three files");
  b.assistant([
    { thinking: "Three reads." },
    tool("toolu_1", "Read", { file_path: "a.txt" }),
    tool("toolu_2", "Read", { file_path: "b.txt" }),
    tool("toolu_3", "Read", { file_path: "c.txt" }),
  ], { stop: "tool_use" });
  b.user("Are you still there?");
  b.assistant([{ text: "Yes." }], { stop: "end_turn" });
  b.system({ subtype: "turn_duration", durationMs: 1000 });
  return same(b.text(), ["toolu_1", "toolu_2", "toolu_3"]);
}

/** Claude Code: two tools ran in parallel; the process died after the first result. */
export function claudeInterruptedParallel(): RepairFixture {
  const b = claudeStart();
  b.user("Check both");
  b.assistant([
    tool("toolu_A", "Bash", { command: "git status" }),
    tool("toolu_B", "Bash", { command: "git log" }),
  ], { stop: "tool_use" });
  b.toolResult("toolu_A", "clean");
  return same(b.text(), ["toolu_B"]);
}

/** Claude Code: parallel calls whose results all came: nothing to repair. */
export function claudeCompleteParallel(): RepairFixture {
  const b = claudeStart();
  b.user("Check both");
  const [a, c] = b.assistant([
    tool("toolu_A", "Bash", { command: "git status" }),
    tool("toolu_B", "Bash", { command: "git log" }),
  ], { stop: "tool_use" });
  b.toolResult("toolu_B", "one commit", { parent: c! });
  b.toolResult("toolu_A", "clean", { parent: a! });
  b.assistant([{ text: "Clean, one commit." }], { stop: "end_turn" });
  return same(b.text(), []);
}

/** Claude Code: the last line torn in the middle of an append. */
export function claudeTornLine(): RepairFixture {
  const b = claudeStart();
  const clean = b.text();
  b.user("And now?");
  return { damaged: clean + half(b.lines.at(-1)!), clean, synthesized: [], removed: [] };
}

/**
 * Claude Code after a power loss: a block of NUL bytes where a line was being written, the
 * tool's next line right after it, and NUL padding at the end.
 */
export function claudeNulPadding(): RepairFixture {
  const b = claudeStart();
  const lines = b.lines;
  const clean = b.text();
  const damaged = [...lines.slice(0, 2), "\u0000".repeat(64) + lines[2], ...lines.slice(3)]
    .join("\n") + "\n" + "\u0000".repeat(32);
  return { damaged, clean, synthesized: [], removed: [] };
}

/** Claude Code: two lines glued together (a writer that lost a newline). */
export function claudeGlued(): RepairFixture {
  const b = claudeStart();
  const lines = b.lines;
  const damaged = [lines[0], lines[1]! + lines[2]!, ...lines.slice(3)].join("\n") + "\n";
  return { damaged, clean: b.text(), synthesized: [], removed: [] };
}

/**
 * Claude Code: a line in the middle damaged (its end lost), the lines after it still hanging
 * off it: they are re-linked to the parent its remains still name.
 */
export function claudeCorruptMiddle(): RepairFixture {
  const b = claudeStart();
  b.user("And the other folder?");
  b.assistant([{ text: "It is empty." }], { stop: "end_turn" });
  const lines = b.lines;
  const cut = lines.length - 3;
  const damaged = [...lines.slice(0, cut), half(lines[cut]!), ...lines.slice(cut + 1)]
    .join("\n") + "\n";
  const clean = new ClaudeTranscriptBuilder();
  for (const [at, line] of lines.entries()) {
    if (at !== cut) clean.raw(at === cut + 1 ? relink(line, lines[cut]!) : line);
  }
  return { damaged, clean: clean.text(), synthesized: [], removed: [] };
}

/** A line re-linked onto the parent of the line it hung off. */
function relink(line: string, parentLine: string): string {
  return JSON.stringify({ ...JSON.parse(line), parentUuid: JSON.parse(parentLine).parentUuid });
}

/**
 * Claude Code: the prompt and the assistant line asking for a tool glued on one line, then the
 * process died: the result goes right after the call, among the lines written back.
 */
export function claudeGluedCrash(): RepairFixture {
  const b = claudeStart();
  b.user("Run the tests");
  b.assistant([tool("toolu_G", "Bash", { command: "npm test" })], { stop: "tool_use" });
  const lines = b.lines;
  const damaged = [...lines.slice(0, -2), lines.at(-2)! + lines.at(-1)!].join("\n") + "\n";
  return { damaged, clean: b.text(), synthesized: ["toolu_G"], removed: [] };
}

/**
 * Claude Code: a result whose call is on no line of the branch (an edit, or a copy from
 * another session), with the conversation going on after it.
 */
export function claudeOrphanResult(): RepairFixture {
  const b = claudeStart();
  b.toolResult("toolu_ghost", "a result for a call that is not here");
  b.user("Thanks");
  b.assistant([{ text: "You are welcome." }], { stop: "end_turn" });
  return same(b.text(), [], ["toolu_ghost"]);
}

/** A short Codex turn: a prompt, a call and its output, an answer. */
function codexStart(): CodexRolloutBuilder {
  return new CodexRolloutBuilder()
    .meta()
    .taskStarted("t1")
    .prompt("List the files")
    .turnContext({ turnId: "t1" })
    .call("c1", "exec_command", '{"cmd":"ls"}')
    .output("c1", "Process exited with code 0\nOutput:\na.txt")
    .answer("There is a.txt.")
    .taskComplete("t1");
}

/** Codex: the process died right after a `function_call`. */
export function codexCrashOneCall(): RepairFixture {
  const b = codexStart().taskStarted("t2").prompt("Run the tests").turnContext({ turnId: "t2" })
    .call("o1", "exec_command", '{"cmd":"npm test"}');
  return same(b.text(), ["o1"]);
}

/**
 * Codex: the process died after a `function_call` and an `apply_patch` custom call; Codex was
 * started again and the user typed a new prompt.
 */
export function codexCrashSeveralCalls(): RepairFixture {
  const b = codexStart().taskStarted("t2").prompt("Fix it").turnContext({ turnId: "t2" })
    .call("o1", "exec_command", '{"cmd":"make"}')
    .customCall("o2", "*** Begin Patch\n*** End Patch")
    .message("developer", "Re-injected instructions after the crash.")
    .taskStarted("t3").prompt("Are you there?").turnContext({ turnId: "t3" })
    .answer("Yes.").taskComplete("t3");
  return same(b.text(), ["o1", "o2"]);
}

/** Codex: two calls in parallel; the process died after the first output. */
export function codexInterruptedParallel(): RepairFixture {
  const b = codexStart().taskStarted("t2").prompt("Check both").turnContext({ turnId: "t2" })
    .call("p1", "exec_command", '{"cmd":"git status"}')
    .call("p2", "exec_command", '{"cmd":"git log"}')
    .output("p1", "clean");
  return same(b.text(), ["p2"]);
}

/** Codex: parallel calls whose outputs all came: nothing to repair. */
export function codexCompleteParallel(): RepairFixture {
  const b = codexStart().taskStarted("t2").prompt("Check both").turnContext({ turnId: "t2" })
    .call("p1", "exec_command", '{"cmd":"git status"}')
    .call("p2", "exec_command", '{"cmd":"git log"}')
    .output("p2", "one commit")
    .output("p1", "clean")
    .answer("Clean.").taskComplete("t2");
  return same(b.text(), []);
}

/** Codex: the last line torn in the middle of an append. */
export function codexTornLine(): RepairFixture {
  const clean = codexStart().text();
  const torn = codexStart().taskStarted("t2").lines.at(-1)!;
  return { damaged: clean + half(torn), clean, synthesized: [], removed: [] };
}

/** Codex after a power loss: NUL bytes before a line, and NUL padding at the end. */
export function codexNulPadding(): RepairFixture {
  const b = codexStart();
  const lines = b.lines;
  const damaged = [...lines.slice(0, 4), "\u0000".repeat(64) + lines[4], ...lines.slice(5)]
    .join("\n") + "\n" + "\u0000".repeat(32);
  return { damaged, clean: b.text(), synthesized: [], removed: [] };
}

/** Codex: a call and its output glued on one line. */
export function codexGlued(): RepairFixture {
  const b = codexStart();
  const lines = b.lines;
  const damaged = [...lines.slice(0, 5), lines[5]! + lines[6]!, ...lines.slice(7)].join("\n") +
    "\n";
  return { damaged, clean: b.text(), synthesized: [], removed: [] };
}

/** Codex: the prompt and the call glued on one line, then the process died. */
export function codexGluedCrash(): RepairFixture {
  const b = codexStart().taskStarted("t2").prompt("Run the tests").turnContext({ turnId: "t2" })
    .call("g1", "exec_command", '{"cmd":"npm test"}');
  const lines = b.lines;
  const damaged = [...lines.slice(0, -2), lines.at(-2)! + lines.at(-1)!].join("\n") + "\n";
  return { damaged, clean: b.text(), synthesized: ["g1"], removed: [] };
}

/** Codex: an output whose call is nowhere before it, then the conversation goes on. */
export function codexOrphanOutput(): RepairFixture {
  const b = new CodexRolloutBuilder()
    .meta()
    .taskStarted("t1")
    .prompt("List the files")
    .turnContext({ turnId: "t1" })
    .call("c1", "exec_command", '{"cmd":"ls"}')
    .output("c1", "a.txt")
    .output("ghost", "an output for a call that is not here")
    .answer("There is a.txt.")
    .taskComplete("t1")
    .taskStarted("t2").prompt("Thanks").turnContext({ turnId: "t2" })
    .answer("You are welcome.").taskComplete("t2");
  return same(b.text(), [], ["ghost"]);
}

/** A short Gemini CLI conversation without a call: the injected context, a prompt, an answer. */
function geminiStart(): GeminiSessionBuilder {
  return new GeminiSessionBuilder().context().user("List the files")
    .gemini({ text: "There is a.txt." });
}

/**
 * Gemini CLI 0.61 killed while a tool ran: it writes a call into the file only once it has
 * finished, so the model's message stands without `toolCalls`: nothing to repair.
 */
export function geminiCrashMidTool(): RepairFixture {
  const b = geminiStart().user("Run the tests").gemini({ text: "Running them." });
  return same(b.text(), []);
}

/**
 * Gemini CLI 0.61 as it writes a finished call: its result in the model message's `toolCalls`
 * and again in a user message of `functionResponse` parts. Its resume sends that one result
 * twice (the API's 400): repair takes the user message to the sidecar, and the session reads
 * like one whose result is stored once.
 */
export function geminiRepeatedResponse(): RepairFixture {
  const once = geminiToolSession();
  const clean = new GeminiSessionBuilder().context().user("What does the README say?").gemini({
    text: "Let me read it.",
    calls: [{
      name: "read_file",
      wire: "read_file_1_0",
      args: { file_path: "README.md" },
      output: "hello readme\n",
    }],
    thoughts: true,
    noResponseMessage: true,
  }).gemini({ text: "The README says hello.", tokens: { input: 130, output: 7, cached: 100 } });
  return { damaged: once.text(), clean: clean.text(), synthesized: [], removed: [] };
}

/** Gemini CLI: the last line torn in the middle of an append. */
export function geminiTornLine(): RepairFixture {
  const clean = geminiStart().text();
  const torn = geminiStart().user("And now?").lines.at(-2)!;
  return { damaged: clean + half(torn), clean, synthesized: [], removed: [] };
}

/** Gemini CLI after a power loss: NUL bytes before a line, and NUL padding at the end. */
export function geminiNulPadding(): RepairFixture {
  const b = geminiStart();
  const lines = b.lines;
  const damaged = [...lines.slice(0, 3), "\u0000".repeat(64) + lines[3], ...lines.slice(4)]
    .join("\n") + "\n" + "\u0000".repeat(32);
  return { damaged, clean: b.text(), synthesized: [], removed: [] };
}

/** Gemini CLI: the prompt and the `$set` after it glued on one line. */
export function geminiGlued(): RepairFixture {
  const b = geminiStart();
  const lines = b.lines;
  const damaged = [...lines.slice(0, 2), lines[2]! + lines[3]!, ...lines.slice(4)].join("\n") +
    "\n";
  return { damaged, clean: b.text(), synthesized: [], removed: [] };
}

/**
 * Gemini CLI: a user message of a function response no call right before it makes (an edit,
 * or a copy from another session), the conversation going on after it.
 */
export function geminiOrphanResponse(): RepairFixture {
  const b = geminiStart();
  const clean = geminiStart();
  b.raw({
    id: b.id(),
    timestamp: b.time(),
    type: "user",
    content: [b.response({ name: "read_file", wire: "ghost", args: {}, output: "not here" })],
  });
  // The same ids and times after it, in a file that never had it.
  clean.id(), clean.time();
  for (const it of [b, clean]) it.user("Thanks").gemini({ text: "You are welcome." });
  return { damaged: b.text(), clean: clean.text(), synthesized: [], removed: [] };
}

/** Every repair fixture of a format, by adapter name. */
export const REPAIR_FIXTURES = {
  "claude-code": {
    crash_one_call: claudeCrashOneCall,
    crash_several_calls: claudeCrashSeveralCalls,
    interrupted_parallel: claudeInterruptedParallel,
    complete_parallel: claudeCompleteParallel,
    torn_line: claudeTornLine,
    nul_padding: claudeNulPadding,
    glued: claudeGlued,
    glued_crash: claudeGluedCrash,
    corrupt_middle: claudeCorruptMiddle,
    orphan_result: claudeOrphanResult,
  },
  codex: {
    crash_one_call: codexCrashOneCall,
    crash_several_calls: codexCrashSeveralCalls,
    interrupted_parallel: codexInterruptedParallel,
    complete_parallel: codexCompleteParallel,
    torn_line: codexTornLine,
    nul_padding: codexNulPadding,
    glued: codexGlued,
    glued_crash: codexGluedCrash,
    orphan_result: codexOrphanOutput,
  },
  gemini: {
    crash_mid_tool: geminiCrashMidTool,
    repeated_response: geminiRepeatedResponse,
    torn_line: geminiTornLine,
    nul_padding: geminiNulPadding,
    glued: geminiGlued,
    orphan_result: geminiOrphanResponse,
  },
} satisfies Record<string, Record<string, () => RepairFixture>>;
