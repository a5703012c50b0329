/**
 * Large session files of other tools in their real shapes, for benchmarks: a Claude Code
 * transcript of split responses, hook progress lines and parallel tool calls, and a Codex
 * rollout of per-request turn contexts, token counts and compactions, grown to a target size.
 * Seeded and deterministic; written line by line, never held whole.
 *
 * @module
 */
import { Rng } from "../generate/mod.ts";
import { type AssistantBlock, ClaudeTranscriptBuilder } from "./claude_builder.ts";
import { codexRolloutLines, type ScaleOptions } from "./codex_fixtures.ts";

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
