import { TurnlogError } from "../src/errors/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import {
  findLastCheckpoint,
  forEachRecord,
  replayFromLastCheckpoint,
  SessionReplay,
} from "../src/history/mod.ts";
import { forEachLineBackward, includesBytes, type Line, readLinesBackward } from "../src/io/mod.ts";
import fc from "fast-check";
import { compactHistory, makeCheckpoint } from "../src/compaction/mod.ts";
import { readLines } from "../src/io/mod.ts";
import { makeRecord, type RecordEntry, responseItemRecord } from "../src/record/mod.ts";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";

async function backward(path: string, blockSize?: number) {
  const lines = [];
  for await (const line of readLinesBackward(path, blockSize === undefined ? {} : { blockSize })) {
    lines.push({ text: line.text, start: line.start, end: line.end, terminated: line.terminated });
  }
  return lines;
}

async function forward(path: string) {
  const lines = [];
  for await (const { text, start, end, terminated } of readLines(path)) {
    lines.push({ text, start, end, terminated });
  }
  return lines;
}

const CASES: Record<string, string> = {
  "empty file": "",
  "one line without newline": '{"a":1}',
  "one line with newline": '{"a":1}\n',
  "only a newline": "\n",
  "empty lines": "\n\na\n\n",
  "CRLF endings": "first\r\nsecond\r\n\r\nthird\r\n",
  "mixed endings and a torn CRLF tail": "a\r\nb\nc\r",
  "torn last line": 'one\ntwo\n{"timestamp":"2026","type":"resp',
  "a line longer than every block": `short\n${"L".repeat(1000)}\nend\n`,
  "many short lines in one block": "o\nab\nco\n\r\nooo\nx\no\n",
  "multi-byte characters across block edges": "héllo wörld\n€uro 🎉 party\n日本語のテキスト\n",
};

for (const [name, content] of Object.entries(CASES)) {
  Deno.test(`readLinesBackward yields readLines' lines in reverse: ${name}`, async () => {
    await using dir = await tempDir();
    const path = `${dir.path}/f.jsonl`;
    await Deno.writeTextFile(path, content);
    const expected = (await forward(path)).reverse();
    for (const blockSize of [1, 2, 3, 5, 16, 64 * 1024]) {
      assertEquals(await backward(path, blockSize), expected, `block size ${blockSize}`);
    }
  });
}

for (const [name, content] of Object.entries(CASES)) {
  Deno.test(`readLinesBackward with \`only\` yields just the lines holding the text: ${name}`, async () => {
    await using dir = await tempDir();
    const path = `${dir.path}/f.jsonl`;
    await Deno.writeTextFile(path, content.replaceAll("o", "_o_").replaceAll("L", "Lx_o_"));
    const expected = (await forward(path)).reverse().filter((line) => line.text.includes("_o_"));
    assert(expected.length > 0 || !content.includes("o"), "the case has lines to find");
    for (const blockSize of [1, 2, 3, 5, 16, 64 * 1024]) {
      const lines = [];
      for await (const line of readLinesBackward(path, { blockSize, only: "_o_" })) {
        const { text, start, end, terminated } = line;
        lines.push({ text, start, end, terminated });
      }
      assertEquals(lines, expected, `block size ${blockSize}`);
    }
  });
}

Deno.test("readLinesBackward: concrete lines of a CRLF file with a torn tail", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/f.jsonl`;
  await Deno.writeTextFile(path, 'a\r\n{"x":1}\r\n{"to');
  assertEquals(await backward(path, 4), [
    { text: '{"to', start: 12, end: 16, terminated: false },
    { text: '{"x":1}', start: 3, end: 12, terminated: true },
    { text: "a", start: 0, end: 3, terminated: true },
  ]);
  assertEquals(await backward(`${dir.path}/f.jsonl`, 1), await backward(path));
});

Deno.test("readLinesBackward: an empty file yields nothing, an invalid block size throws", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/empty.jsonl`;
  await Deno.writeTextFile(path, "");
  assertEquals(await backward(path), []);
  let error: unknown;
  try {
    await backward(path, 0);
  } catch (caught) {
    error = caught;
  }
  assert(
    error instanceof TurnlogError && error.kind === "usage" &&
      error.message === "Invalid block size 0: expected a positive integer",
  );
});

