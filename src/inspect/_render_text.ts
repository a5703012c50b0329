/**
 * What every text view of the inspector shares: its options, the painter, and how a text from
 * a session file is shortened and made safe for a terminal.
 *
 * @module
 */
import {
  blankText,
  formatBytes,
  formatNumber,
  type Painter,
  painter,
  trimBlank,
  visible,
} from "../text/mod.ts";

/** Characters of a text the views show when `textChars` is not given. */
export const DEFAULT_TEXT_CHARS = 300;

/** Options of the renderers. */
export interface RenderOptions {
  /** ANSI colours (the CLI sets it only on a terminal without `NO_COLOR`). */
  color: boolean;
  /** Characters of a message, argument or output shown before it is shortened. */
  textChars?: number;
  /** Lines of one text shown before it is shortened. */
  textLines?: number;
  /** How the user runs turnlog's commands, in the hints: `turnlog` (default `./denow task`). */
  command?: string;
}

/**
 * Shortens `text` (whose full length is `chars`) to at most `maxChars` characters and
 * `maxLines` lines, with a note of what was left out: `… (+1234 chars)`. Blank lines before
 * its words and whitespace after them are left off (and not counted); a text of whitespace
 * only says so (`(only whitespace: 2 chars)`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shortenText } from "./mod.ts";
 * assert.deepEqual(shortenText("abcdef", 6, { maxChars: 3 }), "abc … (+3 chars)");
 * ```
 */
export function shortenText(
  text: string,
  chars: number,
  options: { maxChars?: number; maxLines?: number } = {},
): string {
  const blank = blankText(text, chars);
  if (blank !== undefined) return blank;
  const maxChars = options.maxChars ?? 300;
  const maxLines = options.maxLines ?? 6;
  // Blank lines before the words are not shown; nor is a rest of whitespace only counted as
  // left, when the text is all there to tell.
  const first = text.length > maxChars ? text.slice(0, maxChars) : text;
  let shown = trimBlank(first, false);
  const lead = first.length - shown.length;
  const lines = shown.split("\n");
  if (lines.length > maxLines) shown = lines.slice(0, maxLines).join("\n");
  shown = shown.replace(/\s+$/, "");
  const left = chars - lead - shown.length;
  const rest = text.length >= chars && text.slice(lead + shown.length).trim() === "";
  if (shown === "" && left > 0) return `(blank at first, ${formatNumber(chars)} chars)`;
  return left > 0 && !rest ? `${shown} … (+${left} chars)` : shown;
}

/** A size with its exact byte count: `1.5 KiB (1,536 bytes)`. */
export function sizeWithBytes(bytes: number): string {
  return bytes < 1024 ? formatBytes(bytes) : `${formatBytes(bytes)} (${formatNumber(bytes)} bytes)`;
}

/** The pieces every view renders with. */
export interface View {
  /** Colours text, or leaves it plain. */
  paint: Painter;
  /** A text from the session, shortened, made visible, continued lines indented. */
  text(value: string, chars: number, indent: string): string;
}

/** The view for `options`. */
export function viewOf(options: RenderOptions): View {
  return {
    paint: painter(options.color),
    text: (value, chars, indent) =>
      visible(
        shortenText(value, chars, {
          maxChars: options.textChars ?? DEFAULT_TEXT_CHARS,
          maxLines: options.textLines ?? 6,
        }),
      ).replaceAll("\n", `\n${indent}`),
  };
}
