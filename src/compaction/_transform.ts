/**
 * The compaction transform and the checkpoint record that stores its result, so replay never
 * re-runs it.
 *
 * @module
 */
import { CompactionCheckpointSchema } from "../record/schemas.ts";
import {
  CHECKPOINT_VERSION,
  type CompactionCheckpoint,
  type MessageItem,
  type ResponseItem,
} from "../record/mod.ts";
import { estimateTokens } from "./_tokens.ts";

/** The default token budget of the user messages a compaction keeps. */
export const DEFAULT_USER_BUDGET_TOKENS = 5_000;

/** What {@linkcode compactHistory} returns. */
export interface CompactedHistory {
  /** The new model-visible history: system message, summary, recent user messages. */
  replacementHistory: ResponseItem[];
  /** Items of the old history that are gone. */
  removedItemCount: number;
  /** Items of the old history that stay (the summary is new, so it is not counted). */
  keptItemCount: number;
}

/** Options of {@linkcode compactHistory}. */
export interface CompactOptions {
  /**
   * Token budget (estimated, {@linkcode estimateTokens}) of the user messages kept; the
   * newest one is kept even when it alone is over it.
   */
  userBudgetTokens?: number;
}

/** What a compaction keeps of a history. */
export interface KeptItems {
  /** The leading system message, if any. */
  system: MessageItem | undefined;
  /** The user messages before the turn in flight that fit the budget, oldest first. */
  users: MessageItem[];
  /** The turn in flight: its user message and every item after it. */
  current: ResponseItem[];
  /** Items of the history that go. */
  removedItemCount: number;
}

function isUserMessage(item: ResponseItem): item is MessageItem {
  return item.type === "message" && item.role === "user";
}

/**
 * What a compaction keeps: the system message, the turn in flight (from its user message on:
 * the model has not answered its tool outputs yet, and removing them would make it call the
 * tools again), and the user messages before it that fit the budget.
 */
export function planKept(
  history: readonly ResponseItem[],
  userBudgetTokens: number = DEFAULT_USER_BUDGET_TOKENS,
): KeptItems {
  const first = history[0];
  const system = first?.type === "message" && first.role === "system" ? first : undefined;
  const from = system ? 1 : 0;
  let turnStart = history.length;
  for (let index = history.length - 1; index >= from; index--) {
    if (isUserMessage(history[index]!)) {
      turnStart = index;
      break;
    }
  }
  const users: MessageItem[] = [];
  let spent = 0;
  for (let index = turnStart - 1; index >= from; index--) {
    const item = history[index]!;
    if (!isUserMessage(item)) continue;
    const cost = estimateTokens(item.content);
    if (spent + cost > userBudgetTokens) break;
    users.unshift(item);
    spent += cost;
  }
  const current = history.slice(turnStart);
  const kept = users.length + current.length + (system ? 1 : 0);
  return { system, users, current, removedItemCount: history.length - kept };
}

/**
 * The compaction transform. The new history is the leading system message (if the history
 * starts with one), one `compaction_summary` item holding `summary`, the user messages before
 * the turn in flight whose estimated tokens fit `userBudgetTokens` (a contiguous run ending
 * with the newest), and the turn in flight whole (its user message, kept even over budget, and
 * the calls and outputs the model has not answered yet). Everything else goes: earlier
 * assistant messages, earlier summaries and earlier tool items, so no call can be left without
 * its output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compactHistory } from "./mod.ts";
 * const { replacementHistory, removedItemCount } = compactHistory([
 *   { type: "message", role: "system", content: "sys" },
 *   { type: "message", role: "user", content: "read a.txt" },
 *   { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" },
 *   { type: "function_call_output", callId: "c1", toolName: "read_file", output: "a", isError: false },
 *   { type: "message", role: "assistant", content: "a.txt holds a" },
 *   { type: "message", role: "user", content: "and b.txt?" },
 * ], "Goal:\n- read a.txt");
 * assert.deepEqual(replacementHistory.map((item) => item.type), [
 *   "message",
 *   "compaction_summary",
 *   "message",
 *   "message",
 * ]);
 * assert.equal(removedItemCount, 3);
 * ```
 */
export function compactHistory(
  history: readonly ResponseItem[],
  summary: string,
  options: CompactOptions = {},
): CompactedHistory {
  const { system, users, current, removedItemCount } = planKept(history, options.userBudgetTokens);
  const replacementHistory: ResponseItem[] = [
    ...(system ? [system] : []),
    { type: "compaction_summary", content: summary },
    ...users,
    ...current,
  ];
  return {
    replacementHistory,
    removedItemCount,
    keptItemCount: history.length - removedItemCount,
  };
}

/**
 * The payload of the checkpoint record a compaction appends (wrap it with
 * `responseItemRecord`). It carries the replacement history itself and
 * {@linkcode CHECKPOINT_VERSION}, so replay never re-runs the transform: changing the
 * transform or its budget later does not change how an old session replays. Append only this
 * record; the summary item is inside it.
 *
 * @throws {Error} (a zod error) when the parts do not make a valid checkpoint, which is a bug
 */
export function makeCheckpoint(
  compacted: CompactedHistory,
  details: { reason: string; tokensBefore: number; recordsBefore?: number },
): CompactionCheckpoint {
  return CompactionCheckpointSchema.parse({
    type: "compaction_checkpoint",
    version: CHECKPOINT_VERSION,
    reason: details.reason,
    tokensBefore: details.tokensBefore,
    removedItemCount: compacted.removedItemCount,
    keptItemCount: compacted.keptItemCount,
    ...(details.recordsBefore === undefined ? {} : { recordsBefore: details.recordsBefore }),
    replacementHistory: compacted.replacementHistory,
  });
}
