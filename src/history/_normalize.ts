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
  /** The output left out. */
  item: FunctionCallOutputItem;
  /** Why: no call before it, or a second output for one call. */
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
 * Pairs every tool call with exactly one output, and places each output right after its call's
 * block (the run of calls one model round made), wherever the output stands in the file: both
 * APIs reject a call whose output does not follow its block. Calls and outputs that share a
 * call id pair in order (the first call with the first output after it). A call without an
 * output gets a synthesized one (same `callId` and tool name, `isError`); an output no call
 * before it claims (an orphan, or a second output for one call) is dropped. A paired, ordered
 * history comes back unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { normalizeHistory } from "./mod.ts";
 * const { history, synthesized } = normalizeHistory([
 *   { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" },
 *   { type: "message", role: "user", content: "go on" },
 * ]);
 * assert.deepEqual(history.map((item) => item.type), [
 *   "function_call",
 *   "function_call_output",
 *   "message",
 * ]);
 * assert.equal(synthesized[0]?.callId, "c1");
 * ```
 */
export function normalizeHistory(items: readonly ResponseItem[]): NormalizedHistory {
  return normalizedInPlace(items) ?? normalizeAnyOrder(items);
}

/**
 * The common case in one pass and without lookups: every output right after its call's block,
 * in the block's order (a call the run never answered may miss its output). Undefined as soon
 * as an output stands anywhere else (a second one, an orphan, one out of order) or shares its
 * id with a call left unanswered before it: then the general way decides. What it returns is
 * what the general way returns for such a history, because there no output can answer a call
 * other than the one it follows.
 */
function normalizedInPlace(items: readonly ResponseItem[]): NormalizedHistory | undefined {
  const history: ResponseItem[] = [];
  const synthesized: FunctionCallOutputItem[] = [];
  // Ids of calls left unanswered: an output with one of them later would answer that call.
  const unanswered = new Set<string>();
  let index = 0;
  while (index < items.length) {
    const item = items[index]!;
    if (item.type === "function_call_output") return undefined;
    if (item.type !== "function_call") {
      history.push(item);
      index++;
      continue;
    }
    let end = index;
    while (items[end + 1]?.type === "function_call") end++;
    for (let at = index; at <= end; at++) history.push(items[at]!);
    let next = end + 1;
    for (let at = index; at <= end; at++) {
      const call = items[at] as FunctionCallItem;
      const output = items[next];
      if (output?.type === "function_call_output" && output.callId === call.callId) {
        if (unanswered.size > 0 && unanswered.has(output.callId)) return undefined;
        history.push(output);
        next++;
      } else {
        unanswered.add(call.callId);
        const made = synthesizedOutputFor(call);
        history.push(made);
        synthesized.push(made);
      }
    }
    index = next;
  }
  return { history, synthesized, dropped: [] };
}

/** Normalization of any history: outputs found by call id wherever they stand. */
function normalizeAnyOrder(items: readonly ResponseItem[]): NormalizedHistory {
  const outputs = new OutputQueues(items);
  const history: ResponseItem[] = [];
  const synthesized: FunctionCallOutputItem[] = [];
  const dropped: DroppedItem[] = [];
  const called = new Set<string>();
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    if (item.type === "function_call_output") {
      if (outputs.taken(index)) continue;
      dropped.push({
        item,
        reason: called.has(item.callId) ? "duplicate_output" : "orphan_output",
      });
      continue;
    }
    if (item.type !== "function_call") {
      history.push(item);
      continue;
    }
    // The block: this call and the calls right after it.
    let end = index;
    while (items[end + 1]?.type === "function_call") end++;
    const block = items.slice(index, end + 1) as FunctionCallItem[];
    history.push(...block);
    for (const [offset, call] of block.entries()) {
      called.add(call.callId);
      const output = outputs.take(call.callId, index + offset);
      if (output) {
        history.push(output);
      } else {
        const made = synthesizedOutputFor(call);
        history.push(made);
        synthesized.push(made);
      }
    }
    index = end;
  }
  return { history, synthesized, dropped };
}

/** The outputs of a history by call id, in order, each taken at most once. */
class OutputQueues {
  readonly #items: readonly ResponseItem[];
  readonly #byId = new Map<string, number[]>();
  readonly #next = new Map<string, number>();
  readonly #taken = new Set<number>();

  constructor(items: readonly ResponseItem[]) {
    this.#items = items;
    items.forEach((item, index) => {
      if (item.type !== "function_call_output") return;
      const queue = this.#byId.get(item.callId);
      if (queue) queue.push(index);
      else this.#byId.set(item.callId, [index]);
    });
  }

  /** The first output with `callId` after `position` that no earlier call took, taken. */
  take(callId: string, position: number): FunctionCallOutputItem | undefined {
    const queue = this.#byId.get(callId);
    if (!queue) return undefined;
    let next = this.#next.get(callId) ?? 0;
    // Outputs before the call answer no later call either: they are passed for good.
    while (next < queue.length && queue[next]! < position) next++;
    const index = queue[next];
    this.#next.set(callId, next + (index === undefined ? 0 : 1));
    if (index === undefined) return undefined;
    this.#taken.add(index);
    return this.#items[index] as FunctionCallOutputItem;
  }

  /** Whether a call took the output at `index`. */
  taken(index: number): boolean {
    return this.#taken.has(index);
  }
}
