/**
 * Token usage as the embedded model reports it: a fixed, documented estimate that grows with
 * the request, so tests and compaction thresholds can rely on it.
 *
 * @module
 */
import type { Reply } from "./_conversation.ts";

/** Input and output token counts of one response. */
export interface TokenCounts {
  /** Tokens the request is counted as. */
  inputTokens: number;
  /** Tokens the reply is counted as. */
  outputTokens: number;
}

/**
 * Counts tokens the contract's way: input = ceil(characters of the serialized input, tools
 * included, / 4); output = ceil(characters of the reply / 4), where a call's characters are
 * its name plus its JSON arguments.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countTokens } from "./mod.ts";
 * const usage = countTokens("12345678", { kind: "text", text: "abcde" });
 * assert(usage.inputTokens === 2 && usage.outputTokens === 2);
 * ```
 */
export function countTokens(serializedInput: string, reply: Reply): TokenCounts {
  const outputChars = reply.kind === "text"
    ? reply.text.length
    : reply.calls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
  return {
    inputTokens: Math.ceil(serializedInput.length / 4),
    outputTokens: Math.ceil(outputChars / 4),
  };
}
