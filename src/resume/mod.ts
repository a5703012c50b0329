/**
 * Resume: a session's model-visible history rebuilt from its file (never from memory), and
 * the start of a run on a fresh or continued session.
 *
 * @module
 */
export * from "./_loaded.ts";
export * from "./_load.ts";
export * from "./_run.ts";
export * from "./_foreign.ts";
export * from "./_fork.ts";
export * from "./_policy.ts";
export * from "./_workspace.ts";
