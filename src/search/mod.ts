/**
 * Finds sessions by what was said in them: words, phrases or a pattern searched in the
 * conversations of turnlog's store and of every other tool's home (Codex CLI, Claude Code,
 * Gemini CLI), streamed, with a byte prefilter so that a line that cannot match is never parsed; hits come per session, most
 * recently written first, with the session's own facts.
 *
 * @module
 */
export * from "./_query.ts";
export * from "./_order.ts";
export * from "./_snippet.ts";
export * from "./_sources.ts";
export * from "./_search.ts";
export * from "./_render.ts";
export { searchProfile } from "./_profiles.ts";
export type { SearchProfile } from "./_profile.ts";
export type { HeadFacts, HitRole, SessionFiles } from "../formats/mod.ts";
