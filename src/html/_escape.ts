/**
 * Text from a session file made safe and short for a page: escaping, visible control
 * characters, clipping with the full size kept, and the few number and time formats the
 * pages share. Pure.
 *
 * @module
 */

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
 * import { escapeHtml } from "./_escape.ts";
 * console.assert(escapeHtml(`<img src=x onerror="a()">`) ===
 *   "&lt;img src=x onerror=&quot;a()&quot;&gt;");
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
  const line = end === -1 ? trimmed : trimmed.slice(0, end);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `12345` as `12,345`. */
export const formatNumber = (n: number): string => n.toLocaleString("en-US");

/** `3 turns`, `1 turn`. */
export const plural = (n: number, word: string): string =>
  `${formatNumber(n)} ${word}${n === 1 ? "" : "s"}`;

/** A byte count in the unit a person reads: `812 bytes`, `4.2 KiB`, `101.3 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return plural(bytes, "byte");
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** `2026-11-30T10:00:00.123Z` as `2026-11-30 10:00:00Z`; anything else as it is. */
export function formatTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

/** The message of a problem without its `path:line: ` prefix, for a row that shows the line. */
export function withoutLocation(message: string, line: number): string {
  const marker = `:${line}: `;
  const at = message.indexOf(marker);
  return at === -1 ? message : message.slice(at + marker.length);
}
