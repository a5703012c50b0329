/**
 * Codex CLI rollouts: read into turnlog records and turns, and found where Codex keeps them.
 * {@linkcode codexAdapter} is the format as the rest of turnlog sees it (the registry lists
 * it); the reader and the finders it wraps stay exported for the library's users.
 *
 * @module
 */
export * from "./_adapter.ts";
export * from "./_facts.ts";
export * from "./_reader.ts";
export * from "./_find.ts";
export * from "./_writer.ts";
