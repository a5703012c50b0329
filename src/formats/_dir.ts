/**
 * A folder's entries, or none when it is not there: what a walk of sessions from names alone
 * needs of the file system, in a module of its own so a walk loads nothing of the heads' reading
 * (`_head.ts`, which re-exports it, and io's line reader behind it).
 *
 * @module
 */

/**
 * The entries of a folder, or none when it does not exist. Listed synchronously: a folder's
 * listing is a system call or two, less than the trip to Deno's I/O thread and back an
 * asynchronous one takes (a walk of a home lists dozens of folders).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dirEntries } from "./_dir.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/a.jsonl`, "");
 * assert.deepEqual((await dirEntries(dir)).map((entry) => entry.name), ["a.jsonl"]);
 * assert.deepEqual(await dirEntries(`${dir}/none`), []);
 * ```
 */
export function dirEntries(dir: string): Promise<Deno.DirEntry[]> {
  const found: Deno.DirEntry[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) found.push(entry);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return Promise.resolve([]);
    }
    return Promise.reject(error);
  }
  return Promise.resolve(found);
}
