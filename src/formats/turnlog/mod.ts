/**
 * turnlog's own session format as an adapter ({@linkcode turnlogAdapter}): told from a line's
 * shape or the file's name, read into its records, its head read in one place.
 *
 * @module
 */
export * from "./_adapter.ts";
export { TURN_CONTEXT_MARK, type TurnlogHead, TurnlogHeadReader } from "./_head.ts";
