/**
 * The readers' times as numbers (`msOfIsoTime`): it answers as `Date.parse` checked by
 * `toISOString` does, for real times' strings and strings near the ISO shape.
 */
import fc from "fast-check";
import { assertEquals } from "./_assert.ts";
import { msOfIsoTime } from "../src/formats/_times.ts";

/** What the readers did before: the time of a string `toISOString` writes back the same. */
function byDate(time: string): number {
  const ms = Date.parse(time);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === time ? ms : NaN;
}

const usualMs = fc.integer({ min: -1000, max: 253_402_300_800_000 + 1000 });

/** A string of the ISO shape with each field anywhere from 0 to its digits' largest. */
const isoShaped = fc.tuple(
  fc.nat(9999),
  fc.nat(99),
  fc.nat(99),
  fc.nat(99),
  fc.nat(99),
  fc.nat(99),
  fc.nat(999),
).map(([y, mo, d, h, mi, s, ms]) => {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${String(y).padStart(4, "0")}-${two(mo)}-${two(d)}T${two(h)}:${two(mi)}:${two(s)}.${
    String(ms).padStart(3, "0")
  }Z`;
});

/** A string one character away from a real time's ISO string. */
const nearIso = fc.tuple(usualMs, fc.nat(23), fc.string({ unit: "binary", maxLength: 1 })).map(
  ([ms, at, put]) => {
    const text = new Date(ms).toISOString();
    return text.slice(0, at) + put + text.slice(at + 1);
  },
);

Deno.test("msOfIsoTime gives the time of a string toISOString writes back the same, else NaN", () => {
  fc.assert(
    fc.property(
      fc.oneof(usualMs.map((ms) => new Date(ms).toISOString()), isoShaped, nearIso, fc.string()),
      (time) => {
        assertEquals(msOfIsoTime(time), byDate(time));
      },
    ),
    { numRuns: 20_000 },
  );
  for (
    const time of [
      "2024-02-29T00:00:00.000Z",
      "2023-02-29T00:00:00.000Z",
      "2000-02-29T12:00:00.000Z",
      "1900-02-29T12:00:00.000Z",
      "0000-01-01T00:00:00.000Z",
      "2026-01-23T24:00:00.000Z",
      "2026-01-23T17:00:00.000+00:00",
      "2026-01-23T17:00:00Z",
    ]
  ) {
    assertEquals(msOfIsoTime(time), byDate(time), time);
  }
});
