/**
 * The model-visible history: a session file read into records, replayed from its last
 * compaction checkpoint, and normalized so that every tool call has exactly one output.
 *
 * @module
 */
export * from "./_read.ts";
export * from "./_checkpoint.ts";
export * from "./_tail.ts";
export * from "./_replay.ts";
export * from "./_session_replay.ts";
export * from "./_normalize.ts";
