/**
 * The embedded model's rule for Claude Code's shell tool (`Bash`): the commands a message quotes
 * in backticks become calls, all in one message, as a model asked to run several commands at once
 * makes parallel calls.
 *
 * @module
 */
import type { Reply } from "./_conversation.ts";
import { oneLine } from "../text/mod.ts";

/**
 * One `Bash {command, description}` call per command the message quotes in backticks, when the
 * request offers `Bash`; undefined otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { bashCalls } from "./_bash.ts";
 * const reply = bashCalls("run `echo one` and `echo two`", ["Bash"]);
 * assert(reply?.kind === "calls" && reply.calls.length === 2);
 * ```
 */
export function bashCalls(message: string, toolNames: readonly string[]): Reply | undefined {
  if (!toolNames.includes("Bash")) return undefined;
  const commands = [...message.matchAll(/`([^`]+)`/g)].map((match) => match[1]!.trim())
    .filter((command) => command !== "");
  if (commands.length === 0) return undefined;
  return {
    kind: "calls",
    calls: commands.map((command) => ({
      name: "Bash",
      arguments: JSON.stringify({ command, description: `Run ${oneLine(command, 40, "...")}` }),
    })),
  };
}
