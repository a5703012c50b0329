/**
 * Codex rollouts covering every edge case of `../shared/reference/formats.md`, each a small
 * file whose records a test can state exactly, and a seeded generator of rollouts of any
 * size in the real shapes (per-request turn contexts, token counts, a compaction).
 *
 * @module
 */
import { Rng } from "../generate/mod.ts";
import { codexMessage, CodexRolloutBuilder } from "./codex_builder.ts";

/**
 * The newer shape (0.1xx): task events with turn ids, one `turn_context` per turn, injected
 * context before the first `task_started`, user and assistant text written twice, images,
 * reasoning, a web search, failures told by the output text and by `exec_command_end`.
 */
export function codexTurnIds(): string {
  return new CodexRolloutBuilder()
    .meta({ branch: "main" })
    .message("developer", "Follow the sandbox rules.")
    .message("user", "<environment_context><cwd>/work/project</cwd></environment_context>")
    .taskStarted("t1")
    .message("user", "List the files", 1)
    .event("user_message", { message: "List the files", images: ["data:,"] })
    .turnContext({ turnId: "t1", model: "gpt-5.5", approval: "never" })
    .reasoning()
    .call("c1", "exec_command", '{"cmd":"ls"}')
    .tokens(1000, 20, 800)
    .output("c1", "Chunk ID: 1\nProcess exited with code 0\nOutput:\na.txt")
    .answer("There is a.txt.")
    .tokens(1100, 30, 1000)
    .taskComplete("t1")
    .taskStarted("t2")
    .prompt("Read b.txt and search the web")
    .turnContext({ turnId: "t2", model: "gpt-5.5", approval: "never" })
    .webSearch()
    .call("c2", "exec_command", '{"cmd":"cat b.txt"}')
    .output("c2", "Process exited with code 1\nOutput:\ncat: b.txt: No such file")
    .call("c3", "exec_command", '{"cmd":"false"}')
    .event("exec_command_end", { call_id: "c3", exit_code: 2, status: "failed" })
    .output("c3", "no output")
    .answer("b.txt does not exist.")
    .tokens(1300, 40, 1100)
    .taskComplete("t2")
    .text();
}

/**
 * The older shape: task events without turn ids, a `turn_context` (without turn id) before
 * every model request, the shell tool's JSON output with `metadata.exit_code`, an
 * `Exit code:` header, and a turn the user aborted.
 */
export function codexPerRequest(): string {
  const shell = (code: number, text: string) =>
    JSON.stringify({ output: text, metadata: { exit_code: code, duration_seconds: 0.1 } });
  return new CodexRolloutBuilder()
    .meta({ cliVersion: "0.30.0" })
    .taskStarted()
    .prompt("Run the tests")
    .turnContext({ approval: "untrusted", model: "gpt-5-codex" })
    .call("s1", "shell", '{"command":["npm","test"]}')
    .tokens(500, 10)
    .output("s1", shell(1, "1 failing"))
    .turnContext({ approval: "untrusted", model: "gpt-5-codex" })
    .call("s2", "shell", '{"command":["npm","test","--","-u"]}')
    .tokens(600, 10)
    .output("s2", "Exit code: 0\nWall time: 1.2 seconds\nOutput:\nall passing")
    .turnContext({ approval: "untrusted", model: "gpt-5-codex" })
    .answer("Fixed.")
    .tokens(700, 15)
    .taskComplete()
    .taskStarted()
    .prompt("Now deploy")
    .turnContext({ approval: "untrusted", model: "gpt-5-codex" })
    .call("s3", "shell", '{"command":["deploy"]}')
    .output("s3", shell(0, "deployed"))
    .event("turn_aborted", { reason: "interrupted" })
    .text();
}

/** A trimmed rollout: turn ids on `turn_context` and `user_message` events, no task events. */
export function codexNoTaskEvents(): string {
  return new CodexRolloutBuilder()
    .meta()
    .message("developer", "Instructions.")
    .prompt("First question")
    .turnContext({ turnId: "t1" })
    .answer("First answer.")
    .prompt("Second question")
    .turnContext({ turnId: "t2", model: "gpt-5.4" })
    .call("c1")
    .output("c1", "ok")
    .answer("Second answer.")
    .text();
}

/**
 * A rollout trimmed further: no `turn_context`, no task events, only messages and
 * `user_message` events; one prompt survives only as its event.
 */
export function codexUserMessagesOnly(): string {
  return new CodexRolloutBuilder()
    .meta()
    .prompt("Hello")
    .message("assistant", "Hi.")
    .event("user_message", { message: "Only the event is left", images: [] })
    .message("assistant", "Answer to the event.")
    .text();
}

/**
 * Damage Codex leaves: a turn cut off with an orphan call in the middle of the file,
 * followed by re-injected context and a new turn; a developer message between a call and its
 * output; arguments that are not JSON (redacted); an orphan call at the end of an unfinished
 * turn.
 */
