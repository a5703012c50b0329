/**
 * Codex CLI rollouts: read into turnlog records and turns, and found where Codex keeps them.
 *
 * @module
 */
export * from "./_reader.ts";
export * from "./_find.ts";
