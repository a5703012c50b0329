/**
 * The real Gemini CLI 0.61.0 judges what turnlog reads and repairs. Each case runs the real
 * tool in a temporary home against the embedded model (which refuses what Gemini's API
 * refuses), damages the session the way it happens, and checks: turnlog reads what the tool
 * wrote as the tool means it (turns, calls, outputs), lists and finds it; `repairSession`
 * keeps every byte (the sidecar holds each original line it moved or changed, and the file is
 * the original with exactly the plan's edits); a second repair changes nothing; and the real
 * tool resumes the repaired file with requests the model accepts, its answer appended; and a
 * session it wrote is imported into turnlog and continued on the embedded model; and the
 * sessions it writes keep the adapter contract (`_format_contract.ts`) as the builder's do.
 */
import { assert, assertEquals, assertMatch } from "../_assert.ts";
import { needing } from "../_needs.ts";
import { describeEntry } from "../_formats.ts";
import { adapterFor, collectSession, validateSessionFile } from "../../src/formats/mod.ts";
import { GEMINI_RESPONSE_COUNT_MESSAGE } from "../../src/embedded_model/mod.ts";
import { editsOf, isEmptyPlan, repairSession } from "../../src/repair/mod.ts";
import { searchSessions } from "../../src/search/mod.ts";
import { quarantinePath } from "../../src/store/mod.ts";
import { GEMINI_CLI, installedRealClient } from "../../testing/real_clients/install.ts";
import { functionParts, GeminiHome, type GeminiRun } from "../../testing/real_clients/gemini.ts";
import { parseSidecar } from "../../testing/sidecar.ts";
import { importSession } from "../../src/import/mod.ts";
import { eventOf, harness, pairedCallCount } from "../_runtime_helpers.ts";
import { checkFormatContract, type FormatFixture } from "../_format_contract.ts";
import { geminiOracle } from "../_format_fixtures.ts";
import { tempDir } from "../_helpers.ts";
import { basename, dirname, join } from "node:path";
import { geminiToolSession } from "../../testing/formats/gemini_builder.ts";

const client = installedRealClient(GEMINI_CLI);
const missing = typeof client === "string" ? client : undefined;
/** The version that runs, for test names. */
const VERSION = typeof client === "string" ? GEMINI_CLI.version : client.version;
const gemini = adapterFor("gemini");

/** A test with a fresh home for the real Gemini CLI. */
function realTest(name: string, fn: (home: GeminiHome) => Promise<void>): void {
  Deno.test({
    ...needing(name.replace("Gemini CLI:", `Gemini CLI ${VERSION}:`), missing),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      await using home = await GeminiHome.open(client as Exclude<typeof client, string>);
      await fn(home);
    },
  });
}

/** Every request of the run was accepted, and the run ended well. */
function assertAccepted(run: GeminiRun): void {
  const refused = run.requests.filter((request) => request.status !== 200);
  assertEquals(refused.map((r) => `${r.status} ${r.error}`), [], "every request is accepted");
  assert(run.requests.length > 0, "it asked the model");
  assertEquals(run.code, 0, run.stderr);
}

/** The file's reading without line numbers, ignored things left out. */
async function reading(path: string): Promise<string[]> {
  const { entries } = await collectSession(path, "gemini");
  return entries.filter((entry) => entry.ignored === undefined)
    .map((entry) => describeEntry(entry).replace(/^\d+ /, "").replace(/line-\d+/, "line-N"));
}

/**
 * Repairs the file twice and checks the bytes: the sidecar keeps exactly the original bytes of
 * every line moved or changed; the file is the original with exactly the plan's edits; a
 * second repair changes nothing. Returns the plan. `earlier`: the sidecar entries earlier repairs
 * of the file left (a repair adds its own after them).
 */
async function repairTwice(path: string, earlier = 0) {
  const before = await Deno.readFile(path);
  const first = await repairSession(path);
  assertEquals(first.validation?.findings ?? [], [], "Gemini's check passes after it");
  const sidecar = parseSidecar(await Deno.readFile(quarantinePath(path))).slice(earlier);
  const touched = [...first.plan.moved, ...first.plan.rewritten].sort((a, b) => a.start - b.start);
  assertEquals(
    sidecar.map((entry) => [entry.start, new TextDecoder().decode(entry.bytes)]),
    touched.map((
      m,
    ) => [m.start, new TextDecoder().decode(before.subarray(m.start, m.start + m.bytes))]),
    "the sidecar keeps every original line it moved or changed, byte for byte",
  );
  const edits = editsOf(first.plan, before.at(-1) === 10, before.length)
    .sort((a, b) => b.start - a.start);
  let expected = new TextDecoder().decode(before);
  for (const edit of edits) {
    const at = new TextDecoder().decode(before.subarray(0, edit.start)).length;
    const to = new TextDecoder().decode(before.subarray(0, edit.end)).length;
    expected = expected.slice(0, at) + edit.text + expected.slice(to);
  }
  assertEquals(
    await Deno.readTextFile(path),
    expected,
    "the file is the original, edited by the plan",
  );
  const second = await repairSession(path);
  assert(isEmptyPlan(second.plan), "a second repair finds nothing to do");
  return first.plan;
}

