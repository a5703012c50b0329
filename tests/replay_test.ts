import { loadSession } from "../src/resume/mod.ts";
import { parseRecordLine } from "../src/record/mod.ts";
import { readLines } from "../src/io/mod.ts";
import { collectRecords, replayHistory } from "../src/history/mod.ts";
import { normalizeHistory } from "../src/history/mod.ts";
import type { TurnContext } from "../src/record/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import { generateSessionText, Rng, writeSession } from "../testing/generate/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import { tempDir } from "./_helpers.ts";

const SESSIONS = 300;
const BLOCK_SIZES = [7, 64, 333, 4096, 64 * 1024];

/** The truth, by the slow way: every line parsed, every record replayed from the first. */
async function fullForward(path: string) {
  const { records, problems } = await collectRecords(path);
  const turns = records.filter((r) => r.type === "turn_context").map((r) => r.payload);
  let lastCheckpoint: { line: number; start: number; counted: boolean } | undefined;
  for await (const line of readLines(path)) {
    const { record } = parseRecordLine(path, line);
    if (record?.type === "response_item" && record.payload.type === "compaction_checkpoint") {
      lastCheckpoint = {
        line: line.line,
        start: line.start,
        counted: record.payload.recordsBefore !== undefined,
      };
    }
  }
  return {
    history: replayHistory(records),
    problems,
    recordCount: records.length,
    lastTurn: turns.at(-1) as TurnContext | undefined,
    lastCheckpoint,
  };
}

Deno.test("backward-checkpoint replay equals a full forward replay on many generated sessions", async () => {
  await using dir = await tempDir();
  const seen = {
    none: 0,
    one: 0,
    several: 0,
    torn: 0,
    crlf: 0,
    orphanAfter: 0,
    corruptBefore: 0,
    longWay: 0,
  };
  for (let seed = 1; seed <= SESSIONS; seed++) {
    const generated = generateSessionText(seed, { checkpoints: seed % 5 === 0 ? 0 : 0.25 });
    const path = `${dir.path}/s${seed}.jsonl`;
    await Deno.writeTextFile(path, generated.text);
    const location = { id: generated.id, path, createdAt: generated.createdAt };
    const blockSize = BLOCK_SIZES[Math.floor(new Rng(seed).next() * BLOCK_SIZES.length)]!;
    const truth = await fullForward(path);
    const fast = await loadSession(location, { blockSize });
    const slow = await loadSession(location, { fromCheckpoint: false });
    const where = `seed ${seed} (block ${blockSize})`;

    assertEquals(fast.replayed, truth.history, `${where}: replayed history`);
    assertEquals(slow.replayed, truth.history, `${where}: full-mode history`);
    assertEquals(
      normalizeHistory(fast.replayed).synthesized,
      normalizeHistory(truth.history).synthesized,
      `${where}: synthesized outputs`,
    );
    assertEquals(fast.lastTurn, truth.lastTurn, `${where}: lastTurn`);
    assertEquals(fast.recordCount, truth.recordCount, `${where}: recordCount`);
    assertEquals(slow.recordCount, truth.recordCount, `${where}: full-mode recordCount`);
    assertEquals(slow.problems, truth.problems, `${where}: full-mode problems`);

    // The short way is taken exactly when the last valid checkpoint stores its record count
    // and no line after it is bad; it lists no problems, because there are none after it.
    const checkpoint = truth.lastCheckpoint;
    const short = checkpoint !== undefined && checkpoint.counted &&
      truth.problems.every((p) => p.line < checkpoint.line);
    assertEquals(fast.replayedFrom, short ? checkpoint.start : undefined, `${where}: replayedFrom`);
    assertEquals(fast.problems, short ? [] : truth.problems, `${where}: problems`);

    const checkpoints = checkpoint === undefined ? 0 : generated.checkpointCount;
    if (checkpoints === 0) seen.none++;
    else if (checkpoints === 1) seen.one++;
    else seen.several++;
    if (generated.tornTail) seen.torn++;
    if (generated.crlf) seen.crlf++;
    if (short && truth.problems.length > 0) seen.corruptBefore++;
    if (checkpoint !== undefined && !short) seen.longWay++;
    if (short && normalizeHistory(fast.replayed).synthesized.length > 0) seen.orphanAfter++;
  }
  // The generator must keep producing every case, or this test proves less than it says.
  for (const [name, count] of Object.entries(seen)) assert(count >= 3, `only ${count} ${name}`);
});

Deno.test("loadSession() resumes from the checkpoint: the head, then the tail from it, nothing between", async () => {
  await using dir = await tempDir();
  const session = await writeSession(dir.path, { seed: 11, size: 8 << 20, checkpoints: "spread" });
  const location = { id: session.id, path: session.path, createdAt: session.createdAt };
  using io = countIo();
  const loaded = await loadSession(location);
  const reads = io.take().reads.filter((r) => r.path === session.path);
  assertEquals(loaded.replayedFrom, session.lastCheckpointOffset);
  // The head (its session_meta) is read in one small chunk; the backward search reads blocks
  // of at most 1 MiB from the end; so every read lies in the first 16 KiB or after a point at
  // most one block before the checkpoint.
  const gap = { from: 16 * 1024, to: session.lastCheckpointOffset - (1 << 20) };
  assert(gap.to > gap.from, "the file is large enough for the claim to mean something");
  const inGap = reads.filter((r) => r.end > gap.from && r.start < gap.to);
  assertEquals(inGap, [], "nothing between the head and the checkpoint's block is read");
  const read = reads.reduce((sum, r) => sum + r.end - r.start, 0);
  assert(read < session.bytes / 4, `read ${read} of ${session.bytes} bytes`);
  // And it is the same history a full forward replay gives.
  const full = await loadSession(location, { fromCheckpoint: false });
  assertEquals(loaded.replayed, full.replayed);
  assertEquals(loaded.recordCount, full.recordCount);
});
