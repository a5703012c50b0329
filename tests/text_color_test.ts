import fc from "fast-check";
import assert from "node:assert/strict";
import { styleText } from "node:util";
import { painter, type Style } from "../src/text/mod.ts";

const STYLES: Style[] = ["bold", "dim", "red", "green", "yellow", "blue", "magenta", "cyan"];
// Text with every style's open and close codes in it, as text painted twice has.
const PIECES = ["a", " ", "é", "\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[22m", "\x1b[31m", "\x1b[39m"];

Deno.test("painter() paints as node:util styleText does, codes inside the text included", () => {
  const paint = painter(true);
  fc.assert(
    fc.property(
      fc.constantFrom(...STYLES),
      fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((parts) => parts.join("")),
      (style, text) => {
        assert.equal(paint(style, text), styleText(style, text, { validateStream: false }));
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("painter() leaves the text as it is with colour off", () => {
  assert.equal(painter(false)("bold", "a\x1b[22m"), "a\x1b[22m");
});
