/**
 * Context compaction's pure parts: when to compact, what the summary call reads, the
 * replacement history and the checkpoint record that stores it. The runtime owns the model
 * call and the append; nothing here does I/O.
 *
 * @module
 */
export * from "./_tokens.ts";
export * from "./_threshold.ts";
export * from "./_summary.ts";
export {
  type CompactedHistory,
  compactHistory,
  type CompactOptions,
  DEFAULT_USER_BUDGET_TOKENS,
  makeCheckpoint,
} from "./_transform.ts";
