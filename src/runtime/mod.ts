/**
 * The runtime: agent turns over `npm:openai` (Responses or Chat Completions, streaming), with
 * workspace tools, approvals and typed events.
 *
 * @module
 */
export * from "./_events.ts";
export * from "./_wire.ts";
export * from "./_turn.ts";
export * from "./_connect.ts";
export * from "./_compactor.ts";
export * from "./_approvals.ts";
