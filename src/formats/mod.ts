/**
 * The session files of other tools (Codex CLI rollouts, Claude Code transcripts) read as
 * turnlog's own: one adapter per format ({@linkcode FormatAdapter}), listed in one registry
 * ({@linkcode ADAPTERS}); the format told from the head, the file read streaming into turnlog
 * records that carry the lines they came from, what turnlog's model cannot hold counted by
 * kind, the facts an inspector shows first, each tool's check and repair plan. turnlog's own
 * files come through the same interface, as the default format.
 *
 * @module
 */
export * from "./_types.ts";
export * from "./_adapter.ts";
export * from "./_search.ts";
export * from "./_writer.ts";
export * from "./registry.ts";
export * from "./_detect.ts";
export * from "./_read.ts";
export * from "./_find.ts";
export * from "./_sources.ts";
export * from "./codex/mod.ts";
export * from "./claude_code/mod.ts";
export * from "./gemini/mod.ts";
export * from "./_validate.ts";
export * from "./_repair_types.ts";
export type { BadLineKind, LineRules } from "./_view.ts";
export { lastFieldOf, PREVIEW_HEAD_BYTES, scanHead, TAIL_BYTES } from "./_head.ts";
