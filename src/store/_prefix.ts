/**
 * Short id prefixes: how many characters two ids share, and the shortest prefix of an id its
 * neighbours in id order do not share.
 *
 * @module
 */

/**
 * The length of the longest common prefix of two strings.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { commonPrefixLength } from "./mod.ts";
 * assert.equal(commonPrefixLength("0199a1", "0199b2"), 4);
 * ```
 */
export function commonPrefixLength(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/**
 * The shortest prefix of `id`, at least `min` characters and not ending in `-`, that none of
 * its neighbours in id order shares; the whole id when no shorter one does.
 */
export function prefixBeside(id: string, neighbours: (string | null)[], min: number): string {
  let shared = 0;
  for (const other of neighbours) {
    if (other !== null) shared = Math.max(shared, commonPrefixLength(other, id));
  }
  for (let length = Math.max(Math.min(min, id.length), shared + 1); length < id.length; length++) {
    if (!id.slice(0, length).endsWith("-")) return id.slice(0, length);
  }
  return id;
}
