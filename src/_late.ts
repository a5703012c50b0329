/**
 * A module imported when a command gets to it, out of Deno's sight at start: Deno reads (and
 * analyses) every module an `import("...")` names, and all they import, before the program's
 * first line runs, whether or not it ever runs that `import`; a module named by a URL built at
 * run time is read when it is imported and not before. A command's lean start (a listing or a
 * search answered from the catalog) names the modules of its other paths this way: 316 modules
 * were read at the start of `inspect --claude`, 80 of them run.
 *
 * The price: Deno asks for read permission on a module it did not see at start, so a command
 * run with `--allow-read` of some folders alone must be given turnlog's own too
 * (cli/_permissions.ts names it).
 *
 * @module
 */

/**
 * Imports the module at `specifier`, relative to `base` (the importer's `import.meta.url`),
 * typed as the importer says (`typeof import("...")`, which Deno does not read at start).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { late } from "./_late.ts";
 * const { plural } = await late<typeof import("./text/mod.ts")>("./text/mod.ts", import.meta.url);
 * assert.equal(plural(2, "turn"), "2 turns");
 * ```
 */
export function late<T>(specifier: string, base: string): Promise<T> {
  return import(new URL(specifier, base).href);
}
