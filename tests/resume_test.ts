import { assert, assertEquals, assertRejects, assertStrictEquals } from "./_assert.ts";
import {
  assistant,
  call,
  fileLines,
  finished,
  itemRecords,
  output,
  RUN_BASE,
  tempDir,
  user,
} from "./_helpers.ts";
import { collectRecords, INTERRUPTED_CODE } from "../src/history/mod.ts";
import { forkSession, initializeSessionForRun, resumeSession } from "../src/resume/mod.ts";
import { findSession, sessionFilePath, SessionNotFoundError } from "../src/store/mod.ts";
import { newId, type ResponseItem, SessionFileError } from "../src/record/mod.ts";
import { dirname } from "node:path";

async function countFiles(dir: string): Promise<number> {
  let count = 0;
  for await (const entry of Deno.readDir(dir)) {
    count += entry.isDirectory ? await countFiles(`${dir}/${entry.name}`) : 1;
  }
  return count;
}

/** A finished first turn: list the files, answer. Returns the session id. */
async function firstTurn(root: string, message = "list the files"): Promise<string> {
  const run = await initializeSessionForRun({ ...RUN_BASE, root, message });
  await run.writer.append([
    ...itemRecords([call("c1", "list_dir", '{"path":"."}'), output("c1", "list_dir", "a.txt")]),
    ...itemRecords([assistant("There is one file: a.txt")]),
    finished(run.runId),
  ]);
  run.writer.close();
  return run.sessionId;
}

Deno.test("a fresh run creates a session whose id is the run id, holding system + user", async () => {
  await using dir = await tempDir();
  const run = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "hello" });
  run.writer.close();
  assertStrictEquals(run.sessionId, run.runId);
  assertEquals(run.resumed, false);
  const expected: ResponseItem[] = [
    { type: "message", role: "system", content: RUN_BASE.systemPrompt },
    user("hello"),
  ];
  assertEquals(run.history, expected);
  assertEquals(run.newItemsToPersist, expected);
  const { records } = await collectRecords(run.location.path, { strict: true });
  assertEquals(records.map((r) => r.type), [
    "session_meta",
    "turn_context",
    "response_item",
    "response_item",
  ]);
  assertEquals(records[0]?.payload, run.meta);
  assertEquals(records[1]?.payload, { ...run.turn, resumed: false });
});

Deno.test("resuming appends only the new user turn to the reconstructed history", async () => {
  await using dir = await tempDir();
  const sessionId = await firstTurn(dir.path);
  const { path } = await findSession(dir.path, sessionId);
  const before = await Deno.readFile(path);

  const run = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId,
    message: "read a.txt",
  });
  run.writer.close();

  assertStrictEquals(run.sessionId, sessionId);
  assert(run.runId !== sessionId, "a resumed turn has a fresh run id");
  assertEquals(run.resumed, true);
  assertEquals(run.newItemsToPersist, [user("read a.txt")]);
  assertEquals(run.history.map((item) => item.type === "message" ? item.role : item.type), [
    "system",
    "user",
    "function_call",
    "function_call_output",
    "assistant",
    "user",
  ]);
  // The model sees both turns' user messages.
  assertEquals(
    run.history.filter((item) => item.type === "message" && item.role === "user").length,
    2,
  );
  const after = await Deno.readFile(path);
  assertEquals(after.subarray(0, before.length), before, "earlier bytes are never rewritten");
  const appended = new TextDecoder().decode(after.subarray(before.length)).trimEnd().split("\n");
  assertEquals(appended.map((line) => JSON.parse(line).type), ["turn_context", "response_item"]);
  assertEquals(JSON.parse(appended[0]!).payload, {
    runId: run.runId,
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "ask-changes" },
    resumed: true,
  });
});

Deno.test("resuming a session interrupted mid-tool-call persists the synthesized output once", async () => {
  await using dir = await tempDir();
  const first = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    message: "wait a bit",
  });
  // The runtime appends the call before the tool runs; the process dies before the output.
  await first.writer.append(itemRecords([call("slow-1", "slow_task", '{"seconds":30}')]));
  first.writer.close();

  const second = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId: first.sessionId,
    message: "continue",
  });
  second.writer.close();
  assertEquals(second.synthesizedItems.length, 1);
  const synthesized = second.synthesizedItems[0]!;
  assertEquals(synthesized.callId, "slow-1");
  assertEquals(synthesized.toolName, "slow_task");
  assertEquals(synthesized.isError, true);
  assertEquals(synthesized.synthesized, true);
  assert(synthesized.output.startsWith(`Error [${INTERRUPTED_CODE}]:`));
  assertEquals(second.newItemsToPersist, [synthesized, user("continue")]);
  // In the history the output sits right after its call.
  const callIndex = second.history.findIndex((item) => item.type === "function_call");
  assertEquals(second.history[callIndex + 1], synthesized);

  const third = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId: first.sessionId,
    message: "and now?",
  });
  third.writer.close();
  assertEquals(third.synthesizedItems, [], "a second resume synthesizes nothing");
  const { records } = await collectRecords(first.location.path, { strict: true });
  const outputs = records.filter((r) =>
    r.type === "response_item" && r.payload.type === "function_call_output"
  );
  assertEquals(outputs.length, 1, "the synthesized output is persisted exactly once");
});