realTest(
  "Gemini CLI: a session with a tool call is read, listed, found, repaired and resumed",
  async (home) => {
    const first = await home.run("read README.md");
    assertAccepted(first);
    const [written, ...others] = home.sessionFiles();
    assertEquals(others, []);
    // Named as a session of an earlier minute: a resume's stub (named by its own minute) is
    // then always a file of its own (in the same minute it would be this file).
    const path = written!.replace(/session-[\dT-]{16}-/, "session-2026-01-01T00-00-");
    await Deno.rename(written!, path);
    const facts = (await collectSession(path!, "gemini")).facts;
    const lines = await reading(path!);
    // The stored id is `<name>__<wire id>`; Gemini CLI makes the wire id (the model sent none).
    const callId = /^call (read_file__read_file_\S+) /.exec(lines[3] ?? "")?.[1];
    assert(callId !== undefined, lines.join("\n"));
    assertEquals(lines, [
      `session_meta ${facts.sessionId} scripted ask-changes`,
      "turn_context line-N scripted ask-changes",
      "user: read README.md",
      `call ${callId} read_file {"file_path":"README.md"}`,
      `output ${callId} read_file: hello readme\n`,
      'assistant: read_file({"file_path":"README.md"}) returned: hello readme',
      "run_finished line-N succeeded rounds=2",
    ]);
    assertEquals([facts.turns, facts.models, facts.cwd], [1, ["scripted"], home.project]);
    const listing = await gemini.list(home.root, {});
    assertEquals(listing.sessions.map((s) => [s.id, s.path, s.preview]), [
      [facts.sessionId, path, "read README.md"],
    ]);
    const sources = [{ format: "gemini", root: home.root, flags: ["--gemini"] }];
    const found = [];
    for await (const event of searchSessions({ terms: ["hello", "readme"] }, { sources })) {
      if (event.kind === "session") {
        found.push(
          ...event.hits.map((hit) => `${hit.role} ${hit.path}`),
        );
      }
    }
    // The line of the call holds its result (the README's words), and the answer quotes it:
    // two hits, the call's and the answer's, nothing else of the session.
    assertEquals(found, [`tool call ${path}`, `assistant ${path}`]);

    // Gemini 0.61 sends the call's one result twice when it resumes it: the API's 400.
    const refused = await home.run("what did I ask", { resume: "latest" });
    assertEquals(refused.requests.map((r) => `${r.status} ${r.error}`), [
      `400 ${GEMINI_RESPONSE_COUNT_MESSAGE}`,
    ]);
    assertEquals(functionParts(refused.requests[0]!).slice(0, 3), [
      "model: call read_file",
      "user: response read_file",
      "user: response read_file",
    ]);
    const stubs = home.sessionFiles().filter((file) => file !== path);
    assertEquals(stubs.length, 1, "the resume left a stub file beside the session");
    assertEquals((await gemini.find(home.root, facts.sessionId!)).path, path);
    assertEquals((await gemini.list(home.root, {})).sessions.map((s) => s.path), [path]);
    const stub = (await collectSession(stubs[0]!, "gemini")).facts;
    assertEquals([stub.sessionId, stub.state], [facts.sessionId, "metadata-only"]);

    const plan = await repairTwice(path!);
    // The repeated result leaves the checkpoint that holds it; no line moves.
    assertEquals(plan.moved, []);
    assertEquals(plan.rewritten.map((r) => r.kind), ["orphan_output"]);
    assertMatch(plan.rewritten[0]!.message, /: a second function response for read_file__/);
    const size = (await Deno.stat(path!)).size;
    const resumed = await home.run("what did I ask", { resume: "latest" });
    assertAccepted(resumed);
    assertEquals(functionParts(resumed.requests[0]!), [
      "model: call read_file",
      "user: response read_file",
    ]);
    assert(resumed.stdout.includes("1. read README.md"), resumed.stdout);
    const tail = (await Deno.readTextFile(path!)).slice(size);
    assert(tail.includes("Before this message you asked me 1 thing"), "its answer is in the file");
    assertEquals((await collectSession(path!, "gemini")).facts.turns, 2);
  },
);