export function codexOrphans(): string {
  return new CodexRolloutBuilder()
    .meta()
    .taskStarted("t1")
    .prompt("Build it")
    .turnContext({ turnId: "t1" })
    .call("o1", "exec_command", "[REDACTED_ARGUMENTS len=20 sha=1234abcd]")
    .tokens(900, 9)
    .message("developer", "Re-injected instructions after the crash.")
    .message("user", "<environment_context><cwd>/work/project</cwd></environment_context>")
    .taskStarted("t2")
    .prompt("Try again")
    .turnContext({ turnId: "t2" })
    .call("c2", "exec_command", '{"cmd":"make"}')
    .message("developer", "Approval granted.")
    .output("c2", "built")
    .answer("Built.")
    .taskComplete("t2")
    .taskStarted("t3")
    .prompt("Deploy")
    .turnContext({ turnId: "t3" })
    .call("o3", "exec_command", '{"cmd":"deploy"}')
    .text();
}

/**
 * Compaction: `apply_patch` as a custom tool call, then a `compacted` record in the middle of
 * a turn (same turn id before and after) whose replacement history holds messages and an
 * encrypted `compaction` item; a later turn with the older `compacted` shape (a summary
 * message, no replacement history).
 */
export function codexCompaction(): string {
  const patch = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch";
  const patched = (code: number) =>
    JSON.stringify({ output: code === 0 ? "Success." : "Failed.", metadata: { exit_code: code } });
  return new CodexRolloutBuilder()
    .meta()
    .taskStarted("t1")
    .prompt("Write a.txt")
    .turnContext({ turnId: "t1" })
    .customCall("p1", patch)
    .customOutput("p1", patched(0))
    .customCall("p2", patch)
    .customOutput("p2", patched(1))
    .tokens(200000, 100)
    .compacted("", [
      codexMessage("developer", "Instructions."),
      codexMessage("user", "Write a.txt"),
      { type: "compaction", encrypted_content: "gAAAAB" + "y".repeat(32) },
    ])
    .call("c3", "exec_command", '{"cmd":"cat a.txt"}')
    .output("c3", "hello")
    .answer("Written.")
    .taskComplete("t1")
    .taskStarted("t2")
    .prompt("Summarize")
    .turnContext({ turnId: "t2" })
    .compacted("The user asked for a.txt; it was written.")
    .answer("Summarized.")
    .taskComplete("t2")
    .text();
}

/** Lines a crash or a bad write leaves, among valid ones. */
export function codexDamage(): string {
  const valid = new CodexRolloutBuilder()
    .meta()
    .taskStarted("t1")
    .prompt("Hi")
    .turnContext({ turnId: "t1" });
  const glued = valid.lines[2]! + valid.lines[3]!;
  return new CodexRolloutBuilder()
    .meta()
    .taskStarted("t1")
    .prompt("Hi")
    .turnContext({ turnId: "t1" })
    .raw('{"timestamp":"2026-02-23T12:00:09.000Z","type":"response_item","payl')
    .raw(glued)
    .raw('{"timestamp":"2026-02-23T12:00:10.000Z","type":"future_record","payload":{}}')
    .raw('{"payload":{}}')
    .answer("Hello.")
    .text() + "\u0000".repeat(16);
}

/** Every edge-case rollout by name. */
export const CODEX_FIXTURES: Record<string, () => string> = {
  turn_ids: codexTurnIds,
  per_request: codexPerRequest,
  no_task_events: codexNoTaskEvents,
  user_messages_only: codexUserMessagesOnly,
  orphans: codexOrphans,
  compaction: codexCompaction,
  damage: codexDamage,
};

/** Options of {@linkcode codexRolloutLines}. */
export interface ScaleOptions {
  seed: number;
  /** Stop once this many bytes are written. */
  targetBytes: number;
}

/**
 * The lines of a large rollout in the real shapes, seeded: turns of several requests, each a
 * `turn_context`, reasoning, a call and its output and a `token_count`, with a compaction
 * every 100 requests. Yields line texts (without newline) until the target size is reached.
 */
export function* codexRolloutLines(options: ScaleOptions): Generator<string> {
  const rng = new Rng(options.seed);
  const random = () => rng.next();
  const int = (max: number) => Math.floor(random() * max);
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
  const text = (n: number) => Array.from({ length: n }, () => words[int(words.length)]).join(" ");
  let bytes = 0;
  let requests = 0;
  const take = (builder: CodexRolloutBuilder) => {
    const lines = builder.lines.splice(0);
    for (const line of lines) bytes += line.length + 1;
    return lines;
  };
  const builder = new CodexRolloutBuilder();
  yield* take(builder.meta({ branch: "main" }));
  for (let turn = 1; bytes < options.targetBytes; turn++) {
    const turnId = `019c8a4c-0000-7000-8000-${turn.toString(16).padStart(12, "0")}`;
    yield* take(builder.taskStarted(turnId).prompt(text(5 + int(20))));
    const rounds = 1 + int(8);
    for (let round = 0; round < rounds && bytes < options.targetBytes; round++) {
      builder.turnContext({ turnId }).reasoning(text(6));
      const callId = `call_${turn}_${round}`;
      builder.call(callId, "exec_command", JSON.stringify({ cmd: text(3) }))
        .tokens(2000 + int(50000), 50 + int(500), int(2000))
        .output(
          callId,
          `Process exited with code ${int(10) === 0 ? 1 : 0}\nOutput:\n${text(20 + int(400))}`,
        );
      if (++requests % 100 === 0) {
        builder.compacted("", [codexMessage("user", text(10)), {
          type: "compaction",
          encrypted_content: "gAAAAB" + text(50),
        }]);
      }
      yield* take(builder);
    }
    yield* take(builder.answer(text(10 + int(60))).tokens(3000, 100).taskComplete(turnId));
  }
}
