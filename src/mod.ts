/**
 * turnlog: turns an agent's JSONL session log into a conversation that can be continued,
 * inspected and repaired.
 *
 * @module
 */
export * from "./records.ts";
export * from "./ids.ts";
export * from "./lines.ts";
export * from "./reader.ts";
export * from "./quarantine.ts";
export * from "./store.ts";
export * from "./normalize.ts";
export * from "./replay.ts";
export * from "./resume.ts";
export * from "./backward.ts";
export * from "./compaction.ts";
export * from "./shell.ts";
