/**
 * The runtime's context compaction: decides at each compaction point, asks the model for a
 * summary in a separate call without tools, appends one checkpoint record, and hands the turn
 * its replacement history.
 *
 * @module
 */
import type OpenAI from "openai";
import {
  compactHistory,
  estimateTokens,
  makeCheckpoint,
  resolveCompactThreshold,
  shouldCompact,
  summaryRequestItems,
} from "../compaction/_compaction.ts";
import { responseItemRecord } from "../record/_schemas.ts";
import type { Compactor } from "./_turn.ts";
import { streamModelRound } from "./_wire.ts";

/** Options of {@linkcode createCompactor}. */
export interface CompactorOptions {
  /** The client the summary call goes through (the turn's own). */
  client: OpenAI;
  /** Compact at or above this many tokens; absent: the model's default threshold. */
  threshold?: number | undefined;
  /** The budget of recent user messages kept, in estimated tokens. */
  userBudgetTokens?: number | undefined;
  /** Turns the summary call's failure into a message for a person. */
  describeError?: (error: unknown) => string;
}

/**
 * A {@linkcode Compactor} for `runTurn`. After a round it compares the usage the model
 * reported with the threshold; at the start of a resumed turn, before any round has reported,
 * it estimates the tokens of the history the first request would send. When it compacts, the
 * checkpoint it appends stores the replacement history (and the record count), so replay never
 * re-runs this transform. A failed summary call leaves the history as it was.
 */
export function createCompactor(options: CompactorOptions): Compactor {
  return async (context) => {
    const threshold = options.threshold ??
      resolveCompactThreshold({ model: context.turn.model }).tokens;
    const usage = context.lastUsage ??
      (context.when === "turn_start" ? estimateTokens(JSON.stringify(context.history)) : undefined);
    const budget = options.userBudgetTokens === undefined
      ? {}
      : { userBudgetTokens: options.userBudgetTokens };
    const decision = shouldCompact({ usage, threshold, history: context.history, ...budget });
    if (!decision.compact) return undefined;

    let summary = "";
    try {
      for await (
        const part of streamModelRound(options.client, {
          wireApi: context.turn.wireApi,
          model: context.turn.model,
          history: summaryRequestItems(context.history),
          tools: [],
          signal: context.signal,
        })
      ) {
        if (part.kind === "done") summary = part.result.text;
      }
      if (summary.trim() === "") throw new Error("The model returned an empty summary");
    } catch (error) {
      if (context.signal.aborted) throw error;
      const message = options.describeError?.(error) ??
        (error instanceof Error ? error.message : String(error));
      return { tokensBefore: decision.tokens, error: `The summary call failed: ${message}` };
    }

    const compacted = compactHistory(context.history, summary, budget);
    const checkpoint = makeCheckpoint(compacted, {
      reason: decision.reason,
      tokensBefore: decision.tokens,
      recordsBefore: context.recordCount,
    });
    await context.append([responseItemRecord(checkpoint)]);
    return {
      history: compacted.replacementHistory,
      reason: decision.reason,
      tokensBefore: decision.tokens,
      threshold: decision.threshold,
      removedItemCount: compacted.removedItemCount,
      keptItemCount: compacted.keptItemCount,
      itemsBefore: context.history.length,
      itemsAfter: compacted.replacementHistory.length,
    };
  };
}
