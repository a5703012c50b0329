/**
 * One Codex rollout and one Claude Code transcript telling the same short story, for the
 * notebook on other tools' files and the docs: a turn with a tool call, a turn that edits and
 * then compacts, and a last turn cut off by a crash with its tool call left without a result.
 *
 * @module
 */
import { codexMessage, CodexRolloutBuilder } from "./codex_builder.ts";
import { ClaudeTranscriptBuilder } from "./claude_builder.ts";

const PATCH = "*** Begin Patch\n*** Update File: a.txt\n-helo\n+hello\n*** End Patch";

/**
 * The story as Codex CLI writes it: task events with turn ids, reasoning, a shell call and an
 * `apply_patch` custom call, a `compacted` line with an encrypted summary, and a third turn
 * whose `exec_command` call has no output (the process died).
 */
export function codexTour(): string {
  return new CodexRolloutBuilder()
    .meta({ branch: "main" })
    .message("developer", "Follow the sandbox rules.")
    .taskStarted("t1")
    .prompt("List the files")
    .turnContext({ turnId: "t1" })
    .reasoning()
    .call("c1", "exec_command", '{"cmd":"ls"}')
    .tokens(1200, 20, 1000)
    .output("c1", "Process exited with code 0\nOutput:\na.txt b.txt")
    .answer("a.txt and b.txt.")
    .tokens(1300, 30, 1200)
    .taskComplete("t1")
    .taskStarted("t2")
    .prompt("Fix the typo in a.txt")
    .turnContext({ turnId: "t2" })
    .customCall("p1", PATCH)
    .customOutput("p1", JSON.stringify({ output: "Success.", metadata: { exit_code: 0 } }))
    .tokens(180000, 60, 150000)
    .compacted("", [
      codexMessage("user", "List the files"),
      codexMessage("user", "Fix the typo in a.txt"),
      { type: "compaction", encrypted_content: "gAAAAB" + "x".repeat(40) },
    ])
    .answer("Fixed: a.txt now says hello.")
    .tokens(2000, 20, 1500)
    .taskComplete("t2")
    .taskStarted("t3")
    .prompt("Run the tests")
    .turnContext({ turnId: "t3" })
    .call("c3", "exec_command", '{"cmd":"npm test"}')
    .text();
}

const tool = (id: string, name: string, input: Record<string, unknown>) => ({
  toolUse: { id, name, input },
});

/**
 * The story as Claude Code writes it: prompts, responses split over one line per block
 * (thinking, text, parallel tool calls), tool results hanging off their calls,
 * `turn_duration` lines, a `compact_boundary` with its summary line, and a last turn whose
 * `tool_use` has no `tool_result` (the process died).
 */
export function claudeTour(): string {
  const b = new ClaudeTranscriptBuilder();
  b.user("List the files", { parent: null });
  const [, , list] = b.assistant([
    { thinking: "A directory listing answers this." },
    { text: "Looking." },
    tool("toolu_1", "Bash", { command: "ls" }),
  ], { stop: "tool_use" });
  b.toolResult("toolu_1", "a.txt b.txt", { parent: list! });
  b.assistant([{ text: "a.txt and b.txt." }], { stop: "end_turn" });
  b.system({ subtype: "turn_duration", durationMs: 3000 });
  b.user("Fix the typo in a.txt");
  const [, read, edit] = b.assistant([
    { text: "Reading it and fixing it." },
    tool("toolu_2", "Read", { file_path: "a.txt" }),
    tool("toolu_3", "Edit", { file_path: "a.txt", old_string: "helo", new_string: "hello" }),
  ], { stop: "tool_use" });
  b.toolResult("toolu_2", "helo", { parent: read! });
  b.toolResult("toolu_3", "The file a.txt has been updated.", { parent: edit! });
  b.assistant([{ text: "Fixed: a.txt now says hello." }], { stop: "end_turn" });
  const ended = b.system({ subtype: "turn_duration", durationMs: 5000 });
  b.compaction("The user listed the files and had the typo in a.txt fixed.", {
    logicalParent: ended,
    preTokens: 160000,
  });
  b.user("Run the tests");
  b.assistant([tool("toolu_4", "Bash", { command: "npm test" })], { stop: "tool_use" });
  return b.text();
}