Deno.test("resuming an unknown session id throws a descriptive error and creates nothing", async () => {
  await using dir = await tempDir();
  await firstTurn(dir.path);
  const filesBefore = await countFiles(dir.path);
  const error = await assertRejects(
    () =>
      initializeSessionForRun({
        ...RUN_BASE,
        root: dir.path,
        sessionId: "0000dead",
        message: "hi",
      }),
    SessionNotFoundError,
  );
  assertEquals(
    error.message,
    `Session not found: no session with id or prefix "0000dead" in ${dir.path}`,
  );
  assertEquals(await countFiles(dir.path), filesBefore);
});

Deno.test("two turns grow the record count by exactly the new records, never doubling", async () => {
  await using dir = await tempDir();
  const sessionId = await firstTurn(dir.path);
  const { path } = await findSession(dir.path, sessionId);
  const turnOne = await fileLines(path);
  assertEquals(turnOne.length, 8);

  const run = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId,
    message: "thanks",
  });
  assertEquals(run.recordCountBefore, 8);
  await run.writer.append([...itemRecords([assistant("You are welcome")]), finished(run.runId)]);
  run.writer.close();
  const turnTwo = await fileLines(path);
  // turn_context + user + assistant + run_finished: 4 new records, not 8 + 8.
  assertEquals(turnTwo.length, 12);
  assertEquals(turnTwo.slice(0, 8), turnOne);
});

Deno.test("a resumed turn keeps the recorded policy unless a new one is passed", async () => {
  await using dir = await tempDir();
  const first = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    message: "hi",
    policy: { approval: "ask-all" },
  });
  first.writer.close();
  const kept = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId: first.sessionId,
    message: "again",
  });
  kept.writer.close();
  assertEquals(kept.turn.policy, { approval: "ask-all" });
  const changed = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId: first.sessionId,
    message: "go",
    policy: { approval: "auto" },
  });
  changed.writer.close();
  assertEquals(changed.turn.policy, { approval: "auto" });
  const next = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId: first.sessionId,
    message: "more",
  });
  next.writer.close();
  assertEquals(next.turn.policy, { approval: "auto" }, "the latest recorded policy applies");
});

Deno.test("resumeSession rebuilds the history of an interrupted session and normalizes it", async () => {
  await using dir = await tempDir();
  const run = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "read it" });
  await run.writer.append(itemRecords([call("c9")]));
  run.writer.close();
  const bytes = await Deno.readFile(run.location.path);

  const resumed = await resumeSession(run.sessionId.slice(0, 13), { root: dir.path });
  assertEquals(resumed.meta.id, run.sessionId);
  assertEquals(resumed.history.length, 4);
  assertEquals(resumed.synthesizedItems.map((item) => item.callId), ["c9"]);
  assertEquals(resumed.history[3], resumed.synthesizedItems[0]);
  assertEquals(await Deno.readFile(run.location.path), bytes, "resumeSession writes nothing");
});

Deno.test("resumeSession re-reads the file every time, with no cache", async () => {
  await using dir = await tempDir();
  const sessionId = await firstTurn(dir.path);
  const first = await resumeSession(sessionId, { root: dir.path });
  const run = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId,
    message: "next",
  });
  run.writer.close();
  const second = await resumeSession(sessionId, { root: dir.path });
  assertEquals(second.history.length, first.history.length + 1);
});

Deno.test("a session with no items yet can be resumed", async () => {
  await using dir = await tempDir();
  const run = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "hi" });
  run.writer.close();
  // Keep only session_meta: a run that died right after creating its file.
  const [meta] = await fileLines(run.location.path);
  await Deno.writeTextFile(run.location.path, meta + "\n");
  const next = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId: run.sessionId,
    message: "again",
  });
  next.writer.close();
  assertEquals(next.history, [user("again")]);
  assertEquals(next.turn.policy, { approval: "ask-changes" });
});

