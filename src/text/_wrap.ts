/**
 * Words wrapped into lines for a terminal's help text.
 *
 * @module
 */

/**
 * The text's words wrapped into lines of at most `columns` characters (a longer word stands
 * alone), the first line after `first`, the others after `indent`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { wrapWords } from "./mod.ts";
 * assert.equal(wrapWords("one two three", 9), "one two\nthree");
 * ```
 */
export function wrapWords(text: string, columns: number, first = "", indent = ""): string {
  const lines = [first];
  let fresh = true;
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const last = lines.length - 1;
    if (!fresh && lines[last]!.length + 1 + word.length > columns) {
      lines.push(indent + word);
    } else lines[last] += (fresh ? "" : " ") + word;
    fresh = false;
  }
  return lines.join("\n");
}
