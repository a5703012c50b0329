/**
 * The ten reliability points of issue 11, each as a user would meet it: a session file in a
 * state a crash, a hand or a race left it in, and what resume, inspect and repair make of it.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { eventOf, fileRecords, harness, labels } from "./_runtime_helpers.ts";
import { assistant, call, itemRecords, output, RUN_BASE, tempDir, user } from "./_helpers.ts";
import { byteString, sidecarPayloadLines } from "./_inspect_fixtures.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { planFileRepair, repairSession } from "../src/repair/mod.ts";
import { makeRecord, SessionFileError } from "../src/record/mod.ts";
import { initializeSessionForRun, resumeFile } from "../src/resume/mod.ts";
import {
  createSession,
  quarantineLines,
  quarantinePath,
  repairTempPath,
  sessionFilePath,
  SessionWriter,
} from "../src/store/mod.ts";
import { newId } from "../src/record/mod.ts";
import { createAgentHandler } from "../src/server/mod.ts";
import { connectModel, createCompactor } from "../src/runtime/mod.ts";

const CLI = fileURLToPath(new URL("../cli/resume.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const encoder = new TextEncoder();

/** A session file holding `items` after a first turn's context, locked by nobody. */
async function sessionWith(root: string, items: Parameters<typeof itemRecords>[0]) {
  const { writer, location } = await createSession(root, {
    cwd: "/w",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
  });
  await writer.append([
    makeRecord("turn_context", {
      runId: location.id,
      model: "scripted",
      wireApi: "responses",
      policy: { approval: "auto" },
      resumed: false,
    }),
    ...itemRecords(items),
  ]);
  writer.close();
  return location;
}

Deno.test("1. a writer locks the file its path names, even when a repair renames over it first", async () => {
  await using dir = await tempDir();
  const location = await sessionWith(dir.path, [user("hi")]);
  const before = await Deno.readFile(location.path);
  // The race: the file is opened, then a repair renames its rewritten copy over the path,
  // then the lock is taken. Without the inode check the writer appended to the old file.
  let raced = false;
  const racingOpen: typeof Deno.open = async (path, options) => {
    const file = await Deno.open(path, options);
    if (!raced) {
      raced = true;
      const temp = repairTempPath(location.path);
      await Deno.writeFile(temp, before);
      await Deno.rename(temp, location.path);
    }
    return file;
  };
  const writer = await SessionWriter.open(location.path, { open: racingOpen });
  await writer.append([
    makeRecord("run_finished", { runId: "r", outcome: "succeeded", rounds: 1 }),
  ]);
  writer.close();
  assert(raced);
  assertEquals(labels(await fileRecords(location.path)).at(-1), "run_finished");
});

Deno.test("2. two calls that share a call id keep their own outputs; repair has nothing to do", async () => {
  await using dir = await tempDir();
  const location = await sessionWith(dir.path, [
    user("one"),
    call("x"),
    output("x", "read_file", "first"),
    assistant("done"),
    user("two"),
    call("x"),
    output("x", "read_file", "second"),
  ]);
  const resumed = await resumeFile(location.path);
  assertEquals([resumed.synthesizedItems, resumed.droppedItems], [[], []]);
  assertEquals(
    resumed.history.filter((item) => item.type === "function_call_output").map((item) =>
      item.type === "function_call_output" && item.output
    ),
    ["first", "second"],
  );
  const report = await inspectSession(location.path);
  assertEquals([report.healthy, report.orphanCalls, report.orphanOutputs], [true, [], []]);
  const bytes = await Deno.readFile(location.path);
  const { plan } = await repairSession(location.path);
  assertEquals([plan.moved, plan.appended], [[], []]);
  assertEquals(await Deno.readFile(location.path), bytes, "repair converges at once");
});

