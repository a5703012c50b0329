/**
 * Text from a session file made safe and short for a page: escaping, visible control
 * characters, and clipping with the full size kept. Numbers, sizes and times are written by
 * `src/text`, as in every view. Pure.
 *
 * @module
 */
import { clip } from "../text/mod.ts";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Escapes text for HTML, in element content and in a double- or single-quoted attribute
 * alike, so no string from a session file can become markup.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { escapeHtml } from "./_escape.ts";
 * const escaped = escapeHtml(`<img src=x onerror="a()">`);
 * assert.equal(escaped, "&lt;img src=x onerror=&quot;a()&quot;&gt;");
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Escapes text for HTML and shows control characters (but tab and newline) as `\xNN`: a
 * NUL or an escape sequence in a tool output is a fact about the file, shown, not applied.
 */
export function escapeText(text: string): string {
  return escapeHtml(
    text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`),
  );
}

/** A text cut to what a page shows, and how much of it that is. */
export interface ClippedText {
  /** What the page shows (not escaped yet). */
  shown: string;
  /** The full length of the text in the session file, in characters. */
  chars: number;
  /** Lines of what is shown. */
  lines: number;
  /** True when `shown` is shorter than the text in the file. */
  clipped: boolean;
}

/** Cuts `text` (whose full length in the file is `chars`) to at most `maxChars` characters. */
export function clipText(text: string, chars: number, maxChars: number): ClippedText {
  const shown = text.length > maxChars ? text.slice(0, maxChars) : text;
  let lines = 1;
  for (let i = shown.indexOf("\n"); i !== -1; i = shown.indexOf("\n", i + 1)) lines++;
  return { shown, chars, lines, clipped: shown.length < chars };
}

/** The first line of a text, at most `max` characters, for a one-line preview. */
export function firstLine(text: string, max: number): string {
  const trimmed = text.replace(/^\s+/, "");
  const end = trimmed.indexOf("\n");
  return clip(end === -1 ? trimmed : trimmed.slice(0, end), max);
}

/** The message of a problem without its `path:line: ` prefix, for a row that shows the line. */
export function withoutLocation(message: string, line: number): string {
  const marker = `:${line}: `;
  const at = message.indexOf(marker);
  return at === -1 ? message : message.slice(at + marker.length);
}
