/**
 * Every session file turnlog reads (its own, Codex CLI rollouts, Claude Code transcripts,
 * Gemini CLI sessions) through one adapter per format ({@linkcode FormatAdapter}), listed in
 * one registry ({@linkcode FORMATS}, {@linkcode ADAPTERS}); no tool's reader is exported by
 * name. The format told from the head, the file read streaming into turnlog records that carry
 * the lines they came from, what turnlog's model cannot hold counted by kind, the facts an
 * inspector shows first, each tool's check and repair plan.
 *
 * @module
 */
export * from "./_types.ts";
export * from "./_usage.ts";
export * from "./_usage_columns.ts";
export * from "./_drift.ts";
export * from "./_adapter.ts";
export * from "./_search.ts";
export * from "./_writer.ts";
export * from "./_follow.ts";
// What a follower's last `stat` knew of its file's clock (`statFollowed`'s `earlier`).
export type { ClockSeen } from "../_tick.ts";
export * from "./_resume.ts";
export type { Relocation } from "./_relocate.ts";
export * from "./registry.ts";
export * from "./homes.ts";
export * from "./_detect.ts";
export * from "./_read.ts";
export * from "./_find.ts";
export * from "./_sources.ts";
export * from "./_validate.ts";
export * from "./_repair_types.ts";
export type { BadLineKind, LineLinks, LineRules } from "./_view.ts";
export type { LineObserver, ParsedLine } from "./_line.ts";
export { lastFieldOf, PREVIEW_HEAD_BYTES, scanHead, TAIL_BYTES } from "./_head.ts";
