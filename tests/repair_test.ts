import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import {
  byteString,
  joinLines,
  makeStory,
  replaceLine,
  sidecarPayloadLines,
  splitLines,
  strayOutputLine,
} from "./_inspect_fixtures.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { renderRepair } from "../src/repair/mod.ts";
import { turnlogAdapter } from "../src/formats/mod.ts";
import { collectRecords, synthesizedOutputFor } from "../src/history/mod.ts";
import { quarantinePath } from "../src/store/mod.ts";
import {
  isEmptyPlan,
  planFileRepair,
  planRepair,
  repairSession,
  splitGluedRecords,
} from "../src/repair/mod.ts";
import { resumeSession } from "../src/resume/mod.ts";
import { SessionInUseError, SessionWriter } from "../src/store/mod.ts";

const encoder = new TextEncoder();

/** The multiset of a file's lines, as exact byte strings. */
function lineSet(bytes: Uint8Array): string[] {
  return splitLines(bytes).map(byteString).filter((line) => line.length > 0).sort();
}

async function readIfThere(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return new Uint8Array();
    throw error;
  }
}

/**
 * The crashed session (orphan call c3 at line 13), then damaged: line 10 corrupt, a `[1]`
 * line after line 4, and a torn last line. Returns the original bytes written.
 */
async function damage(path: string): Promise<Uint8Array> {
  const lines = replaceLine(
    splitLines(await Deno.readFile(path)),
    10,
    '{"timestamp":"x","type":"respo',
  );
  const bytes = joinLines(
    [
      ...lines.slice(0, 4),
      encoder.encode("[1]"),
      ...lines.slice(4),
      encoder.encode('{"timestamp":"2026-'),
    ],
    { tornTail: true },
  );
  await Deno.writeFile(path, bytes);
  return bytes;
}

Deno.test("a dry run plans every fix and changes nothing", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const original = await damage(story.path);
  const plan = planRepair(await inspectSession(story.path));
  assertEquals(plan.moved.map((m) => [m.line, m.kind]), [
    [5, "not_an_object"],
    [11, "malformed_json"],
    [15, "torn_tail"],
  ]);
  assertEquals(plan.method, "rewrite");
  assertEquals(plan.appended, [{ callId: "c3", toolName: "write_file", line: 14, turn: 2 }]);
  assertEquals(plan.refused, null);
  assertEquals(await Deno.readFile(story.path), original);
  assertEquals((await readIfThere(quarantinePath(story.path))).length, 0);
  const text = renderRepair(plan, { color: false, written: false, adapter: turnlogAdapter });
  assertMatch(text, /dry run: nothing changed; add --write to do it/);
  assertMatch(text, /move line 11 \(malformed_json, 31 bytes\) to the sidecar/);
  assertMatch(text, /rewrite the session without those 3 lines: a temp file in the same folder/);
  assertMatch(
    text,
    /append 1 synthesized output, exactly as resume would:\n +c3 \(write_file\), the call at line 14, turn 2/,
  );
});

Deno.test("repair is lossless, leaves a resumable session, and a second run finds nothing to do", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const original = await damage(story.path);

  const { plan, after } = await repairSession(story.path, { root: dir.path });
  assertEquals(
    plan.moved.map((m) => [m.line, m.kind]).sort(),
    [
      [11, "malformed_json"],
      [15, "torn_tail"],
      [5, "not_an_object"],
    ].sort(),
  );
  assertEquals(after.healthy, true);
  assertEquals(after.problems, []);
  assertEquals(after.orphanCalls, []);

  // Every original line is in the session or the sidecar, byte for byte; the session only
  // gained the synthesized output.
  const session = await Deno.readFile(story.path);
  const sidecar = await Deno.readFile(quarantinePath(story.path));
  const kept = lineSet(session);
  const appended = kept.filter((line) => !lineSet(original).includes(line));
  assertEquals(appended.length, 1);
  assertEquals(
    [...kept.filter((line) => !appended.includes(line)), ...sidecarPayloadLines(sidecar)].sort(),
    lineSet(original),
  );
  assertMatch(
    new TextDecoder().decode(sidecar),
    /# turnlog quarantine: line 11, malformed_json, 30 bytes/,
  );

  // The appended record is exactly what resume would have appended, at the end.
  const { records } = await collectRecords(story.path, { strict: true });
  const last = records.at(-1)!;
  assertEquals(
    last.type === "response_item" && last.payload,
    synthesizedOutputFor({
      type: "function_call",
      callId: "c3",
      name: "write_file",
      arguments: "",
    }),
  );
  const resumed = await resumeSession(story.sessionId, { root: dir.path });
  assertEquals(resumed.synthesizedItems, []);
  assertEquals(resumed.droppedItems, []);
  assertEquals(resumed.problems, []);

  // Idempotent: nothing planned, nothing changed.
  const again = await repairSession(story.path, { root: dir.path });
  assert(isEmptyPlan(again.plan));
  assertEquals(await Deno.readFile(story.path), session);
  assertEquals(await Deno.readFile(quarantinePath(story.path)), sidecar);
  const leftovers = [];
  for await (const entry of Deno.readDir(story.path.slice(0, story.path.lastIndexOf("/")))) {
    leftovers.push(entry.name);
  }
  assertEquals(leftovers.length, 2, `only the session and its sidecar: ${leftovers}`);
});

