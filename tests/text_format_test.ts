import fc from "fast-check";
import { assertEquals } from "./_assert.ts";
import { isoTime } from "../src/text/mod.ts";

Deno.test("isoTime() writes what toISOString writes, over generated times from 1970 to 9999 and past them", () => {
  const edges = [0, 1, 951_782_400_000, 951_868_799_999, 253_402_300_799_999, 253_402_300_800_000];
  for (const ms of [...edges, -1, 1.5, -62_198_755_200_000]) {
    assertEquals(isoTime(ms), new Date(ms).toISOString(), String(ms));
  }
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 253_402_300_799_999 }), (ms) => {
      assertEquals(isoTime(ms), new Date(ms).toISOString(), String(ms));
    }),
    { numRuns: 50_000 },
  );
});
