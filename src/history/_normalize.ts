/**
 * Normalization: makes a replayed history acceptable to the model APIs, which reject a tool
 * call without an output and an output without its call. Pure.
 *
 * @module
 */
import type { FunctionCallItem, FunctionCallOutputItem, ResponseItem } from "../record/mod.ts";

/** The error code a synthesized output starts with. */
export const INTERRUPTED_CODE = "SESSION_RESUME_INTERRUPTED";

/** The output that stands in for a tool call that never finished. */
export function synthesizedOutputFor(call: FunctionCallItem): FunctionCallOutputItem {
  return {
    type: "function_call_output",
    callId: call.callId,
    toolName: call.name,
    output: `Error [${INTERRUPTED_CODE}]: This tool call (${call.name}) did not finish before ` +
      "the previous run on this session ended, so its result is unknown. " +
      "Any effect it had may be partial. Retry the call if its result is still needed.",
    isError: true,
    synthesized: true,
  };
}

/** An item normalization removed from the model-visible history, and why. */
export interface DroppedItem {
  item: FunctionCallOutputItem;
  reason: "orphan_output" | "duplicate_output";
}

/** What {@linkcode normalizeHistory} returns. */
export interface NormalizedHistory {
  /** The history to send: every call followed by an output, no output without its call. */
  history: ResponseItem[];
  /** The outputs made up for calls that had none, in history order. */
  synthesized: FunctionCallOutputItem[];
  /** The outputs left out of the history. */
  dropped: DroppedItem[];
}

/**
 * Pairs every tool call with exactly one output. A call without an output gets a synthesized
 * one right after it (same `callId` and tool name, `isError`); an output whose call does not
 * come before it, or a second output for one call, is dropped. A paired history comes back
 * unchanged.
 *
 * @example
 * ```ts
 * import { normalizeHistory } from "./_normalize.ts";
 * const { history, synthesized } = normalizeHistory([
 *   { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" },
 * ]);
 * console.assert(history.length === 2 && synthesized[0]?.callId === "c1");
 * ```
 */
export function normalizeHistory(items: readonly ResponseItem[]): NormalizedHistory {
  // A call is answered only by an output that comes after it.
  const lastOutputAt = new Map<string, number>();
  items.forEach((item, index) => {
    if (item.type === "function_call_output") lastOutputAt.set(item.callId, index);
  });
  const history: ResponseItem[] = [];
  const synthesized: FunctionCallOutputItem[] = [];
  const dropped: DroppedItem[] = [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of items.entries()) {
    if (item.type === "function_call_output") {
      if (!calls.has(item.callId)) {
        dropped.push({ item, reason: "orphan_output" });
      } else if (answered.has(item.callId)) {
        dropped.push({ item, reason: "duplicate_output" });
      } else {
        answered.add(item.callId);
        history.push(item);
      }
      continue;
    }
    history.push(item);
    if (item.type !== "function_call") continue;
    calls.add(item.callId);
    if ((lastOutputAt.get(item.callId) ?? -1) < index) {
      const output = synthesizedOutputFor(item);
      history.push(output);
      synthesized.push(output);
      answered.add(item.callId);
    }
  }
  return { history, synthesized, dropped };
}
