/**
 * The usage readers' shared loop (`forEachMarkedRecord`): the lines it hands on, their numbers
 * and the broken ones it counts are those a line-by-line read with a substring test finds, on
 * files made to cross its slices and its buffer (long lines, CRLF, a BOM, characters beyond
 * ASCII, a last line without a newline).
 */
import fc from "fast-check";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { forEachLine } from "../src/io/mod.ts";
import { forEachMarkedRecord } from "../src/formats/_usage_lines.ts";
import { noUsage } from "../src/formats/_usage.ts";

const MARKERS = ['"usage"', '"token_count"'];

/** What a line-by-line read finds: each marked line's number and value, and the broken ones. */
async function byLines(path: string) {
  const seen: [number, unknown][] = [];
  let bad = 0;
  await forEachLine(path, ({ line, text }) => {
    if (!MARKERS.some((marker) => text.includes(marker))) return;
    try {
      const value = JSON.parse(text);
      if (typeof value === "object" && value !== null && !Array.isArray(value)) {
        seen.push([line, value]);
      }
    } catch {
      bad++;
    }
  });
  return { seen, bad };
}

async function marked(path: string) {
  const usage = noUsage(null);
  const seen: [number, unknown][] = [];
  await forEachMarkedRecord(path, MARKERS, usage, (value, line) => seen.push([line, value]));
  return { seen, bad: usage.badLines };
}

/** A line of about `size` characters: marked or not, JSON or broken, `pad` repeated. */
const lineOf = (kind: number, size: number, pad: string) => {
  const filler = pad.repeat(Math.ceil(size / pad.length));
  switch (kind) {
    case 0:
      return JSON.stringify({ type: "other", text: filler });
    case 1:
      return JSON.stringify({ text: filler, message: { usage: { input_tokens: size } } });
    case 2:
      return `{"type":"event_msg","payload":{"type":"token_count"},"text":"${filler}"`;
    case 3:
      return JSON.stringify({ quoted: `say "usage" and ${filler}` });
    default:
      return JSON.stringify(["usage", filler]);
  }
};

Deno.test("forEachMarkedRecord() hands on the marked lines a line-by-line read finds, with their numbers, across slices, a long line, CRLF, a BOM and a last line with no newline", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/session.jsonl`;
  const lines = [
    lineOf(1, 10, "a"),
    "",
    lineOf(0, 40_000, "b"),
    `\uFEFF${lineOf(1, 20, "é")}`,
    `${lineOf(2, 5, "c")}\r`,
    lineOf(1, 1_500_000, "d"),
    lineOf(3, 100, "ü"),
    lineOf(4, 10, "e"),
    lineOf(0, 70_000, "漢"),
    lineOf(1, 30, "f"),
  ];
  await Deno.writeTextFile(path, lines.join("\n"));
  const got = await marked(path);
  assertEquals(got, await byLines(path));
  // Line 7 holds `\"usage\"` (in a string: not a marker), line 8 is marked but an array.
  assertEquals(got.seen.map(([line]) => line), [1, 4, 6, 10]);
  assertEquals(got.bad, 1);
  await Deno.writeTextFile(path, "");
  assertEquals(await marked(path), { seen: [], bad: 0 });
});

Deno.test("forEachMarkedRecord() equals a line-by-line read on files of random lines", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/session.jsonl`;
  const line = fc.tuple(
    fc.integer({ min: 0, max: 4 }),
    fc.integer({ min: 0, max: 50_000 }),
    fc.constantFrom("x", "é", "\u{1F600}", "\\", '\\"'),
    fc.constantFrom("\n", "\r\n"),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(line, { maxLength: 40 }), fc.boolean(), async (made, end) => {
      const text = made.map(([kind, size, pad, eol]) => lineOf(kind, size, pad) + eol).join("");
      await Deno.writeTextFile(path, end ? text : text.replace(/\r?\n$/, ""));
      assertEquals(await marked(path), await byLines(path));
    }),
    { numRuns: 60 },
  );
});
