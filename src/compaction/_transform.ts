/**
 * The compaction transform and the checkpoint record that stores its result, so replay never
 * re-runs it.
 *
 * @module
 */
import {
  CHECKPOINT_VERSION,
  type CompactionCheckpoint,
  CompactionCheckpointSchema,
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

/** What a compaction keeps: the system message and the recent user messages. */
export function planKept(
  history: readonly ResponseItem[],
  userBudgetTokens = DEFAULT_USER_BUDGET_TOKENS,
): { system: MessageItem | undefined; users: MessageItem[]; removedItemCount: number } {
  const first = history[0];
  const system = first?.type === "message" && first.role === "system" ? first : undefined;
  const users: MessageItem[] = [];
  let spent = 0;
  for (let index = history.length - 1; index >= (system ? 1 : 0); index--) {
    const item = history[index]!;
    if (item.type !== "message" || item.role !== "user") continue;
    const cost = estimateTokens(item.content);
    if (users.length > 0 && spent + cost > userBudgetTokens) break;
    users.unshift(item);
    spent += cost;
  }
  const kept = users.length + (system ? 1 : 0);
  return { system, users, removedItemCount: history.length - kept };
}

/**
 * The compaction transform. The new history is the leading system message (if the history
 * starts with one), one `compaction_summary` item holding `summary`, and the most recent user
 * messages whose estimated tokens fit `userBudgetTokens` (a contiguous run ending with the
 * newest, which is kept even over budget). Assistant messages, earlier summaries and every tool
 * item go, so no call can be left without its output.
 *
 * @example
 * ```ts
 * import { compactHistory } from "./_compaction.ts";
 * const { replacementHistory, removedItemCount } = compactHistory([
 *   { type: "message", role: "system", content: "sys" },
 *   { type: "message", role: "user", content: "read a.txt" },
 *   { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" },
 * ], "Goal:\n- read a.txt");
 * console.assert(replacementHistory.length === 3 && removedItemCount === 1);
 * ```
 */
export function compactHistory(
  history: readonly ResponseItem[],
  summary: string,
  options: CompactOptions = {},
): CompactedHistory {
  const { system, users, removedItemCount } = planKept(history, options.userBudgetTokens);
  const replacementHistory: ResponseItem[] = [
    ...(system ? [system] : []),
    { type: "compaction_summary", content: summary },
    ...users,
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
