/**
 * Large session files of other tools in their real shapes, for benchmarks: a Claude Code
 * transcript of split responses, hook progress lines and parallel tool calls, a Codex rollout
 * of per-request turn contexts, token counts and compactions, and Gemini CLI sessions: of
 * messages written again as they change with `/compress` checkpoints (the benchmark's), and of
 * growing checkpoints (each resume writes the whole history again), grown to a target size.
 * Seeded and deterministic; written line by line, never held whole.
 *
 * @module
 */
import { Rng } from "../generate/mod.ts";
import { type AssistantBlock, ClaudeTranscriptBuilder } from "./claude_builder.ts";
import { codexRolloutLines, type ScaleOptions } from "./codex_fixtures.ts";
import { type BuiltCall, GeminiSessionBuilder } from "./gemini_builder.ts";

export { codexRolloutLines, type ScaleOptions };

/**
 * The lines of a large Claude Code transcript: turns of several responses, each split over
 * one line per block (thinking, text, one to three parallel tool calls), a hook `progress`
 * line before each tool, each result hanging off its own call's line (through the hook's line
 * for every other tool), and `turn_duration`.
 */
export function* claudeTranscriptLines(options: ScaleOptions): Generator<string> {
  const rng = new Rng(options.seed);
  const random = () => rng.next();
  const int = (max: number) => Math.floor(random() * max);
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
  const text = (n: number) => Array.from({ length: n }, () => words[int(words.length)]).join(" ");
  const b = new ClaudeTranscriptBuilder();
  let bytes = 0;
  const take = function* () {
    for (const line of b.lines.splice(0)) {
      bytes += line.length + 1;
      yield line;
    }
  };
  let calls = 0;
  while (bytes < options.targetBytes) {
    b.user(text(5 + int(30)));
    const rounds = 1 + int(6);
    for (let round = 0; round < rounds && bytes < options.targetBytes; round++) {
      const ids = Array.from(
        { length: 1 + int(3) },
        () => `toolu_${(++calls).toString().padStart(8, "0")}`,
      );
      const blocks: AssistantBlock[] = [
        { thinking: text(10 + int(40)) },
        { text: text(5 + int(30)) },
        ...ids.map((id) => ({ toolUse: { id, name: "Bash", input: { command: text(4) } } })),
      ];
      const lines = b.assistant(blocks, {
        stop: "tool_use",
        usage: { input: 100 + int(5000), output: 50 + int(900) },
      });
      const callLines = lines.slice(2);
      ids.forEach((id, index) => {
        const hook = b.progress({ type: "hook_progress", hookEvent: "PreToolUse" }, {
          parent: callLines[index]!,
        });
        // The chain runs through the hook's line for some tools, beside it for others.
        const parent = index % 2 === 0 ? hook : callLines[index]!;
        b.toolResult(id, text(20 + int(600)), { parent, isError: int(12) === 0 });
      });
      yield* take();
    }
    b.assistant([{ text: text(20 + int(80)) }], { stop: "end_turn" });
    b.system({ subtype: "turn_duration", durationMs: 1000 + int(60000) });
    yield* take();
  }
}

/**
 * The lines of a large Gemini CLI session: turns of a prompt and several replies, each reply
 * written as Gemini CLI writes it (its first copy, then the copy with its tool calls and
 * their results, a user message of the function responses, `$set`s of `lastUpdated`), and a
 * `/compress` checkpoint every eighth of the target size (from a sixteenth on): the whole
 * history replaced by a summary and the last turn's prompt and answer.
 */