for (const wireApi of ["responses", "chat"] as const) {
  Deno.test(`3. ${wireApi}: an orphan call in the middle gets its output right after it, and the API accepts the history`, async () => {
    await using h = await harness({ "a.txt": "A" });
    // A first turn whose call a crash left without an output, then a later turn.
    const { location } = await initializeSessionForRun({
      ...RUN_BASE,
      root: h.sessionsDir,
      wireApi,
      message: "read a.txt",
    }).then(async (run) => {
      await run.writer.append([
        ...itemRecords([call("lost", "read_file", '{"path":"a.txt"}')]),
        makeRecord("turn_context", { ...run.turn, runId: newId(), resumed: true }),
        ...itemRecords([user("hello"), assistant("hi")]),
        makeRecord("run_finished", { runId: run.runId, outcome: "succeeded", rounds: 1 }),
      ]);
      run.writer.close();
      return run;
    });
    const sessionId = location.id;
    const events = await h.turn("what did I ask so far?", { sessionId });
    assertEquals(events.at(-1)?.type, "run_succeeded", JSON.stringify(events.at(-1)));
    const repaired = eventOf(events, "session_repaired");
    assertEquals(repaired.callIds, ["lost"]);
    // The synthesized output was appended at the end of the file, but the history sent puts
    // it right after its call.
    const history = (await resumeFile(location.path)).history;
    const at = history.findIndex((item) => item.type === "function_call");
    assertEquals(history[at + 1]?.type, "function_call_output");
    assertEquals(
      labels(await fileRecords(location.path)).filter((l) => l.includes("synthesized")).length,
      1,
    );
  });
}

Deno.test("4. resume says which lines it skipped, with path:line, in its events", async () => {
  await using h = await harness();
  const first = await h.turn("hello");
  const path = eventOf(first, "run_started").sessionPath;
  const glued = JSON.stringify(makeRecord("response_item", user("one"))) +
    JSON.stringify(makeRecord("response_item", user("two")));
  await Deno.writeTextFile(path, glued + "\n", { append: true });
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n").length;
  const events = await h.turn("again", { sessionId: eventOf(first, "run_started").sessionId });
  const skipped = eventOf(events, "lines_skipped");
  assertEquals(skipped.problems.map((p) => [p.line, p.kind]), [[lines, "malformed_json"]]);
  assertMatch(
    skipped.problems[0]!.message,
    new RegExp(`^${path.replaceAll("/", "\\/")}:${lines}: not valid JSON`),
  );
});

Deno.test("5. a file resume refuses is left byte for byte as it was", async () => {
  await using dir = await tempDir();
  const id = newId();
  const path = sessionFilePath(dir.path, id, new Date());
  await Deno.mkdir(join(path, ".."), { recursive: true });
  const binary = new Uint8Array(448).map((_, i) => (i * 37) % 256);
  await Deno.writeFile(path, binary);
  await assertRejects(
    () => initializeSessionForRun({ ...RUN_BASE, root: dir.path, sessionId: id, message: "hi" }),
    SessionFileError,
    "no session_meta record could be read",
  );
  assertEquals(await Deno.readFile(path), binary);
  assertEquals(await Deno.stat(quarantinePath(path)).then(() => true, () => false), false);
});

Deno.test("6. repair says exactly what it does: an unknown record at the end without its newline", async () => {
  await using dir = await tempDir();
  const location = await sessionWith(dir.path, [user("hi"), assistant("hello")]);
  await Deno.writeTextFile(location.path, '{"a":1}', { append: true });
  const dry = await planFileRepair(await inspectSession(location.path));
  assertEquals(dry.moved.map((m) => [m.kind, m.bytes]), [["unknown_type", 7]]);
  assertEquals(dry.method, "truncate");
  const { plan, after } = await repairSession(location.path);
  assertEquals(plan, dry, "the plan carried out is the plan shown");
  assert(after.healthy);
  const sidecar = await Deno.readFile(quarantinePath(location.path));
  assertMatch(
    byteString(sidecar),
    /line 5, unknown_type, 7 bytes, from byte \d+, sha256 [0-9a-f]{64}/,
  );
  assertEquals(sidecarPayloadLines(sidecar), ['{"a":1}']);
});

Deno.test("7. an interrupted repair's temp file is cleaned up and the sidecar never keeps a line twice", async () => {
  await using dir = await tempDir();
  const location = await sessionWith(dir.path, [user("hi")]);
  await Deno.writeTextFile(location.path, "not json\n", { append: true });
  await Deno.writeTextFile(
    location.path,
    JSON.stringify(makeRecord("response_item", user("after"))) + "\n",
    {
      append: true,
    },
  );
  // An earlier repair copied the bad line to the sidecar and wrote its temp file, then died.
  const report = await inspectSession(location.path);
  const bad = report.problems[0]!;
  await quarantineLines(location.path, [{
    line: bad.line,
    kind: bad.kind,
    start: bad.start!,
    bytes: encoder.encode("not json"),
  }]);
  const stale = repairTempPath(location.path);
  await Deno.writeTextFile(stale, "half a copy");
  const { after } = await repairSession(location.path);
  assert(after.healthy);
  assertEquals(
    await Deno.stat(stale).then(() => true, () => false),
    false,
    "the temp file is gone",
  );
  assertEquals(sidecarPayloadLines(await Deno.readFile(quarantinePath(location.path))), [
    "not json",
  ]);
});

