import fc from "fast-check";
import { assertEquals } from "./_assert.ts";
import { compareLikeLocale } from "../src/text/mod.ts";

/** Characters of both kinds: those compared by code unit, and those the collation weighs apart. */
const CHARS = ["-", ".", "/", "0", "7", "9", "a", "f", "z", "A", "T", "Z", "_", " ", "~", "é", "$"];

const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 8 }).map((cs) => cs.join(""));

Deno.test("compareLikeLocale() gives the sign localeCompare gives in English, over generated texts that share a start", () => {
  fc.assert(
    fc.property(text, text, text, (start, a, b) => {
      const [x, y] = [start + a, start + b];
      assertEquals(compareLikeLocale(x, y), Math.sign(x.localeCompare(y, "en")), `${x} ${y}`);
    }),
    { numRuns: 20_000 },
  );
});

Deno.test("compareLikeLocale() orders Codex's rollout names as localeCompare does, small letters and case apart", () => {
  const names = [
    "rollout-2026-02-23T12-00-00-019c8a4c-0000-7000-8000-00000000001d.jsonl",
    "rollout-2026-02-23T12-00-00-019c8a4c-0000-7000-8000-000000000001.jsonl",
    "rollout-2026-02-23T12-00-00-019c8a4c-0000-7000-8000-000000000001.jsonl.zst",
    "rollout-2026-02-23T12-00-00-019C8A4C-0000-7000-8000-000000000001.jsonl",
    "rollout-2026-02-23T09-59-59-019c8a4c-0000-7000-8000-00000000002a.jsonl",
  ];
  const english = (a: string, b: string) => a.localeCompare(b, "en");
  assertEquals(names.toSorted(compareLikeLocale), names.toSorted(english));
});