realTest(
  "Gemini CLI: a torn last line is repaired with every byte kept, and Gemini resumes it",
  async (home) => {
    assertAccepted(await home.run("hello there"));
    const [path] = home.sessionFiles();
    const text = await Deno.readTextFile(path!);
    // The session's last message line cut in the middle, as a crash leaves it.
    const lines = text.split("\n");
    const last = lines.findLastIndex((line) => line.includes('"type":"gemini"'));
    const kept = lines.slice(0, last).map((line) => `${line}\n`).join("");
    const torn = lines[last]!.slice(0, Math.floor(lines[last]!.length / 2));
    await Deno.writeTextFile(path!, kept + torn);
    const { entries } = await collectSession(path!, "gemini");
    assertEquals(entries.filter((e) => e.problem).map((e) => [e.line, e.problem!.kind]), [
      [last + 1, "torn_tail"],
    ]);
    const plan = await repairTwice(path!);
    assertEquals(plan.moved.map((m) => [m.line, m.kind]), [[last + 1, "torn_tail"]]);
    assertEquals(await Deno.readTextFile(path!), kept, "the file ends on its last whole line");
    assertEquals(
      new TextDecoder().decode(parseSidecar(await Deno.readFile(quarantinePath(path!)))[0]!.bytes),
      torn,
    );
    const resumed = await home.run("what did I ask", { resume: "latest" });
    assertAccepted(resumed);
    assert(resumed.stdout.includes("1. hello there"), resumed.stdout);
    assertEquals((await collectSession(path!, "gemini")).entries.filter((e) => e.problem), []);
  },
);

realTest("Gemini CLI: a session it wrote is imported into turnlog and continued", async (home) => {
  assertAccepted(await home.run("read README.md"));
  const [path] = home.sessionFiles();
  const before = await Deno.readFile(path!);
  await using h = await harness();
  const imported = await importSession(path!, { root: h.sessionsDir });
  assertEquals([imported.calls, imported.synthesized, imported.source.format], [1, 0, "gemini"]);
  const events = await h.turn("what did I ask?", {
    sessionId: imported.sessionId,
    model: h.model.model,
  });
  eventOf(events, "run_succeeded");
  assertEquals(pairedCallCount(h.sent.at(-1)!), 1, "the call and its one result are sent");
  assertEquals(await Deno.readFile(path!), before, "the Gemini file is only read");
});

/**
 * The contract's fixture of a session file the real Gemini CLI wrote: a copy of it (and of its
 * project's `.project_root`) laid out in a Gemini root, searched against Gemini's oracle.
 */
async function realFixture(written: string): Promise<FormatFixture> {
  const text = await Deno.readTextFile(written);
  const { facts } = await collectSession(written, "gemini");
  const project = dirname(dirname(written));
  const projectRoot = await Deno.readTextFile(join(project, ".project_root")).catch(() => null);
  return {
    async write(dir) {
      const root = join(dir, ".gemini", "tmp");
      const chats = join(root, basename(project), "chats");
      await Deno.mkdir(chats, { recursive: true });
      if (projectRoot !== null) {
        await Deno.writeTextFile(join(root, basename(project), ".project_root"), projectRoot);
      }
      const path = join(chats, basename(written));
      await Deno.writeTextFile(path, text);
      return { root, path, id: facts.sessionId! };
    },
    oracle: geminiOracle,
  };
}

realTest(
  "Gemini CLI: the sessions it writes keep the adapter contract (detect, find, list, read, search, repair, import and resume)",
  async (home) => {
    assertAccepted(await home.run("read README.md"));
    const [written, ...others] = home.sessionFiles();
    assertEquals(others, []);
    await using dir = await tempDir();
    const first = await checkFormatContract(
      gemini,
      { gemini: await realFixture(written!) },
      join(dir.path, "first"),
    );
    assertEquals(first, 3, "a torn line, two lines glued, a line of NULs");

    // The same session repaired and resumed: a checkpoint of its history, a second turn.
    await repairSession(written!);
    assertAccepted(await home.run("what did I ask", { resume: "latest" }));
    assertEquals((await collectSession(written!, "gemini")).facts.turns, 2);
    const resumed = await checkFormatContract(
      gemini,
      { gemini: await realFixture(written!) },
      join(dir.path, "resumed"),
    );
    assertEquals(resumed, 3);
  },
);