Deno.test("readLinesBackward: stopping early leaves the head unread; `end` reads only a prefix", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/f.jsonl`;
  const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  const size = (await Deno.stat(path)).size;
  using io = countIo();
  for await (const line of readLinesBackward(path)) {
    assertEquals(line.text, "line 19999");
    break;
  }
  // The first block is 64 KiB: nothing before the file's last 64 KiB was read.
  assertEquals(io.lowestRead(path), size - 64 * 1024);
  io.take();

  await Deno.writeTextFile(path, "one\ntwo\nthree\n");
  const prefix = [];
  for await (const line of readLinesBackward(path, { end: 8, blockSize: 2 })) {
    prefix.push(line.text);
  }
  assertEquals(prefix, ["two", "one"]);
  assert(io.take().reads.every((r) => r.end <= 8), "nothing at or after byte 8 is read");
});

Deno.test("includesBytes finds a needle anywhere, and only a whole one", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  assert(includesBytes(bytes('x"compaction_checkpoint"'), bytes('"compaction_checkpoint"')));
  assert(includesBytes(bytes('"compaction_checkpoint"y'), bytes('"compaction_checkpoint"')));
  assert(!includesBytes(bytes('"compaction_checkpoin"'), bytes('"compaction_checkpoint"')));
  assert(!includesBytes(bytes("_"), bytes("a_b")));
  assert(includesBytes(bytes("aa_b"), bytes("a_b")));
});

const SYSTEM = { type: "message", role: "system", content: "sys" } as const;
const user = (content: string) => ({ type: "message", role: "user", content }) as const;

function checkpointLine(summary: string, userText: string): string {
  const compacted = compactHistory([SYSTEM, user(userText)], summary);
  return JSON.stringify(
    responseItemRecord(makeCheckpoint(compacted, { reason: "token_threshold", tokensBefore: 1 })),
  );
}

function metaLine(): string {
  return JSON.stringify(makeRecord("session_meta", {
    version: 1,
    id: "s",
    createdAt: "2026-11-30T09:00:00.000Z",
    cwd: "/",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
  }));
}

Deno.test("findLastCheckpoint finds a checkpoint line larger than its block size", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  const big = checkpointLine("summary", "u".repeat(5000));
  const after = JSON.stringify(responseItemRecord(user("after")));
  await Deno.writeTextFile(
    path,
    `${metaLine()}\n${checkpointLine("old", "x")}\n${big}\n${after}\n`,
  );
  const found = await findLastCheckpoint(path, { blockSize: 100 });
  assert(found !== undefined);
  assertEquals(found.checkpoint.replacementHistory[2], user("u".repeat(5000)));
  const text = await Deno.readTextFile(path);
  assertStrictEquals(text.slice(found.start, found.end), `${big}\n`);
  assertStrictEquals(found.skipped, 0);
});

Deno.test("findLastCheckpoint passes over a corrupt checkpoint line, a torn one and a mention in text", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  const good = checkpointLine("good", "x");
  const corrupt = checkpointLine("bad", "y").replace('"version":1', '"version":"one"');
  const mention = JSON.stringify(responseItemRecord(user('say "compaction_checkpoint"')));
  const torn = checkpointLine("torn", "z").slice(0, -10);
  await Deno.writeTextFile(
    path,
    `${metaLine()}\r\n${good}\r\n${corrupt}\r\n${mention}\r\n${torn}`,
  );
  const found = await findLastCheckpoint(path, { blockSize: 7 });
  assert(found !== undefined);
  assertEquals(found.checkpoint.replacementHistory[1], {
    type: "compaction_summary",
    content: "good",
  });
  // The mention is escaped inside a string, so the cheap test does not even parse it.
  assertStrictEquals(found.skipped, 2, "the corrupt line and the torn tail");
});

Deno.test("findLastCheckpoint: undefined without a checkpoint, and for an empty file", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeTextFile(
    path,
    `${metaLine()}\n${JSON.stringify(responseItemRecord(user("hi")))}`,
  );
  assertStrictEquals(await findLastCheckpoint(path, { blockSize: 16 }), undefined);
  await Deno.writeTextFile(path, "");
  assertStrictEquals(await findLastCheckpoint(path), undefined);
});

/** The lines of `bytes` last first, each as a decode of its bytes alone gives it. */
function eachLineAlone(bytes: Uint8Array): Line[] {
  const lines: Line[] = [];
  for (let start = 0; start < bytes.length;) {
    const newline = bytes.indexOf(10, start);
    const end = newline === -1 ? bytes.length : newline + 1;
    let last = newline === -1 ? end : newline;
    if (last > start && bytes[last - 1] === 13) last--;
    const text = new TextDecoder().decode(bytes.subarray(start, last));
    lines.push({ line: 0, text, start, end, terminated: newline !== -1 });
    start = end;
  }
  return lines.reverse();
}

Deno.test("forEachLineBackward gives each line's own decode and offsets, in any block size, and stops where told", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/random.jsonl`;
  // Newlines, CRLF, a BOM, characters of 2-4 bytes, a cut one, invalid bytes, ASCII.
  const pieces = [[10], [13], [13, 10], [0xef, 0xbb, 0xbf], [0xc3, 0xa9], [0xe2, 0x82, 0xac]];
  pieces.push([0xf0, 0x9f, 0x98, 0x80], [0xf0, 0x9f], [0x80], [0xff], [0x61], [0x7b, 0x7d]);
  const file = fc.array(fc.constantFrom(...pieces), { maxLength: 60 }).map((parts) =>
    new Uint8Array(parts.flat())
  );
  await fc.assert(
    fc.asyncProperty(file, fc.integer({ min: 1, max: 24 }), fc.nat(), async (bytes, size, k) => {
      await Deno.writeFile(path, bytes);
      const expected = bytes.length === 0 ? [] : eachLineAlone(bytes);
      const all: Line[] = [];
      await forEachLineBackward(path, (line) => void all.push(line), { blockSize: size });
      assertEquals(all, expected);
      const stop = k % Math.max(1, expected.length);
      const some: Line[] = [];
      await forEachLineBackward(path, (line) => some.push(line) <= stop, { blockSize: size });
      assertEquals(some, expected.slice(0, stop + 1));
    }),
    { numRuns: 300 },
  );
});

