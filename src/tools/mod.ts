/**
 * The tools a run offers the model, confined to a workspace folder.
 *
 * @module
 */
export * from "./_tools.ts";
export * from "./_workspace.ts";
