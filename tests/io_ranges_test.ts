/**
 * LineRanges: the lines at byte ranges an earlier pass found are the lines a forward read
 * gives (text, terminator, CRLF, a last line without a newline), whatever the block size.
 */
import fc from "fast-check";
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { type Line, LineRanges, readLines } from "../src/io/mod.ts";

Deno.test("LineRanges reads the lines a forward read gives, across blocks", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "lines.jsonl");
  const text = '{"a":1}\n{"b":"\u00e9t\u00e9"}\r\n\n' + "x".repeat(50) + '\n{"c":"no newline"}';
  await Deno.writeTextFile(path, text);
  const forward: Line[] = [];
  for await (const line of readLines(path)) forward.push(line);
  for (const blockSize of [1, 7, 64, 1 << 20]) {
    using ranges = LineRanges.open(path, blockSize);
    // Every other line too: a range may skip lines.
    assertEquals(forward.map((line) => ranges.line(line)), forward, `block ${blockSize}`);
    using some = LineRanges.open(path, blockSize);
    const odd = forward.filter((_, at) => at % 2 === 1);
    assertEquals(odd.map((line) => some.line(line)), odd, `block ${blockSize}, every other line`);
  }
});

Deno.test("LineRanges gives any lines asked for in order as a forward read does, any bytes", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "random.jsonl");
  const pieces = [
    [10],
    [13, 10],
    [0xef, 0xbb, 0xbf],
    [0xc3, 0xa9],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xf0, 0x9f],
    [0x80],
    [0x61],
    [0x61, 0x62, 0x63, 0x64],
  ];
  const file = fc.array(fc.constantFrom(...pieces), { maxLength: 120 }).map((parts) =>
    new Uint8Array(parts.flat())
  );
  await fc.assert(
    fc.asyncProperty(file, fc.integer({ min: 1, max: 64 }), fc.nat(), async (bytes, size, pick) => {
      await Deno.writeFile(path, bytes);
      const forward: Line[] = [];
      for await (const line of readLines(path)) forward.push(line);
      // Some of the lines, in order, chosen by the bits of `pick`.
      const asked = forward.filter((_, at) => at % 31 === 0 || ((pick >> at % 31) & 1) === 1);
      using ranges = LineRanges.open(path, size);
      assertEquals(asked.map((line) => ranges.line(line)), asked);
    }),
    { numRuns: 300 },
  );
});

Deno.test("LineRanges reads lines across its decoded slices, in a large file", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "large.jsonl");
  const lines = Array.from(
    { length: 3000 },
    (_, i) => `{"n":${i},"t":"${(i % 7 === 0 ? "\u00e9t\u00e9 " : "ab ").repeat(i % 97)}"}`,
  );
  lines[1500] = "x".repeat(50_000);
  await Deno.writeTextFile(path, lines.join("\r\n") + "\n");
  const forward: Line[] = [];
  for await (const line of readLines(path)) forward.push(line);
  for (const step of [1, 2, 5]) {
    using ranges = LineRanges.open(path);
    const asked = forward.filter((_, at) => at % step === 0);
    assertEquals(asked.map((line) => ranges.line(line)), asked, `every ${step}`);
  }
});
