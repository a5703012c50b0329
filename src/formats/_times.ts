/**
 * Times a reader keeps as numbers (milliseconds since 1970), taken from their ISO text without a
 * `Date`: its parse and the `toISOString` that checked it cost about 800 ns a time together,
 * which a reader paid for each response and each labeled line it kept (the text is written again
 * by `isoTime` of `src/text/`).
 *
 * @module
 */

const MS_PER_DAY = 86_400_000;

/** Days from 1970-01-01 to the given day of the proleptic Gregorian calendar (month 1-12). */
function daysOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) +
    dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const isLeap = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** Days of `month` (1-12) in `year`. */
function daysIn(year: number, month: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The value of the decimal digits of `text` from `start` to `end`, or -1. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let at = start; at < end; at++) {
    const digit = text.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** What {@linkcode msOfIsoTime} gives, by a `Date`. */
function byDate(time: string): number {
  const ms = Date.parse(time);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === time ? ms : NaN;
}

/**
 * The milliseconds since 1970 of a time written as `Date.prototype.toISOString` writes it
 * (`2026-01-23T17:00:00.000Z`), NaN for any other string: the time `Date.parse` gives when
 * `toISOString` writes that time back as the same string, and NaN when it does not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { msOfIsoTime } from "./_times.ts";
 * assert.equal(msOfIsoTime("2026-01-23T17:00:00.250Z"), Date.UTC(2026, 0, 23, 17, 0, 0, 250));
 * assert.equal(msOfIsoTime("2026-02-30T17:00:00.000Z"), NaN); // Date rolls it to 2 March
 * assert.equal(msOfIsoTime("2026-01-23T17:00:00Z"), NaN); // toISOString writes milliseconds
 * ```
 */
export function msOfIsoTime(time: string): number {
  // A year past 9999 or before 0 has six digits and a sign: rare enough for the `Date`.
  if (time.length === 27) return byDate(time);
  if (
    time.length !== 24 || time.charCodeAt(4) !== 45 || time.charCodeAt(7) !== 45 ||
    time.charCodeAt(10) !== 84 || time.charCodeAt(13) !== 58 || time.charCodeAt(16) !== 58 ||
    time.charCodeAt(19) !== 46 || time.charCodeAt(23) !== 90
  ) {
    return NaN;
  }
  const year = digits(time, 0, 4);
  const month = digits(time, 5, 7);
  const day = digits(time, 8, 10);
  const hour = digits(time, 11, 13);
  const minute = digits(time, 14, 16);
  const second = digits(time, 17, 19);
  const ms = digits(time, 20, 23);
  if (
    year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour < 0 ||
    hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || ms < 0
  ) {
    return NaN;
  }
  return daysOf(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + ms;
}
