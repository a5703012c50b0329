/**
 * The real Gemini CLI 0.61.0 judges what turnlog reads and repairs. Each case runs the real
 * tool in a temporary home against the embedded model (which refuses what Gemini's API
 * refuses), damages the session the way it happens, and checks: turnlog reads what the tool
 * wrote as the tool means it (turns, calls, outputs), lists and finds it; `repairSession`
 * keeps every byte (the sidecar holds each original line it moved or changed, and the file is
 * the original with exactly the plan's edits); a second repair changes nothing; and the real
 * tool resumes the repaired file with requests the model accepts, its answer appended; and a
 * session it wrote is imported into turnlog and continued on the embedded model.
 */
import { assert, assertEquals, assertMatch } from "../_assert.ts";
import { needing } from "../_needs.ts";
import { describeEntry } from "../_formats.ts";
import { adapterFor, collectSession } from "../../src/formats/mod.ts";
import { GEMINI_RESPONSE_COUNT_MESSAGE } from "../../src/embedded_model/mod.ts";
import { editsOf, isEmptyPlan, repairSession } from "../../src/repair/mod.ts";
import { searchSessions } from "../../src/search/mod.ts";
import { quarantinePath } from "../../src/store/mod.ts";
import { GEMINI_CLI, installedRealClient } from "../../testing/real_clients/install.ts";
import { functionParts, GeminiHome, type GeminiRun } from "../../testing/real_clients/gemini.ts";
import { parseSidecar } from "../../testing/sidecar.ts";
import { importSession } from "../../src/import/mod.ts";
import { eventOf, harness, pairedCallCount } from "../_runtime_helpers.ts";

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
 * second repair changes nothing. Returns the plan.
 */
async function repairTwice(path: string) {
  const before = await Deno.readFile(path);
  const first = await repairSession(path);
  assertEquals(first.validation?.findings ?? [], [], "Gemini's check passes after it");
  const sidecar = parseSidecar(await Deno.readFile(quarantinePath(path)));
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