/** A line of a random session file: a record of any type, a damaged line or an empty one. */
const replayLine = fc.oneof(
  fc.constantFrom("/a", "/b").map((cwd) => metaLine().replace('"cwd":"/"', `"cwd":"${cwd}"`)),
  fc.constantFrom("r1", "r2", "r3").map((runId) =>
    JSON.stringify(makeRecord("turn_context", {
      runId,
      model: "scripted",
      wireApi: "responses",
      policy: { approval: "auto" },
      resumed: false,
    }))
  ),
  fc.string({ maxLength: 4 }).map((text) => JSON.stringify(responseItemRecord(user(text)))),
  fc.tuple(fc.string({ maxLength: 4 }), fc.option(fc.nat({ max: 9 }), { nil: undefined }))
    .map(([text, recordsBefore]) => {
      const compacted = compactHistory([SYSTEM, user(text)], `summary ${text}`);
      const details = { reason: "token_threshold", tokensBefore: 1 };
      const counted = recordsBefore === undefined ? details : { ...details, recordsBefore };
      return JSON.stringify(responseItemRecord(makeCheckpoint(compacted, counted)));
    }),
  fc.constantFrom("not json", '{"type":"response_item"}', "", '{"timestamp":"2026'),
);

/** What a forward replay gives of the file: from its last checkpoint when the backward may. */
async function forwardReplay(path: string): Promise<SessionReplay> {
  const entries: { entry: RecordEntry; start: number }[] = [];
  await forEachRecord(path, (entry, line) => void entries.push({ entry, start: line.start }));
  const last = entries.findLastIndex(({ entry }) =>
    entry.record?.type === "response_item" && entry.record.payload.type === "compaction_checkpoint"
  );
  const checkpoint = entries[last]?.entry.record;
  const fromCheckpoint = checkpoint?.type === "response_item" &&
    checkpoint.payload.type === "compaction_checkpoint" &&
    checkpoint.payload.recordsBefore !== undefined &&
    entries.slice(last).every(({ entry }) => entry.problem === undefined);
  const replay = new SessionReplay();
  for (const { entry, start } of fromCheckpoint ? entries.slice(last) : entries) {
    // Read from the end, the lines after a checkpoint have no numbers (0).
    replay.push(fromCheckpoint ? { ...entry, line: 0, start } : { ...entry, start });
  }
  return replay;
}

Deno.test("replayFromLastCheckpoint gives what a forward replay gives, for any file and block size", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  const files = fc.tuple(fc.array(replayLine, { maxLength: 12 }), fc.boolean());
  await fc.assert(
    fc.asyncProperty(files, fc.integer({ min: 1, max: 300 }), async ([lines, ended], size) => {
      await Deno.writeTextFile(path, lines.join("\n") + (ended && lines.length > 0 ? "\n" : ""));
      const backward = await replayFromLastCheckpoint(path, { blockSize: size });
      assertEquals(backward, await forwardReplay(path));
    }),
    { numRuns: 300 },
  );
});
