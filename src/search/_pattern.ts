/**
 * The bound on a search's regular expression: JavaScript's engine backtracks, and a repetition
 * nested in a repeated group (`(a+)+$`, `(\w*\s?)*x`) can take exponential time on one short
 * line, so a search would never answer. Such a pattern is refused before any line is read,
 * the message naming the part given up; every other pattern runs as it is.
 *
 * @module
 */

/** A repeated group whose content repeats too, as the pattern writes them. */
export interface NestedRepetition {
  /** The repeated group with its quantifier: `(a+)+`. */
  group: string;
  /** The repetition inside it: `a+`. */
  inner: string;
}

/** Where a quantifier starts at `at`, and where it ends; null when none does. */
function quantifierAt(source: string, at: number): { end: number; unbounded: boolean } | null {
  const c = source[at];
  if (c === "*" || c === "+") return { end: lazyEnd(source, at + 1), unbounded: true };
  if (c === "?") return { end: lazyEnd(source, at + 1), unbounded: false };
  if (c === "{") {
    const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(at));
    if (!match) return null;
    const unbounded = match[2] !== undefined && (match[3] === "" || Number(match[3]) > 16);
    return { end: lazyEnd(source, at + match[0].length), unbounded };
  }
  return null;
}

/** Past a quantifier's lazy (`?`) or possessive-looking suffix. */
const lazyEnd = (source: string, at: number) => (source[at] === "?" ? at + 1 : at);

/** Past the atom starting at `at` that is not a group: an escape, a class, a character. */
function atomEnd(source: string, at: number): number {
  if (source[at] === "\\") return at + 2;
  if (source[at] === "[") {
    let i = at + 1;
    if (source[i] === "^") i++;
    if (source[i] === "]") i++;
    while (i < source.length && source[i] !== "]") i += source[i] === "\\" ? 2 : 1;
    return i + 1;
  }
  return at + 1;
}

/**
 * The first repeated group of `source` (a JavaScript regular expression's source) that holds
 * an unbounded repetition, or undefined when there is none: the patterns that can backtrack
 * exponentially on one line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nestedRepetition } from "./mod.ts";
 * assert.deepEqual(nestedRepetition("(a+)+$"), { group: "(a+)+", inner: "a+" });
 * assert.deepEqual(nestedRepetition("^(?:\\w+\\s?)*x"), { group: "(?:\\w+\\s?)*", inner: "\\w+" });
 * assert.equal(nestedRepetition("read_file\\(.*\\)"), undefined);
 * assert.equal(nestedRepetition("(ab)+c*"), undefined);
 * assert.equal(nestedRepetition("[(a+)+]"), undefined);
 * ```
 */
export function nestedRepetition(source: string): NestedRepetition | undefined {
  /** Open groups: where each starts, and the first unbounded repetition inside it. */
  const open: { start: number; inner: string | undefined }[] = [];
  let at = 0;
  while (at < source.length) {
    const c = source[at]!;
    if (c === "(") {
      open.push({ start: at, inner: undefined });
      at++;
      continue;
    }
    if (c === ")") {
      const group = open.pop();
      const quantifier = quantifierAt(source, at + 1);
      const end = quantifier?.end ?? at + 1;
      if (group && quantifier?.unbounded && group.inner !== undefined) {
        return { group: source.slice(group.start, end), inner: group.inner };
      }
      // The group repeats: it is a repetition of every group around it.
      if (group && quantifier?.unbounded) {
        const outer = open.at(-1);
        if (outer && outer.inner === undefined) outer.inner = source.slice(group.start, end);
      } else if (group?.inner !== undefined) {
        const outer = open.at(-1);
        if (outer && outer.inner === undefined) outer.inner = group.inner;
      }
      at = end;
      continue;
    }
    if (c === "|" || c === "^" || c === "$") {
      at++;
      continue;
    }
    const atom = atomEnd(source, at);
    const quantifier = quantifierAt(source, atom);
    if (quantifier?.unbounded) {
      const outer = open.at(-1);
      if (outer && outer.inner === undefined) outer.inner = source.slice(at, quantifier.end);
    }
    at = quantifier?.end ?? atom;
  }
  return undefined;
}
