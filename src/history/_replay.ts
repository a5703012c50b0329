/**
 * Replay: rebuilds the model-visible history from a session's records, in write order. Pure.
 *
 * @module
 */
import type { ResponseItem, SessionRecord } from "../record/mod.ts";

/**
 * Applies one record to a history being rebuilt, in place. A history item is appended; a
 * compaction checkpoint replaces everything before it with the replacement history it
 * carries (never a re-run of the transform, so old sessions replay the same forever); other
 * records do not change the history.
 */
export function replayRecord(history: ResponseItem[], record: SessionRecord): void {
  if (record.type !== "response_item") return;
  const item = record.payload;
  if (item.type === "compaction_checkpoint") {
    history.length = 0;
    history.push(...item.replacementHistory);
  } else {
    history.push(item);
  }
}

/**
 * The model-visible history that `records` describe, before normalization.
 *
 * @example
 * ```ts
 * import { replayHistory } from "./_replay.ts";
 * import { makeRecord } from "../record/mod.ts";
 * const history = replayHistory([
 *   makeRecord("response_item", { type: "message", role: "user", content: "hi" }),
 * ]);
 * console.assert(history.length === 1);
 * ```
 */
export function replayHistory(
  records: Iterable<SessionRecord>,
  start: readonly ResponseItem[] = [],
): ResponseItem[] {
  const history = [...start];
  for (const record of records) replayRecord(history, record);
  return history;
}
