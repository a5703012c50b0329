/**
 * The JSON objects a line holds side by side: how a line of records glued together (two
 * appends that lost the newline between them) is told apart from a damaged one.
 *
 * @module
 */

/**
 * The JSON objects `text` holds side by side, each as its own text, or null when anything
 * other than blanks (and, with `nulIsBlank`, NUL bytes) stands between them, or one is cut
 * short. Strings are followed, so braces inside them do not count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { jsonObjectsIn } from "./mod.ts";
 * assert.deepEqual(jsonObjectsIn('{"a":"}"} {"b":2}'), ['{"a":"}"}', '{"b":2}']);
 * assert.equal(jsonObjectsIn('{"a":1} x'), null);
 * ```
 */
export function jsonObjectsIn(
  text: string,
  options: { nulIsBlank?: boolean } = {},
): string[] | null {
  const pieces: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      if (depth === 0) return null;
      inString = true;
    } else if (c === "{" || c === "[") {
      if (depth === 0) {
        if (c === "[") return null;
        start = i;
      }
      depth++;
    } else if (c === "}" || c === "]") {
      if (--depth < 0) return null;
      if (depth === 0) pieces.push(text.slice(start, i + 1));
    } else if (depth === 0 && !/\s/.test(c) && !(options.nulIsBlank && c === "\u0000")) {
      return null;
    }
  }
  return depth === 0 && !inString ? pieces : null;
}
