/**
 * The call/output pairing rules of both OpenAI wire APIs, checked independently of the code
 * under test, for the fault-injection suite and the property tests: a request body (either
 * wire) or a history is read into calls, outputs and other items, and every call must be
 * answered, and every output must answer, under the stricter of the two rules.
 *
 * Responses accepts an output anywhere after its call as long as every call is answered before
 * the next message; Chat Completions wants the tool messages right after the assistant message
 * that holds the calls. Both are met when each block of consecutive calls is followed at once
 * by exactly one output per call of the block (in any order), and no output stands anywhere
 * else.
 *
 * @module
 */
import type { ResponseItem } from "../src/record/mod.ts";

/** One item of a conversation, as the pairing rules see it. */
export type PairingItem =
  | { kind: "call"; callId: string }
  | { kind: "output"; callId: string }
  | { kind: "other" };

/** What breaks the pairing rules in one conversation. */
export interface PairingFaults {
  /** Calls not answered right after their block, by call id, in order. */
  unansweredCalls: string[];
  /** Outputs that answer no call of the block just before them, by call id, in order. */
  strayOutputs: string[];
}

/**
 * Checks a conversation against the pairing rules of both APIs.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkPairing } from "./pairing.ts";
 * const faults = checkPairing([
 *   { kind: "call", callId: "a" },
 *   { kind: "other" },
 *   { kind: "output", callId: "a" },
 * ]);
 * assert.deepEqual(faults, { unansweredCalls: ["a"], strayOutputs: ["a"] });
 * ```
 */
export function checkPairing(items: readonly PairingItem[]): PairingFaults {
  const faults: PairingFaults = { unansweredCalls: [], strayOutputs: [] };
  let waiting: string[] = [];
  let inBlock = false;
  for (const item of items) {
    if (item.kind === "call") {
      if (!inBlock) {
        flush(faults, waiting);
        waiting = [];
      }
      waiting.push(item.callId);
      inBlock = true;
      continue;
    }
    inBlock = false;
    if (item.kind === "output") {
      const at = waiting.indexOf(item.callId);
      if (at === -1) faults.strayOutputs.push(item.callId);
      else waiting.splice(at, 1);
      continue;
    }
    flush(faults, waiting);
    waiting = [];
  }
  flush(faults, waiting);
  return faults;
}

function flush(faults: PairingFaults, waiting: readonly string[]): void {
  faults.unansweredCalls.push(...waiting);
}

/** A model-visible history as pairing items. */
export function historyPairingItems(history: readonly ResponseItem[]): PairingItem[] {
  return history.map((item): PairingItem =>
    item.type === "function_call"
      ? { kind: "call", callId: item.callId }
      : item.type === "function_call_output"
      ? { kind: "output", callId: item.callId }
      : { kind: "other" }
  );
}

/** A parsed request body (`input` of Responses or `messages` of Chat Completions) as items. */
// deno-lint-ignore no-explicit-any
export function requestPairingItems(body: any): PairingItem[] {
  if (Array.isArray(body?.input)) {
    // deno-lint-ignore no-explicit-any
    return body.input.map((item: any): PairingItem =>
      item.type === "function_call"
        ? { kind: "call", callId: String(item.call_id) }
        : item.type === "function_call_output"
        ? { kind: "output", callId: String(item.call_id) }
        : { kind: "other" }
    );
  }
  if (Array.isArray(body?.messages)) {
    // deno-lint-ignore no-explicit-any
    return body.messages.flatMap((message: any): PairingItem[] => {
      if (message.role === "tool") {
        return [{ kind: "output", callId: String(message.tool_call_id) }];
      }
      const calls: PairingItem[] = (message.tool_calls ?? []).map((
        call: { id: unknown },
      ) => ({ kind: "call", callId: String(call.id) }));
      const text = typeof message.content === "string" && message.content !== "";
      return calls.length === 0 || text ? [{ kind: "other" }, ...calls] : calls;
    });
  }
  throw new Error(`Not a model request body: ${JSON.stringify(body).slice(0, 200)}`);
}
