/**
 * Text for people: shell quoting of printed commands.
 *
 * @module
 */
export * from "./_shell.ts";
