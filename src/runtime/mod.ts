/**
 * The runtime: agent turns over `npm:openai` (Responses or Chat Completions, streaming), with
 * workspace tools, approvals, context compaction and typed events.
 *
 * @module
 */
export * from "./_events.ts";
export * from "./_turn.ts";
export * from "./_connect.ts";
export * from "./_compactor.ts";
export * from "./_approvals.ts";
export { EVENT_OUTPUT_LIMIT } from "./_tool_step.ts";
export { cancelledOutput } from "./_cancelled.ts";
export {
  describeError,
  type ModelRequest,
  ModelResponseError,
  type ModelRoundResult,
  type ModelStreamPart,
  uniqueCallIds,
} from "./_wire.ts";