Deno.test("resume survives a torn last line: the fragment is quarantined and the turn starts on a line of its own", async () => {
  await using dir = await tempDir();
  const sessionId = await firstTurn(dir.path);
  const { path } = await findSession(dir.path, sessionId);
  const clean = await Deno.readTextFile(path);
  const fragment =
    '{"timestamp":"2026-11-30T10:00:00.000Z","type":"response_item","payload":{"type":"mess';
  await Deno.writeTextFile(path, fragment, { append: true });

  const resumed = await resumeSession(sessionId, { root: dir.path });
  assertEquals(resumed.problems.map((p) => p.kind), ["torn_tail"]);
  assert(resumed.problems[0]!.message.startsWith(`${path}:9: torn last line`));

  const run = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId,
    message: "go on",
  });
  run.writer.close();
  // The run read the file first (and says what it skipped), then sealed the tail.
  assertEquals(run.problems.map((p) => p.kind), ["torn_tail"]);
  const text = await Deno.readTextFile(path);
  assert(text.startsWith(clean), "the valid records are untouched");
  const { problems } = await collectRecords(path);
  assertEquals(problems, []);
  const sidecar = await Deno.readTextFile(`${path}.quarantine`);
  assert(sidecar.includes(fragment), "every byte of the fragment is kept in the sidecar");
});

Deno.test("resume skips a corrupt middle line and reports it as path:line", async () => {
  await using dir = await tempDir();
  const sessionId = await firstTurn(dir.path);
  const { path } = await findSession(dir.path, sessionId);
  const lines = await fileLines(path);
  lines[5] = '{"type": "response_item", "payload": {'; // line 6: the tool output
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  const resumed = await resumeSession(sessionId, { root: dir.path });
  assertEquals(resumed.problems.length, 1);
  assertEquals(resumed.problems[0]!.kind, "malformed_json");
  assert(
    resumed.problems[0]!.message.startsWith(`${path}:6: not valid JSON`),
    resumed.problems[0]!.message,
  );
  // The lost output leaves an orphan call, which normalization repairs.
  assertEquals(resumed.synthesizedItems.map((item) => item.callId), ["c1"]);
});

Deno.test("resumeSession() and forkSession() refuse alike a file copied under another id, and one whose session_meta is not first", async () => {
  await using dir = await tempDir();
  const id = await firstTurn(dir.path);
  const source = await findSession(dir.path, id);
  const other = newId();
  const copy = sessionFilePath(dir.path, other, new Date());
  await Deno.mkdir(dirname(copy), { recursive: true });
  await Deno.copyFile(source.path, copy);
  const renamed = `${copy}:1: session_meta names the session "${id}", but the file is found as ` +
    `"${other}"; it was copied or renamed by hand`;
  await assertRejects(() => resumeSession(other, { root: dir.path }), SessionFileError, renamed);
  await assertRejects(() => forkSession(other, { root: dir.path }), SessionFileError, renamed);
  const [meta, turn, ...rest] = await fileLines(source.path);
  await Deno.writeTextFile(source.path, [turn, meta, ...rest].join("\n") + "\n");
  const notFirst = `${source.path}:1: expected the session_meta record first, found turn_context`;
  await assertRejects(() => resumeSession(id, { root: dir.path }), SessionFileError, notFirst);
  await assertRejects(() => forkSession(id, { root: dir.path }), SessionFileError, notFirst);
});

Deno.test("a session recorded in another folder resumes under the default policy, not its recorded auto, unless told", async () => {
  await using dir = await tempDir();
  const first = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    message: "hi",
    policy: { approval: "auto" },
  });
  first.writer.close();
  const elsewhere = { ...RUN_BASE, root: dir.path, sessionId: first.sessionId, cwd: "/other" };
  const held = await initializeSessionForRun({ ...elsewhere, message: "again" });
  held.writer.close();
  assertEquals(held.turn.policy, { approval: "ask-changes" });
  assertEquals(held.heldPolicy, {
    recorded: { approval: "auto" },
    reason: "the session was recorded in /work/project, not in this workspace",
  });
  const told = await initializeSessionForRun({
    ...elsewhere,
    message: "go",
    policy: { approval: "auto" },
  });
  told.writer.close();
  assertEquals([told.turn.policy, told.heldPolicy], [{ approval: "auto" }, undefined]);
  const home = await initializeSessionForRun({ ...elsewhere, cwd: RUN_BASE.cwd, message: "home" });
  home.writer.close();
  assertEquals([home.turn.policy, home.heldPolicy], [{ approval: "auto" }, undefined]);
});
