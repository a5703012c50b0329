/**
 * Claude Code transcripts: the active branch read into turnlog records and turns, forks and
 * subagents reported, and transcripts found where Claude Code keeps them.
 *
 * @module
 */
export * from "./_transcript.ts";
export * from "./_find.ts";