Deno.test("8. a session_meta that names another session: inspect says so, resume refuses before appending", async () => {
  await using dir = await tempDir();
  const location = await sessionWith(dir.path, [user("hi")]);
  const other = newId();
  const copy = sessionFilePath(dir.path, other, new Date());
  await Deno.mkdir(join(copy, ".."), { recursive: true });
  await Deno.copyFile(location.path, copy);
  const bytes = await Deno.readFile(copy);
  const report = await inspectSession(copy);
  assertEquals(report.problems.map((p) => p.kind), ["id_mismatch"]);
  assertEquals(report.healthy, false);
  await assertRejects(
    () => initializeSessionForRun({ ...RUN_BASE, root: dir.path, sessionId: other, message: "hi" }),
    SessionFileError,
    "session_meta names the session",
  );
  assertEquals(await Deno.readFile(copy), bytes, "nothing appended");
  assertEquals((await planFileRepair(report)).refused !== null, true);
});

Deno.test("9. a closed stdout does not cut a turn short: its calls are paired and its end recorded", async () => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, "a.txt"), "A");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${CONFIG}`,
      "-q",
      "-P=resume",
      CLI,
      "--sessions-dir",
      join(dir.path, "sessions"),
      "--workspace",
      dir.path,
      "--model",
      "scripted",
      "--json",
      "list the files",
    ],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  // Like `| head -1`: read the first line, then close the pipe.
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert(!first.done);
  await reader.cancel();
  const status = await child.status;
  await child.stderr.cancel();
  assertEquals(status.code, 0);
  const started = JSON.parse(new TextDecoder().decode(first.value).split("\n")[0]!);
  const records = await fileRecords(started.sessionPath);
  assertEquals(labels(records).at(-1), "run_finished");
  assertEquals(
    labels(records).filter((l) => l.startsWith("call:")).length,
    labels(records).filter((l) => l.startsWith("output:")).length,
  );
});

Deno.test("10. the HTTP route limits bodies and messages, and refuses a malformed escape with 400", async () => {
  await using connection = await connectModel({ model: "scripted" });
  await using dir = await tempDir();
  const handler = createAgentHandler({
    connection,
    sessionsDir: dir.path,
    workspace: dir.path,
    maxMessageChars: 100,
  });
  const post = (path: string, body: string) =>
    handler(
      new Request(`http://localhost${path}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      }),
    );
  const long = await post("/api/agent/stream", JSON.stringify({ message: "x".repeat(101) }));
  assertEquals(long.status, 413);
  assertMatch(
    (await long.json()).error,
    /^The message is 101 characters; this server takes at most 100/,
  );
  const huge = await post("/api/agent/stream", "x".repeat(2_000_000));
  assertEquals(huge.status, 413);
  assertMatch((await huge.json()).error, /^The request body is larger than this server takes/);
  const escape = await post("/api/agent/approvals/%zz/call", JSON.stringify({ decision: "deny" }));
  assertEquals(escape.status, 400);
  assertEquals((await escape.json()).error, 'Malformed %-escape in the path: "%zz"');
  const entries = [];
  for await (const entry of Deno.readDir(dir.path)) entries.push(entry.name);
  assertEquals(entries, [], "nothing was written for a refused request");
});

Deno.test("10. compaction in the middle of a turn keeps the outputs the model has not answered", async () => {
  await using h = await harness({ "big.txt": "a line of text\n".repeat(400) });
  const first = await h.turn("hello");
  const sessionId = eventOf(first, "run_started").sessionId;
  const events = await h.turn("read big.txt", {
    sessionId,
    compactor: createCompactor({ threshold: 300 }),
  });
  const done = eventOf(events, "run_succeeded");
  // The model answered the output it asked for instead of calling the tool until the limit.
  assertEquals([done.roundLimitReached, done.rounds], [false, 2]);
  assertMatch(done.answer, /read_file\(big\.txt\) returned/);
});