Deno.test("an orphan call alone is repaired append-only: the old bytes are the new file's start", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const original = await Deno.readFile(story.path);
  const { plan } = await repairSession(story.path);
  assertEquals(plan.method, "none");
  assertEquals(plan.appended.map((a) => a.callId), ["c3"]);
  const repaired = await Deno.readFile(story.path);
  assertEquals(repaired.subarray(0, original.length), original);
  assertEquals(lineSet(repaired).length, lineSet(original).length + 1);
  assertEquals((await resumeSession(story.sessionId, { root: dir.path })).synthesizedItems, []);
});

Deno.test("an orphan output goes to the sidecar and the history resume sends stays the same", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const lines = splitLines(await Deno.readFile(story.path));
  const stray = strayOutputLine();
  await Deno.writeFile(story.path, joinLines([...lines, encoder.encode(stray)]));
  const before = await resumeSession(story.sessionId, { root: dir.path });
  assertEquals(before.droppedItems.length, 1);
  const { plan, after } = await repairSession(story.path);
  assertEquals(plan.moved.map((m) => [m.line, m.kind]), [[22, "orphan_output"]]);
  assertEquals(after.healthy, true);
  const resumed = await resumeSession(story.sessionId, { root: dir.path });
  assertEquals(resumed.history, before.history);
  assertEquals(resumed.droppedItems, []);
  assertEquals(sidecarPayloadLines(await Deno.readFile(quarantinePath(story.path))), [stray]);
});

Deno.test("a torn tail alone is cut off after the sidecar has it; nothing else moves", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const healthy = await Deno.readFile(story.path);
  const torn = joinLines([...splitLines(healthy), new Uint8Array(300)], { tornTail: true });
  await Deno.writeFile(story.path, torn);
  const { plan, after } = await repairSession(story.path);
  assertEquals([plan.method, plan.moved.map((m) => m.kind)], ["truncate", ["torn_tail"]]);
  assertEquals(await Deno.readFile(story.path), healthy);
  assertEquals(after.healthy, true);
  assertEquals(sidecarPayloadLines(await Deno.readFile(quarantinePath(story.path))), [
    byteString(new Uint8Array(300)),
  ]);
});

Deno.test("a file without session_meta is refused and left alone", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const lines = splitLines(await Deno.readFile(story.path));
  const bytes = joinLines([encoder.encode("garbage"), ...lines.slice(1)]);
  await Deno.writeFile(story.path, bytes);
  const { plan } = await repairSession(story.path);
  assertMatch(plan.refused ?? "", /:2: the first record is turn_context, not session_meta/);
  assertEquals(await Deno.readFile(story.path), bytes);
  assertEquals((await readIfThere(quarantinePath(story.path))).length, 0);
  for (const empty of [new Uint8Array(), encoder.encode("\x00\x01\x02")]) {
    await Deno.writeFile(story.path, empty);
    assert((await repairSession(story.path)).plan.refused !== null);
    assertEquals(await Deno.readFile(story.path), empty);
  }
});

Deno.test("a session in use is refused and left unchanged", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const original = await damage(story.path);
  // The writer seals the torn tail when it opens; what it leaves is what must not change.
  const writer = await SessionWriter.open(story.path);
  try {
    const sealed = await Deno.readFile(story.path);
    assert(sealed.length < original.length);
    await assertRejects(() => repairSession(story.path), SessionInUseError, "Session is in use");
    assertEquals(await Deno.readFile(story.path), sealed);
  } finally {
    writer.close();
  }
});

Deno.test("records glued on one line are split back; the line itself goes to the sidecar", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const healthy = await Deno.readFile(story.path);
  const lines = splitLines(healthy);
  // session_meta and turn_context on one line: without the split, resume refuses the file.
  const glued = joinLines([
    encoder.encode(byteString(lines[0]!) + byteString(lines[1]!)),
    ...lines.slice(2),
  ]);
  await Deno.writeFile(story.path, glued);
  const plan = await planFileRepair(await inspectSession(story.path));
  assertEquals(plan.refused, null);
  assertEquals(plan.leftAsIs, []);
  assertEquals(plan.moved.map((m) => [m.line, m.kind, m.split?.map((r) => r.type)]), [
    [1, "malformed_json", ["session_meta", "turn_context"]],
  ]);
  const { after } = await repairSession(story.path);
  assertEquals(after.healthy, true);
  assertEquals(await Deno.readFile(story.path), healthy);
  assertEquals(sidecarPayloadLines(await Deno.readFile(quarantinePath(story.path))), [
    byteString(lines[0]!) + byteString(lines[1]!),
  ]);
  assertEquals((await resumeSession(story.sessionId, { root: dir.path })).synthesizedItems, []);
});

Deno.test("splitGluedRecords splits only whole records, braces in strings included", () => {
  const a =
    '{"timestamp":"t","type":"run_finished","payload":{"runId":"r}{","outcome":"succeeded","rounds":1}}';
  const b =
    '{"timestamp":"t","type":"run_finished","payload":{"runId":"\\"{","outcome":"failed","rounds":0}}';
  assertEquals(splitGluedRecords(a + b)?.map((r) => r.text), [a, b]);
  assertEquals(splitGluedRecords(`${a} ${b}`)?.length, 2);
  assertEquals(splitGluedRecords(a), null, "one record is not glued");
  assertEquals(splitGluedRecords(a + b.slice(0, -1)), null, "a torn second half");
  assertEquals(splitGluedRecords(`${a}{"x":1}`), null, "a second object that is no record");
  assertEquals(splitGluedRecords(`${a}garbage${b}`), null);
});
