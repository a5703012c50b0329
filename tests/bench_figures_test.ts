import { assertEquals } from "./_assert.ts";
import { type VariantFigures, vsNaive } from "../bench/figures.ts";

const naive = { name: "naive", medianMs: 300 } as VariantFigures;

Deno.test("vsNaive shows how many times the naive way's time a variant takes", () => {
  assertEquals(vsNaive(naive, 100), { ratio: 3, shown: "3.00x naive" });
  assertEquals(vsNaive(naive, 30).shown, "10x naive");
});

Deno.test("vsNaive says the naive way failed rather than NaNx, and counts it slower", () => {
  const failed = { ...naive, medianMs: NaN, error: "Invalid string length" };
  assertEquals(vsNaive(failed, 100), { ratio: Infinity, shown: "naive failed" });
});
