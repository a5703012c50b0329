/**
 * Numbers, sizes and times written for people, the same way in every view.
 *
 * @module
 */

/**
 * A whole number with thousands separators: `12,345`.
 *
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * import { formatNumber } from "./_format.ts";
 * assertEquals(formatNumber(12345), "12,345");
 * ```
 */
export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * A count and its noun, the noun in the plural unless the count is 1: `3 records`.
 *
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * import { plural } from "./_format.ts";
 * assertEquals(plural(1, "turn"), "1 turn");
 * assertEquals(plural(1200, "record"), "1,200 records");
 * ```
 */
export function plural(n: number, word: string): string {
  return `${formatNumber(n)} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * A size in bytes, in binary units above 1 KiB: `12.3 MiB`.
 *
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * import { formatBytes } from "./_format.ts";
 * assertEquals(formatBytes(512), "512 bytes");
 * assertEquals(formatBytes(1536), "1.5 KiB");
 * ```
 */
export function formatBytes(bytes: number): string {
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

/**
 * An ISO 8601 UTC time to the second, readable: `2026-11-30T10:00:00.123Z` as
 * `2026-11-30 10:00:00Z`; any other text comes back as it is.
 *
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * import { formatTime } from "./_format.ts";
 * assertEquals(formatTime("2026-11-30T10:00:00.123Z"), "2026-11-30 10:00:00Z");
 * ```
 */
export function formatTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;

/**
 * Text with its control characters made visible (`\x1b`) and tabs as two spaces, so that no
 * byte of a session file can drive the terminal it is printed on. Newlines stay.
 *
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * import { visible } from "./_format.ts";
 * assertEquals(visible("a\x1b[31mb"), "a\\x1b[31mb");
 * ```
 */
export function visible(text: string): string {
  return text.replace(/\t/g, "  ").replace(
    CONTROL,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}
