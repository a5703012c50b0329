// The charts first, so that Plot loads here under the stand-in formatter (tests/charts_test.ts
// loads Plot before the charts).
import { historySizeChart, recordsPerTurnChart } from "../src/charts/mod.ts";
import { PlainNumberFormat } from "../src/charts/_number_format.ts";
import { assert, assertEquals } from "./_assert.ts";

/** How V8 prints `Intl.NumberFormat` itself; a function written in JavaScript prints its source. */
const NATIVE_NUMBER_FORMAT = "function NumberFormat() { [native code] }";

const NUMBERS = [0, -0, 7, -7, 999, 1000, 12345, -1234567, 2 ** 53 + 2, 1.5, -0.25, 1e21, NaN];

Deno.test("PlainNumberFormat writes what Intl.NumberFormat writes for en-US", () => {
  const real = new Intl.NumberFormat("en-US");
  const plain = new (PlainNumberFormat as unknown as typeof Intl.NumberFormat)("en-US");
  for (const n of [...NUMBERS, Infinity, -Infinity]) {
    assertEquals(plain.format(n), real.format(n), String(n));
  }
  assertEquals(plain.format(12345678901234567890n), real.format(12345678901234567890n));
});

Deno.test("PlainNumberFormat is a real formatter for another locale or with options", () => {
  const make = PlainNumberFormat as unknown as typeof Intl.NumberFormat;
  // The real constructor itself, not a subclass or a stand-in that `instanceof` would also pass.
  const german = new make("de-DE");
  assertEquals(Object.getPrototypeOf(german), Intl.NumberFormat.prototype);
  assertEquals(german.constructor, Intl.NumberFormat);
  assertEquals(Function.prototype.toString.call(german.constructor), NATIVE_NUMBER_FORMAT);
  assertEquals(new make("de-DE").format(12345.5), "12.345,5");
  assertEquals(new make("en-US", { style: "percent" }).format(0.5), "50%");
});

Deno.test("the charts leave Intl.NumberFormat real once Plot has loaded", () => {
  // Intl's own constructor (native code), not the stand-in nor anything made from it.
  assert(Intl.NumberFormat !== (PlainNumberFormat as unknown));
  assertEquals(Function.prototype.toString.call(Intl.NumberFormat), NATIVE_NUMBER_FORMAT);
  const formatter = new Intl.NumberFormat("en-US");
  assertEquals(Object.getPrototypeOf(formatter), Intl.NumberFormat.prototype);
  assertEquals(formatter.constructor, Intl.NumberFormat);
  assertEquals(formatter.formatToParts(1).length, 1);
});

Deno.test("the charts write their values with thousands separators, as Plot does", () => {
  const history = historySizeChart([{ turn: 1, items: 12345, moment: "end of turn" }]);
  assert(history.includes(">12,345</text>"), "the history's value");
  const records = recordsPerTurnChart([{ turn: 1, kind: "message", count: 1234567 }]);
  assert(records.includes(">1,234,567</text>"), "the bar's total");
});
