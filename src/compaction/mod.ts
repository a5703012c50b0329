/**
 * Context compaction's pure parts: when to compact, what the summary call reads, the
 * replacement history and the checkpoint record that stores it.
 *
 * @module
 */
export * from "./_compaction.ts";
