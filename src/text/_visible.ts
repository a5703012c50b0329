/**
 * Session text made safe for a terminal, in one place: every byte of a session file that could
 * drive the terminal it is printed on (C0 controls, ESC, CR, DEL, C1, bidirectional overrides
 * and isolates) is shown escaped, as a fact about the file, never applied.
 *
 * @module
 */

/**
 * What a terminal or a page must never receive raw from a session: C0 controls but tab and
 * newline, DEL, C1, the bidi embeddings and overrides (U+202A-U+202E), the bidi isolates
 * (U+2066-U+2069) and the line and paragraph separators (U+2028, U+2029).
 */
// deno-lint-ignore no-control-regex
export const UNSAFE_CHARACTERS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]/g;

/** Bidi controls only: the ones a page marks as well as escapes. */
export const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * The visible escape of one unsafe character: `\x1b` for a byte-sized one, `\u202e` above.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeCharacter } from "./mod.ts";
 * assert.deepEqual(escapeCharacter("\x1b"), "\\x1b");
 * assert.deepEqual(escapeCharacter("\u202e"), "\\u202e");
 * ```
 */
export function escapeCharacter(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * Text with its unsafe characters ({@linkcode UNSAFE_CHARACTERS}) shown escaped and tabs as
 * two spaces, so that no byte of a session file can drive the terminal it is printed on.
 * Newlines stay.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { visible } from "./mod.ts";
 * assert.deepEqual(visible("a\x1b[31mb\r"), "a\\x1b[31mb\\x0d");
 * assert.deepEqual(visible("\u202eabc\u2066"), "\\u202eabc\\u2066");
 * assert.deepEqual(visible("a\tb\nc"), "a  b\nc");
 * ```
 */
export function visible(text: string): string {
  return text.replace(/\t/g, "  ").replace(UNSAFE_CHARACTERS, escapeCharacter);
}

/**
 * `JSON.stringify` for a terminal: the same JSON value, with every unsafe character that JSON
 * leaves raw (DEL, C1, bidi controls, U+2028/U+2029) written as a `\uXXXX` escape instead.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { visibleJson } from "./mod.ts";
 * const json = visibleJson({ id: "a\u202e\x9b\x1b" });
 * assert.deepEqual(json, '{"id":"a\\u202e\\u009b\\u001b"}');
 * assert.deepEqual(JSON.parse(json), { id: "a\u202e\x9b\x1b" });
 * ```
 */
export function visibleJson(value: unknown, space?: number): string {
  // Outside strings JSON holds none of these characters, and inside one a \u escape is the same.
  return JSON.stringify(value, null, space).replace(
    UNSAFE_CHARACTERS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
