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
 * import assert from "node:assert/strict";
 * import { formatNumber } from "./mod.ts";
 * assert.deepEqual(formatNumber(12345), "12,345");
 * ```
 */
export function formatNumber(n: number): string {
  if (Number.isSafeInteger(n) && !Object.is(n, -0)) {
    // A whole number needs no formatter: making the first one costs a command about 10 ms.
    const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ",");
    return n < 0 ? `-${digits}` : digits;
  }
  return (numbers ??= new Intl.NumberFormat("en-US")).format(n);
}

// One formatter for every number, made when first needed: toLocaleString builds one per
// call, slow in a table of 100,000 rows.
let numbers: Intl.NumberFormat | undefined;

/**
 * A count and its noun, the noun in the plural unless the count is 1: `3 records`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { plural } from "./mod.ts";
 * assert.deepEqual(plural(1, "turn"), "1 turn");
 * assert.deepEqual(plural(1200, "record"), "1,200 records");
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
 * import assert from "node:assert/strict";
 * import { formatBytes } from "./mod.ts";
 * assert.deepEqual(formatBytes(512), "512 bytes");
 * assert.deepEqual(formatBytes(1536), "1.5 KiB");
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
 * `2026-11-30 10:00:00Z`; the epoch itself (the time a reader gives a record its file dated
 * nowhere) as `no time`; any other text comes back as it is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatTime } from "./mod.ts";
 * assert.deepEqual(formatTime("2026-11-30T10:00:00.123Z"), "2026-11-30 10:00:00Z");
 * assert.deepEqual(formatTime("1970-01-01T00:00:00.000Z"), "no time");
 * ```
 */
export function formatTime(iso: string): string {
  if (/^1970-01-01T00:00:00(?:\.0+)?Z$/.test(iso)) return "no time";
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

/**
 * The width of each column of a table: its title's or its longest cell's, whichever is wider.
 * A loop, not a spread into `Math.max`, so a table of any number of rows fits the stack.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { columnWidths } from "./mod.ts";
 * assert.deepEqual(columnWidths(["id", "n"], [["a", "1234"], ["abc", "5"]]), [3, 4]);
 * ```
 */
export function columnWidths(
  titles: readonly string[],
  rows: Iterable<readonly string[]>,
): number[] {
  const widths = titles.map((title) => title.length);
  for (const row of rows) {
    row.forEach((cell, i) => {
      if (i < widths.length && cell.length > widths[i]!) widths[i] = cell.length;
    });
  }
  return widths;
}
