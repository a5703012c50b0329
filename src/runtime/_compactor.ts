/**
 * The runtime's context compaction: decides at each compaction point, asks the model for a
 * summary in a separate call without tools, appends one checkpoint record, and hands the turn
 * its replacement history.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import {
  compactHistory,
  estimateHistoryTokens,
  makeCheckpoint,
  resolveCompactThreshold,
  shouldCompact,
  summaryRequestItems,
} from "../compaction/mod.ts";
import {
  type ResponseItem,
  responseItemRecord,
  type SessionRecord,
  type TurnContext,
  type Usage,
} from "../record/mod.ts";
import type { ModelConnection } from "./_connect.ts";
import type { CompactionPoint, RunEventOf } from "./_events.ts";

/** What a compactor sees at a compaction point. */
export interface CompactionContext {
  /** Where in the turn: its start (a resumed turn) or after a model round. */
  when: CompactionPoint;
  /** The current model-visible history (do not change it in place). */
  history: readonly ResponseItem[];
  /** The token usage of the last model round; undefined at the start of a turn. */
  lastUsage: Usage | undefined;
  /** The turn's model, wire API and policy. */
  turn: TurnContext;
  /** The model the turn talks to (the summary call goes there too). */
  connection: ModelConnection;
  /** Valid records in the session file now (a checkpoint stores it). */
  recordCount: number;
  /** Appends records to the session (a compactor persists its checkpoint through this). */
  append(records: readonly SessionRecord[]): Promise<void>;
  /** The turn's cancellation. */
  signal: AbortSignal;
}

/** What a compaction step did: nothing (undefined), a compaction, or a failed summary call. */
export type CompactionStepResult =
  | Omit<RunEventOf<"history_compacted">, "type" | "when"> & { history: ResponseItem[] }
  | Omit<RunEventOf<"compaction_failed">, "type" | "when">;

/**
 * Context compaction's place in a turn: called at the start of a resumed turn and after every
 * model round. Having persisted its checkpoint, it returns the replacement history; a failed
 * summary call is reported and the turn goes on uncompacted. Without one, the step does
 * nothing.
 */
export type Compactor = (context: CompactionContext) => Promise<CompactionStepResult | undefined>;

/** Options of {@linkcode createCompactor}. */
export interface CompactorOptions {
  /** Where the summary call goes; absent: the turn's own model connection. */
  connection?: ModelConnection | undefined;
  /** Compact at or above this many tokens; absent: the model's default threshold. */
  threshold?: number | undefined;
  /** The budget of recent user messages kept, in estimated tokens. */
  userBudgetTokens?: number | undefined;
}

async function summarize(
  context: CompactionContext,
  connection: ModelConnection,
): Promise<string> {
  let summary = "";
  const parts = connection.streamRound({
    wireApi: context.turn.wireApi,
    model: context.turn.model,
    history: summaryRequestItems(context.history),
    tools: [],
    signal: context.signal,
  });
  for await (const part of parts) if (part.kind === "done") summary = part.result.text;
  if (summary.trim() === "") throw new TurnlogError("model", "The model returned an empty summary");
  return summary;
}

/**
 * A {@linkcode Compactor} for `runTurn`. After a round it compares the usage the model
 * reported with the threshold; at the start of a resumed turn, before any round has reported,
 * it estimates the tokens of the history the first request would send. When it compacts, the
 * checkpoint it appends stores the replacement history (and the record count), so replay never
 * re-runs this transform. A failed summary call leaves the history as it was.
 */
export function createCompactor(options: CompactorOptions = {}): Compactor {
  return async (context) => {
    const threshold = options.threshold ??
      resolveCompactThreshold({ model: context.turn.model }).tokens;
    const usage = context.lastUsage ??
      (context.when === "turn_start" ? estimateHistoryTokens(context.history) : undefined);
    const budget = options.userBudgetTokens === undefined
      ? {}
      : { userBudgetTokens: options.userBudgetTokens };
    const decision = shouldCompact({ usage, threshold, history: context.history, ...budget });
    if (!decision.compact) return undefined;

    let summary: string;
    try {
      summary = await summarize(context, options.connection ?? context.connection);
    } catch (error) {
      if (context.signal.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
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
