/**
 * Claude Code transcripts: the active branch read into turnlog records and turns, forks and
 * subagents reported, and transcripts found where Claude Code keeps them.
 * {@linkcode claudeCodeAdapter} is the format as the rest of turnlog sees it (the registry
 * lists it); the reader and the finders it wraps stay exported for the library's users.
 *
 * @module
 */
export * from "./_adapter.ts";
export * from "./_facts.ts";
export * from "./_transcript.ts";
export * from "./_find.ts";
export * from "./_writer.ts";
export { claudeProjectFolder } from "./_relocate.ts";
