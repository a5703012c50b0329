/**
 * The runtime: agent turns over `npm:openai` (Responses or Chat Completions, streaming), with
 * workspace tools, approvals and typed events.
 *
 * @module
 */
export * from "./events.ts";
export * from "./wire.ts";
export * from "./turn.ts";
export * from "./config.ts";
export * from "./compactor.ts";
export * from "./child_turn.ts";
