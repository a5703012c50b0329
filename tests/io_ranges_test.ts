/**
 * LineRanges: the lines at byte ranges an earlier pass found are the lines a forward read
 * gives (text, terminator, CRLF, a last line without a newline), whatever the block size.
 */
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