/** A line's shape: a `$set` and its keys, or a message's type, its calls and its parts' kinds. */
function shapeOf(line: string): string {
  const value = JSON.parse(line);
  if (value.$set) return `$set ${Object.keys(value.$set).sort().join(",")}`;
  if (value.type === undefined) return "metadata";
  const parts = Array.isArray(value.content)
    ? value.content.map((part: Record<string, unknown>) => Object.keys(part).join("+"))
    : [typeof value.content];
  return [value.type, ...(value.toolCalls ? ["toolCalls"] : []), ...parts].join(" ");
}

realTest(
  "Gemini CLI: a session with one tool call has the line shapes of the builder's geminiToolSession()",
  async (home) => {
    assertAccepted(await home.run("read README.md"));
    const [written] = home.sessionFiles();
    const real = (await Deno.readTextFile(written!)).trimEnd().split("\n").map(shapeOf);
    // The call's result is written twice by the tool itself: in the model message's toolCalls
    // and in a user message of functionResponse parts (the line Gemini's check reports).
    assertEquals(real, [
      "metadata",
      "$set lastUpdated,messages",
      "user text",
      "$set lastUpdated",
      "gemini string",
      "$set lastUpdated",
      "gemini toolCalls string",
      "user functionResponse",
      "$set lastUpdated",
      "gemini string",
      "$set lastUpdated",
    ]);
    assertEquals(geminiToolSession().lines.map(shapeOf), real);
  },
);

realTest(
  "Gemini CLI: a tool call after a resume's checkpoint is answered twice by its resume, once after repair",
  async (home) => {
    assertAccepted(await home.run("read README.md"));
    const [written] = home.sessionFiles();
    const path = written!.replace(/session-[\dT-]{16}-/, "session-2026-01-01T00-00-");
    await Deno.rename(written!, path);
    const first = await repairTwice(path);
    assertEquals(first.moved.map((m) => m.kind), ["duplicate_output"]);
    const clean = (await Deno.readTextFile(path)).length;
    // The resume writes a checkpoint of the history (its new metadata and context go to the
    // stub), then the new call's result twice, as at the start.
    assertAccepted(await home.run("read README.md", { resume: "latest" }));
    const added = (await Deno.readTextFile(path)).slice(clean).trimEnd().split("\n").map(shapeOf);
    assertEquals(added, [
      "$set sessionId",
      "$set lastUpdated,messages",
      "user text",
      "$set lastUpdated",
      "gemini string",
      "$set lastUpdated",
      "gemini toolCalls string",
      "user functionResponse",
      "$set lastUpdated",
      "gemini string",
      "$set lastUpdated",
    ]);
    // turnlog's check: each call's result twice, the first call's in the checkpoint (the model
    // message with its toolCalls and a `<id>_response` user message), the new call's in the
    // user message after its toolCalls.
    const lines = (await Deno.readTextFile(path)).split("\n");
    const checkpoint = lines.findLastIndex((line) => line.startsWith('{"$set":{"messages"')) + 1;
    const response = lines.findLastIndex((line) => line.includes('"functionResponse"')) + 1;
    const { findings } = await validateSessionFile(path, "gemini");
    assertEquals(findings.map((f) => [f.line, f.kind]), [
      [checkpoint, "unexpected_result"],
      [response, "unexpected_result"],
    ]);
    for (const { message } of findings) assertMatch(message, /a second function response for/);

    // Both are true: Gemini's own resume sends each call's one result twice, the API's 400.
    const refused = await home.run("what did I ask", { resume: "latest" });
    assertEquals(refused.requests.map((r) => `${r.status} ${r.error}`), [
      `400 ${GEMINI_RESPONSE_COUNT_MESSAGE}`,
    ]);
    assertEquals(functionParts(refused.requests[0]!), [
      "model: call read_file",
      "user: response read_file",
      "user: response read_file",
      "model: call read_file",
      "user: response read_file",
      "user: response read_file",
    ]);
    const plan = await repairTwice(path, 1);
    // The refused resume wrote a checkpoint of the whole history: the results leave it alone.
    assertEquals(plan.moved, []);
    assertEquals(plan.rewritten.map((r) => r.kind), ["orphan_output"]);
    assertMatch(plan.rewritten[0]!.message, /: a second function response for read_file__/);
    const resumed = await home.run("what did I ask", { resume: "latest" });
    assertAccepted(resumed);
    assertEquals(functionParts(resumed.requests[0]!), [
      "model: call read_file",
      "user: response read_file",
      "model: call read_file",
      "user: response read_file",
    ]);
    assert(resumed.stdout.includes("2. read README.md"), resumed.stdout);
  },
);
