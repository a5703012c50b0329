/**
 * Token estimates: what compaction counts before a model has reported any usage.
 *
 * @module
 */
import type { ResponseItem } from "../record/mod.ts";

/**
 * A token estimate of a text: a quarter of its characters, the usual figure for English and
 * code with OpenAI's tokenizers (the embedded model counts the same way).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The characters of a history as JSON, item by item: what a request carrying it holds at least,
 * counted without making one string of it (a history of a gigabyte is longer than any string
 * the engine can make).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { historyChars } from "./mod.ts";
 * const history = [{ type: "message", role: "user", content: "hi" }] as const;
 * assert.deepEqual(historyChars(history), JSON.stringify(history).length - 2);
 * ```
 */
export function historyChars(history: readonly ResponseItem[]): number {
  let chars = 0;
  for (const item of history) chars += JSON.stringify(item).length + 1;
  return Math.max(0, chars - 1);
}

/** A token estimate of a history ({@linkcode estimateTokens} of its {@linkcode historyChars}). */
export function estimateHistoryTokens(history: readonly ResponseItem[]): number {
  return Math.ceil(historyChars(history) / 4);
}
