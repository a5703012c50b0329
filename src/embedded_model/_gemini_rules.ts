/**
 * The embedded model's rules for the tools Gemini CLI offers, whose names and arguments are
 * not turnlog's: tried before the shared rules (`_rules.ts`), which answer everything else
 * (tool outputs, recall, plain answers) and call turnlog's own tools when those are offered.
 *
 * | #  | When | Reply |
 * | -- | ---- | ----- |
 * | G1 | tool outputs follow the last user message | the shared rules' answer about them |
 * | G2 | run / exec / execute and commands in backquotes, `run_shell_command` offered | one `run_shell_command {command, description}` per command, all in one response |
 * | G3 | read / open / show / cat / view / print and a path, `read_file` offered | one `read_file {file_path}` per path |
 * | G4 | list / ls / files / dir / directory / folder, `list_directory` offered | `list_directory {dir_path}`: the first path, else "." |
 * | G5 | anything else | the shared rules, without Gemini's tools of turnlog's names (`read_file`, `write_file`) |
 *
 * @module
 */
import type { ConversationRequest, Reply } from "./_conversation.ts";
import { decideReply } from "./_rules.ts";
import { backquoted, gist, LIST_WORDS, pathsOf, READ_WORDS, RUN_WORDS, wordsOf } from "./_words.ts";

/** Gemini CLI's tools that share a name with turnlog's but take other arguments. */
const SAME_NAMES = ["read_file", "write_file"];

function calls(name: string, list: Record<string, unknown>[]): Reply {
  return {
    kind: "calls",
    calls: list.map((args) => ({ name, arguments: JSON.stringify(args) })),
  };
}

/** The index of the last user message of a request, or -1. */
function lastUserIndex(request: ConversationRequest): number {
  return request.items.findLastIndex((item) => item.kind === "message" && item.role === "user");
}

/**
 * The embedded model's reply to a request from Gemini CLI: its own tools called with their
 * own arguments, else the shared rules. Pure and deterministic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decideGeminiReply } from "./_gemini_rules.ts";
 * const reply = decideGeminiReply({
 *   items: [{ kind: "message", role: "user", text: "read README.md" }],
 *   toolNames: ["read_file", "run_shell_command"],
 * });
 * assert(reply.kind === "calls" && reply.calls[0]?.arguments === '{"file_path":"README.md"}');
 * ```
 */
export function decideGeminiReply(request: ConversationRequest): Reply {
  const { items, toolNames } = request;
  const last = lastUserIndex(request);
  const answered = items.slice(last + 1).some((item) => item.kind === "output");
  const message = last >= 0 ? (items[last] as { text: string }).text : "";
  if (!answered && toolNames.length > 0) {
    const words = wordsOf(message);
    const has = (list: string[]) => list.some((word) => words.includes(word));
    const offers = (name: string) => toolNames.includes(name);
    const commands = backquoted(message);
    if (commands.length > 0 && has(RUN_WORDS) && offers("run_shell_command")) {
      return calls(
        "run_shell_command",
        commands.map((command) => ({ command, description: `Run ${gist(command, 40)}` })),
      );
    }
    const { paths } = pathsOf(message);
    if (has(READ_WORDS) && paths.length > 0 && offers("read_file")) {
      return calls("read_file", paths.map((file_path) => ({ file_path })));
    }
    if (has(LIST_WORDS) && offers("list_directory")) {
      return calls("list_directory", [{ dir_path: paths[0] ?? "." }]);
    }
  }
  const names = toolNames.filter((name) => !SAME_NAMES.includes(name));
  // With none of turnlog's tools left, the shared rules would take it for a summary request.
  if (names.length === 0 && toolNames.length > 0) names.push("run_shell_command");
  return decideReply({ items, toolNames: names });
}
