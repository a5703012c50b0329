/**
 * Claude Code transcripts in shapes the real tool writes and takes as healthy (see
 * `../shared/reference/real-clients.md`), generated: parallel calls split over lines with their
 * results between them, a compaction whose logical parent is in no line, and a crashed session
 * as Claude Code's own `--resume` mends it.
 *
 * @module
 */
import { ClaudeTranscriptBuilder } from "./claude_builder.ts";

const bash = (id: string, command: string) => ({
  toolUse: { id, name: "Bash", input: { command } },
});

/**
 * Claude Code 2.1.x, three parallel calls of one response (`msg_0001`) streamed without a
 * pause between the first two: use A and use B, a hook line, A's result (its parent A), use C
 * hanging off A's result, B's result (its parent B), C's result; then the answer. The walk back
 * from the answer passes A and C only. Claude Code sends one assistant message [A, B, C] and one
 * user message with the results in the file order of their lines [A, B, C].
 */
export function claudeSplitParallel(): string {
  const b = new ClaudeTranscriptBuilder({ version: "2.1.39" });
  b.user("Check the repository", { parent: null });
  const [a] = b.assistant([bash("toolu_A", "git status")]);
  const [useB] = b.assistant([bash("toolu_B", "git diff --stat")], {
    messageId: "msg_0001",
    parent: a!,
  });
  b.progress(undefined, { parent: a! });
  const resultA = b.toolResult("toolu_A", "nothing to commit", { parent: a! });
  const [c] = b.assistant([bash("toolu_C", "git log -1")], {
    messageId: "msg_0001",
    parent: resultA,
  });
  b.progress(undefined, { parent: c! });
  b.toolResult("toolu_B", " 0 files changed", { parent: useB! });
  b.toolResult("toolu_C", "commit 1234", { parent: c! });
  b.assistant([{ text: "The tree is clean." }], { stop: "end_turn" });
  return b.text();
}

/**
 * Claude Code 2.1.328, three parallel calls streamed with a pause between their blocks: the
 * lines alternate (use A, result A, use B hanging off result A, result B, use C, result C), all
 * uses of one response (`msg_0001`); then the answer.
 */
export function claudeAlternatingParallel(): string {
  const b = new ClaudeTranscriptBuilder({ version: "2.1.328" });
  b.user("Run the three checks", { parent: null });
  for (
    const [id, command, output] of [
      ["toolu_A", "echo one", "one"],
      ["toolu_B", "echo two", "two"],
      ["toolu_C", "echo three", "three"],
    ] as const
  ) {
    const [use] = b.assistant(
      [bash(id, command)],
      id === "toolu_A" ? {} : { messageId: "msg_0001" },
    );
    b.toolResult(id, output, { parent: use! });
  }
  b.assistant([{ text: "All three ran." }], { stop: "end_turn" });
  return b.text();
}

/**
 * Two turns, then a compaction whose `compact_boundary` names a logical parent that no line of
 * the file holds (it happens in real files), its summary, and a third turn.
 */
export function claudeLostLogicalParent(): string {
  const b = new ClaudeTranscriptBuilder();
  b.user("Step one", { parent: null });
  b.assistant([{ text: "One done." }], { stop: "end_turn" });
  b.user("Step two");
  b.assistant([{ text: "Two done." }], { stop: "end_turn" });
  b.compaction("Summary: steps one and two are done.", {
    logicalParent: "00000000-0000-4000-8000-0000000000ff",
    preTokens: 120000,
  });
  b.user("Step three");
  b.assistant([{ text: "Three done." }], { stop: "end_turn" });
  return b.text();
}

/** The result text Claude Code's resume gives a call a crash cut off (2.1.328). */
export const CLAUDE_INTERRUPTED_TEXT =
  "[Tool call interrupted: the session ended before this call's result was recorded, so its " +
  "outcome is unknown. Check whether it took effect before relying on it or running it again.]";

/**
 * A session killed while two parallel calls ran (the first had finished), as Claude Code left
 * it (`mended: false`: use A, result A, use B, nothing after) or as its own `--resume` mended
 * it (`mended: true`: an interrupted result for B with `toolDenialKind: "interrupted"`, the
 * synthetic `No response requested.` answer, then the new prompt and its answer).
 */
export function claudeKilledParallel(mended: boolean): string {
  const b = new ClaudeTranscriptBuilder({ version: "2.1.328" });
  b.user("Run `echo one` and `echo waiting; sleep 60; echo woke`", { parent: null });
  const [a] = b.assistant([bash("toolu_A", "echo one")]);
  b.toolResult("toolu_A", "one", { parent: a! });
  const [slow] = b.assistant([bash("toolu_B", "echo waiting; sleep 60; echo woke")], {
    messageId: "msg_0001",
  });
  if (!mended) return b.text();
  b.toolResult("toolu_B", CLAUDE_INTERRUPTED_TEXT, {
    parent: slow!,
    isError: true,
    result: CLAUDE_INTERRUPTED_TEXT,
    extra: { toolDenialKind: "interrupted", sourceToolAssistantUUID: slow! },
  });
  b.set({ model: "<synthetic>" });
  b.assistant([{ text: "No response requested." }], {
    stop: "stop_sequence",
    usage: { input: 0, output: 0 },
  });
  b.set({ model: "claude-opus-4-5-20251101" });
  b.user("say done");
  b.assistant([{ text: "Done." }], { stop: "end_turn" });
  return b.text();
}
