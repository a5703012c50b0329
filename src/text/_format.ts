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

/** `n` in `width` digits, zeros in front. */
const digits = (n: number, width: number) => String(n).padStart(width, "0");

/** The last ms of year 9999: past it, `toISOString` writes six digits and a sign. */
const LAST_FOUR_DIGIT_YEAR = 253402300799999;

/**
 * `new Date(ms).toISOString()`, by arithmetic for a whole number of ms from 1970 to the year
 * 9999 (the days to a date as Howard Hinnant's `civil_from_days`): a process's first
 * `toISOString` costs about 1 ms, V8 setting up its dates (a listing writes each session's
 * file time so). Any other `ms` goes to `toISOString` itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isoTime } from "./mod.ts";
 * assert.equal(isoTime(1796522353819), "2026-12-06T01:59:13.819Z");
 * assert.equal(isoTime(951782400000), new Date(951782400000).toISOString());
 * ```
 */
export function isoTime(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR) {
    return new Date(ms).toISOString();
  }
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra -
    (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shifted = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shifted + 2) / 5) + 1;
  const month = shifted < 10 ? shifted + 3 : shifted - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${digits(year, 4)}-${digits(month, 2)}-${digits(day, 2)}T${digits(hours, 2)}:` +
    `${digits(minutes, 2)}:${digits(seconds, 2)}.${digits(rest - seconds * 1000, 3)}Z`;
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
