/**
 * turnlog: turns an agent's JSONL session log into a conversation that can be continued,
 * inspected and repaired.
 *
 * @module
 */
export * from "./record/mod.ts";
export * from "./io/mod.ts";
export * from "./history/mod.ts";
export * from "./store/mod.ts";
export * from "./compaction/mod.ts";
export * from "./resume/mod.ts";
