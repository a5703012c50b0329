/**
 * Text put in the order English's `localeCompare` gives (the root collation's), without its
 * collator where the order of code units is the same: the first `localeCompare` of a process
 * loads ICU's collation, 10 to 50 ms of a command's start (a warm search of a Codex home sorted
 * its rollouts' names with it).
 *
 * @module
 */

/**
 * Whether every character of `text` from `at` on is one whose order under `localeCompare`
 * (the root collation) is its code unit's: `-`, `.`, `/`, the digits and the small letters,
 * which the root collation orders `- . / 0-9 a-z` at its first level, each alone, with no
 * accent or case to weigh at the others.
 */
function plainFrom(text: string, at: number): boolean {
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x2d && c <= 0x39) || (c >= 0x61 && c <= 0x7a))) return false;
  }
  return true;
}

/**
 * The sign of `a.localeCompare(b, "en")`, to the last case: where the two texts hold only `-`,
 * `.`, `/`, digits and small letters from where they first differ, by their code units (a
 * shared start weighs the same in both at every level of the collation), else by
 * `localeCompare` itself. English's order, whatever the process' locale: a name's place does
 * not move with the machine.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compareLikeLocale } from "./_order.ts";
 * const names = ["rollout-2026-02-23T12-00-00-019c.jsonl", "rollout-2026-02-23T10-00-00-01a.jsonl"];
 * const english = (a: string, b: string) => a.localeCompare(b, "en");
 * assert.deepEqual(names.toSorted(compareLikeLocale), names.toSorted(english));
 * assert.equal(compareLikeLocale("a-B", "a-b"), 1);
 * ```
 */
export function compareLikeLocale(a: string, b: string): number {
  let at = 0;
  while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  if (!plainFrom(a, at) || !plainFrom(b, at)) return Math.sign(a.localeCompare(b, "en"));
  return a.length === b.length && at === a.length ? 0 : a < b ? -1 : 1;
}
