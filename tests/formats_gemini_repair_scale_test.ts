/**
 * Issue 39, item 10: the repair plan of a Gemini CLI session is linear in the file, its memory
 * held by the history, not by the file. The shape is 0.61's after many resumes: every resume
 * writes the whole history again as a checkpoint (`$set` of `messages`), so the file holds a
 * growing list many times over. Work is counted, not timed: the bytes read and the characters
 * parsed at 1x and 4x the file, and the entries the check's replay holds.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { adapterFor } from "../src/formats/mod.ts";
import { CheckReplay } from "../src/formats/gemini/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import { geminiSessionLines, writeLines } from "../testing/formats/scale.ts";

const gemini = adapterFor("gemini");

/** A session of growing checkpoints (one after each prompt) of about `bytes`. */
async function session(dir: string, bytes: number): Promise<{ path: string; size: number }> {
  await Deno.mkdir(join(dir, "chats"), { recursive: true });
  const path = join(dir, "chats", `session-2026-12-01T10-00-${bytes}.jsonl`);
  const lines = geminiSessionLines({
    seed: 7,
    targetBytes: bytes,
    checkpointEvery: 1,
    outputWords: 10,
  });
  return { path, size: await writeLines(path, lines) };
}

/** The plan of `path`, with the bytes it read and the characters it parsed as JSON. */
async function countedPlan(path: string, size: number) {
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = (text: string, reviver?: Parameters<typeof parse>[1]) => {
    parsed += text.length;
    return parse(text, reviver);
  };
  using io = countIo();
  try {
    const plan = await gemini.planRepair(path, size);
    return { plan, read: io.take().bytesRead, parsed };
  } finally {
    JSON.parse = parse;
  }
}

Deno.test("planRepair() of a Gemini session of growing checkpoints reads and parses each byte once, at 1x and 4x", async () => {
  await using dir = await tempDir();
  const runs = [];
  for (const bytes of [1_500_000, 6_000_000]) {
    const { path, size } = await session(dir.path, bytes);
    const lines = (await Deno.readTextFile(path)).split("\n").length - 1;
    const checkpoints = (await Deno.readTextFile(path)).split('{"$set":{"messages"').length - 1;
    assert(checkpoints >= 20, `${checkpoints} checkpoints`);
    const { plan, read, parsed } = await countedPlan(path, size);
    // Each repeated result found, in the history the last checkpoint holds.
    assert(plan.findings.length > 0);
    assertEquals(plan.rewritten.length, 1, "the last checkpoint, rewritten without them");
    assertEquals(read, size, "each byte read once");
    assert(parsed <= size, `${parsed} characters parsed of ${size} bytes`);
    runs.push({ size, read, parsed, lines });
  }
  const [one, four] = runs as [(typeof runs)[0], (typeof runs)[0]];
  const grew = four.size / one.size;
  assert(grew > 3.5, `the file grew ${grew}x`);
  assert(four.read / one.read <= grew * 1.1 && four.parsed / one.parsed <= grew * 1.1);
});

Deno.test("CheckReplay holds the history, not every copy the checkpoints wrote", async () => {
  await using dir = await tempDir();
  const { path } = await session(dir.path, 3_000_000);
  const check = new CheckReplay();
  const texts = (await Deno.readTextFile(path)).split("\n").slice(0, -1);
  let start = 0;
  let copiesWritten = 0;
  texts.forEach((text, k) => {
    const value = JSON.parse(text);
    copiesWritten += value.$set?.messages?.length ?? (typeof value.id === "string" ? 1 : 0);
    const end = start + new TextEncoder().encode(text).length + 1;
    check.feed(value, { k, line: k + 1, start, end, terminated: true, piece: null });
    start = end;
  });
  const { messages, dropped } = check.replay;
  const held = [...messages.values()].reduce((sum, message) => sum + message.copies.length, 0);
  const lastCheckpoint = texts.findLastIndex((text) => text.startsWith('{"$set":{"messages"'));
  // A copy per message of the history, and one per message line since the last checkpoint.
  assert(held <= messages.size + (texts.length - lastCheckpoint), `${held} copies held`);
  assertEquals(dropped.length, 0);
  assert(copiesWritten > 10 * held, `${copiesWritten} copies written, ${held} held`);
});

Deno.test("geminiSessionLines() grows a session to a target size, the same for a seed, each checkpoint the history so far", () => {
  const lines = [...geminiSessionLines({ seed: 3, targetBytes: 200_000, checkpointEvery: 1 })];
  const again = [...geminiSessionLines({ seed: 3, targetBytes: 200_000, checkpointEvery: 1 })];
  assertEquals(lines, again);
  const bytes = lines.reduce((sum, line) => sum + line.length + 1, 0);
  assert(bytes >= 200_000 && bytes < 400_000, `${bytes} bytes`);
  // Replayed as Gemini does, every checkpoint holds exactly the history before it.
  const history = new Map<string, string>();
  let checkpoints = 0;
  for (const value of lines.map((line) => JSON.parse(line))) {
    if (typeof value.id === "string") history.set(value.id, JSON.stringify(value));
    const messages = value.$set?.messages;
    if (!Array.isArray(messages)) continue;
    const held = messages.map((message) => JSON.stringify(message));
    // The first is the injected context Gemini writes at the start.
    if (checkpoints++ > 0) assertEquals(held, [...history.values()]);
    history.clear();
    messages.forEach((message, at) => history.set(message.id, held[at]!));
  }
  assert(checkpoints > 5, `${checkpoints} checkpoints`);
});