export function* geminiCompressedSessionLines(options: ScaleOptions): Generator<string> {
  const rng = new Rng(options.seed);
  const int = (max: number) => Math.floor(rng.next() * max);
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
  const text = (n: number) => Array.from({ length: n }, () => words[int(words.length)]).join(" ");
  const b = new GeminiSessionBuilder().context();
  let bytes = 0;
  let calls = 0;
  let nextCheckpoint = options.targetBytes / 16;
  const take = function* () {
    for (const line of b.lines.splice(0)) {
      bytes += line.length + 1;
      yield line;
    }
  };
  while (bytes < options.targetBytes) {
    const turn = b.lines.length;
    b.user(text(5 + int(30)));
    const replies = 1 + int(5);
    for (let reply = 0; reply < replies; reply++) {
      const count = reply === replies - 1 ? 0 : 1 + int(3);
      const callsOf: BuiltCall[] = Array.from({ length: count }, () => ({
        name: "run_shell_command",
        wire: `c${++calls}`,
        args: { command: text(4) },
        output: text(20 + int(600)),
      }));
      b.gemini({
        text: text(5 + int(40)),
        calls: callsOf,
        tokens: { input: 100 + int(5000), output: 50 + int(900), cached: int(2000) },
        thoughts: int(2) === 0,
      });
    }
    if (bytes + b.lines.slice(turn).join("").length >= nextCheckpoint) {
      nextCheckpoint += options.targetBytes / 8;
      // What /compress leaves: a summary, then the turn just written, whole.
      const last = b.lines.slice(turn).map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((value) => typeof value.id === "string");
      const kept = [...new Map(last.map((value) => [value.id, value])).values()].filter((value) =>
        value.toolCalls === undefined && !JSON.stringify(value.content).includes("functionResponse")
      );
      const summary = {
        id: b.id(),
        timestamp: b.time(),
        type: "user",
        content: [{ text: `<state_snapshot>${text(200)}</state_snapshot>` }],
      };
      b.raw({ $set: { messages: [summary, ...kept], lastUpdated: b.time() } });
    }
    yield* take();
  }
}

/** Writes lines to `path`, a newline after each, in chunks of about 1 MiB. */
export async function writeLines(path: string, lines: Iterable<string>): Promise<number> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const encoder = new TextEncoder();
  let pending: string[] = [];
  let size = 0;
  let written = 0;
  const flush = async () => {
    const bytes = encoder.encode(pending.join(""));
    for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
    written += bytes.length;
    pending = [];
    size = 0;
  };
  for (const line of lines) {
    pending.push(line, "\n");
    size += line.length + 1;
    if (size >= 1 << 20) await flush();
  }
  await flush();
  return written;
}

/**
 * The lines of a large Gemini CLI session in the shapes 0.61 writes: prompts, replies with one
 * to three tool calls (each reply written twice: first alone, then with its `toolCalls` and
 * results, and a user message of the function responses), `$set` lines of `lastUpdated`, and a
 * checkpoint of the whole history every `checkpointEvery` prompts (as each resume writes one):
 * many `$set` lines of growing message lists.
 */
export function* geminiSessionLines(
  options: ScaleOptions & { checkpointEvery?: number; outputWords?: number; cancelEvery?: number },
): Generator<string> {
  const rng = new Rng(options.seed);
  const int = (max: number) => Math.floor(rng.next() * max);
  const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
  const text = (n: number) => Array.from({ length: n }, () => words[int(words.length)]).join(" ");
  const b = new GeminiSessionBuilder().context();
  let bytes = 0;
  const take = function* () {
    for (const line of b.lines.splice(0)) {
      bytes += line.length + 1;
      yield line;
    }
  };
  let calls = 0;
  for (let prompt = 1; bytes < options.targetBytes; prompt++) {
    b.user(text(5 + int(30)));
    const rounds = 1 + int(4);
    for (let round = 0; round < rounds; round++) {
      const made = Array.from({ length: 1 + int(3) }, () => {
        const wire = `run_shell_command_${++calls}_0`;
        const cancelled = options.cancelEvery !== undefined && calls % options.cancelEvery === 0;
        const output = cancelled ? undefined : text(options.outputWords ?? 40);
        return { name: "run_shell_command", wire, args: { command: text(4) }, output };
      });
      b.gemini({ text: text(5 + int(30)), calls: made, tokens: { input: 100, output: 20 } });
    }
    b.gemini({ text: text(20 + int(80)) });
    if (prompt % (options.checkpointEvery ?? 10) === 0) b.checkpoint();
    yield* take();
  }
}
