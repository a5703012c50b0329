/**
 * Resume: a session's model-visible history rebuilt from its file, and the start of a run on
 * a fresh or continued session.
 *
 * @module
 */
export * from "./_resume.ts";
