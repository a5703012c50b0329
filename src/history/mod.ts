/**
 * The model-visible history: replayed from records, and normalized so that every tool call
 * has exactly one output.
 *
 * @module
 */
export * from "./_replay.ts";
export * from "./_normalize.ts";
