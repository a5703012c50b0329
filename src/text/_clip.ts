/**
 * Shortening text for people: one helper for every place that clips a message, an output or a
 * title, so they all cut the same way and say so the same way.
 *
 * @module
 */

/**
 * `text` when it has at most `max` characters, else its first characters and `ellipsis`,
 * `max` characters in all.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clip } from "./mod.ts";
 * assert.deepEqual(clip("abcdef", 4), "abc…");
 * assert.deepEqual(clip("abc", 4), "abc");
 * ```
 */
export function clip(text: string, max: number, ellipsis = "…"): string {
  if (text.length <= max) return text;
  return text.slice(0, Math.max(0, max - ellipsis.length)) + ellipsis;
}

/**
 * One line for a listing or a table: whitespace runs collapsed to one space, then
 * {@linkcode clip}ped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { oneLine } from "./mod.ts";
 * assert.deepEqual(oneLine("  list\n  the files  ", 9), "list the…");
 * ```
 */
export function oneLine(text: string, max = 80, ellipsis = "…"): string {
  return clip(text.replace(/\s+/g, " ").trim(), max, ellipsis);
}

/**
 * Keeps the head and the tail of a long text and says in the middle how many characters
 * went: `[... 1234 characters clipped ...]`. The result has at most `max` characters (or the
 * marker alone when `max` is smaller than it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clipMiddle } from "./mod.ts";
 * const clipped = clipMiddle("a".repeat(500) + "z".repeat(500), 100);
 * assert(clipped.startsWith("a") && clipped.endsWith("z") && clipped.length <= 100);
 * ```
 */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => `\n[... ${cut} characters clipped ...]\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  return text.slice(0, head) + marker(text.length - room) + (tail > 0 ? text.slice(-tail) : "");
}

/**
 * The first `limit` characters of a text and, when it was longer, a line made by `note` from
 * the full length: for tool outputs and event payloads, where the cut must be said in words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clipWithNote } from "./mod.ts";
 * assert.deepEqual(clipWithNote("abcdef", 3, (n) => `[${n} in all]`), "abc\n[6 in all]");
 * ```
 */
export function clipWithNote(
  text: string,
  limit: number,
  note: (length: number) => string,
): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n${note(text.length)}`;
}

/**
 * At most `maxLines` lines of at most `width` characters each, and a last line saying how
 * many lines were left out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { clipLines } from "./mod.ts";
 * assert.deepEqual(clipLines("a\nb\nc", 2), "a\nb\n… (1 more line)");
 * ```
 */
export function clipLines(text: string, maxLines = 4, width = 110): string {
  const all = text.split("\n");
  const shown = all.slice(0, maxLines).map((line) => clip(line, width));
  const left = all.length - maxLines;
  if (left > 0) shown.push(`… (${left} more line${left === 1 ? "" : "s"})`);
  return shown.join("\n");
}

/**
 * A text as the views show it: without the blank lines before its first words and (unless
 * `end` is false: the text is cut short, its end is not its own) the whitespace after its
 * last (an assistant's text often starts with `\n\n`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { trimBlank } from "./mod.ts";
 * assert.equal(trimBlank("\n \n  Done.\n\n"), "  Done.");
 * ```
 */
export function trimBlank(text: string, end = true): string {
  const start = text.replace(/^(?:[ \t]*\r?\n)+/, "");
  return end ? start.trimEnd() : start;
}

/**
 * What a view shows for a text that is only whitespace: `(empty)`, or how many characters of
 * whitespace it is; undefined for a text with words.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { blankText } from "./mod.ts";
 * assert.equal(blankText("\n\n", 2), "(only whitespace: 2 chars)");
 * assert.equal(blankText("hi", 2), undefined);
 * ```
 */
export function blankText(text: string, chars: number): string | undefined {
  if (text.trim() !== "" || chars > text.length) return undefined;
  return chars === 0 ? "(empty)" : `(only whitespace: ${chars} ${chars === 1 ? "char" : "chars"})`;
}
