/**
 * The forward line reader: whatever the chunk size, each line's text is what decoding that
 * line's bytes alone gives (U+FFFD for invalid bytes, a BOM at its start dropped, no `\r\n`),
 * with its exact byte offsets, also where a character or an invalid sequence straddles two
 * chunks, a line is longer than a chunk, or the last line has no newline.
 */
import fc from "fast-check";
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { forEachLine, type Line, readLineChunks, readLines } from "../src/io/mod.ts";

/** The lines of `bytes` as a decode of each line alone gives them. */
function expectedLines(bytes: Uint8Array, firstLine = 1, offset = 0): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline + 1;
    let last = newline === -1 ? end : newline;
    if (last > start && bytes[last - 1] === 13) last--;
    lines.push({
      line: firstLine + lines.length,
      text: new TextDecoder().decode(bytes.subarray(start, last)),
      start: offset + start,
      end: offset + end,
      terminated: newline !== -1,
    });
    start = end;
  }
  return lines;
}

/** The lines of the file at `path` by each of the three ways to read them forward. */
async function readAllWays(path: string, chunkSize: number, start = 0, firstLine = 1) {
  const options = { chunkSize, start, firstLine };
  const each: Line[] = [];
  await forEachLine(path, (line) => void each.push(line), options);
  const chunked: Line[] = [];
  for await (const lines of readLineChunks(path, options)) chunked.push(...lines);
  const yielded: Line[] = [];
  for await (const line of readLines(path, options)) yielded.push(line);
  return { each, chunked, yielded };
}

const bytesOf = (...parts: (string | number[])[]) =>
  new Uint8Array(
    parts.flatMap((part) => typeof part === "string" ? [...new TextEncoder().encode(part)] : part),
  );

Deno.test("a character and an invalid byte across a chunk border decode as the line alone does", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "lines.jsonl");
  // "é" (2 bytes), "€" (3), "😀" (4), a lone continuation byte, a cut 4-byte sequence
  // before a CRLF, a BOM at a line's start, and a last line without a newline.
  const bytes = bytesOf(
    'ab"\u00e9\u20ac\u{1f600}"\n',
    "x",
    [0x80],
    "y\n",
    [0xf0, 0x9f, 0x98],
    "\r\n",
    [0xef, 0xbb, 0xbf],
    "bom\n\n",
    "tail \u00e9",
  );
  await Deno.writeFile(path, bytes);
  const expected = expectedLines(bytes);
  assertEquals(expected.map((line) => line.text), [
    'ab"\u00e9\u20ac\u{1f600}"',
    "x\ufffdy",
    "\ufffd",
    "bom",
    "",
    "tail \u00e9",
  ]);
  for (let chunkSize = 1; chunkSize <= bytes.length + 1; chunkSize++) {
    const { each, chunked, yielded } = await readAllWays(path, chunkSize);
    assertEquals(each, expected, `forEachLine, chunk ${chunkSize}`);
    assertEquals(chunked, expected, `readLineChunks, chunk ${chunkSize}`);
    assertEquals(yielded, expected, `readLines, chunk ${chunkSize}`);
  }
});

Deno.test("any bytes read in any chunk size, from any line's start, give each line's own decode", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "random.jsonl");
  const pieces = [
    [10],
    [13],
    [13, 10],
    [0xef, 0xbb, 0xbf],
    [0xc3, 0xa9],
    [0xe2, 0x82, 0xac],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xf0, 0x9f],
    [0x80],
    [0xff],
    [0x61],
    [0x7b, 0x7d],
  ];
  const file = fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((parts) =>
    new Uint8Array(parts.flat())
  );
  await fc.assert(
    fc.asyncProperty(file, fc.integer({ min: 1, max: 24 }), fc.nat(), async (bytes, size, k) => {
      await Deno.writeFile(path, bytes);
      const all = expectedLines(bytes);
      // From the start of one of its lines, numbered on from there.
      const from = all.length === 0 ? undefined : all[k % all.length]!;
      const start = from?.start ?? 0;
      const expected = expectedLines(bytes.subarray(start), from?.line ?? 1, start);
      const { each, chunked, yielded } = await readAllWays(path, size, start, from?.line ?? 1);
      assertEquals(each, expected);
      assertEquals(chunked, expected);
      assertEquals(yielded, expected);
    }),
    { numRuns: 300 },
  );
});

Deno.test("a chunk's lines decoded a slice at a time: lines across slices and longer than one", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "slices.jsonl");
  // Lines of 1 byte to 80 KiB (longer than a slice of 32 KiB), with characters of 2, 3 and 4
  // bytes and invalid bytes at every few places, so slices end on every kind of line.
  const parts: number[] = [];
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const kinds = [[0x61], [0xc3, 0xa9], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98, 0x80], [0x80], [13]];
  while (parts.length < 600_000) {
    const length = random(8) === 0 ? random(80_000) : random(700);
    for (let i = 0; i < length; i++) parts.push(...kinds[random(40) < 35 ? 0 : random(6)]!);
    parts.push(10);
  }
  const bytes = new Uint8Array(parts);
  await Deno.writeFile(path, bytes);
  const expected = expectedLines(bytes);
  for (const chunkSize of [1 << 20, 100_000, 40_000]) {
    const { each, chunked, yielded } = await readAllWays(path, chunkSize);
    assertEquals(each, expected, `forEachLine, chunk ${chunkSize}`);
    assertEquals(chunked, expected, `readLineChunks, chunk ${chunkSize}`);
    assertEquals(yielded, expected, `readLines, chunk ${chunkSize}`);
  }
});

Deno.test("a reader that stops early stops there, and one that leaves a chunk goes on after it", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "lines.jsonl");
  await Deno.writeTextFile(path, "a\nb\nc\nd\ne\n");
  const seen: string[] = [];
  await forEachLine(path, ({ text }) => seen.push(text) < 3, { chunkSize: 4 });
  assertEquals(seen, ["a", "b", "c"]);
  // Chunks of 4 bytes hold two lines each: the first line of each chunk only.
  const firsts: string[] = [];
  for await (const lines of readLineChunks(path, { chunkSize: 4 })) {
    for (const { text } of lines) {
      firsts.push(text);
      break;
    }
  }
  assertEquals(firsts, ["a", "c", "e"]);
});
