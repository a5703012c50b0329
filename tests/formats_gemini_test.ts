/**
 * Gemini CLI session files read as Gemini's own replay reads them (the last copy of a message
 * id wins, in the order of first appearance; checkpoints; rewinds), found and listed where
 * Gemini keeps them, checked as Gemini's API would refuse their history on a resume, and
 * repaired losslessly, on files the project's own builder writes.
 */
import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { invalidRecords, paired, readText, resumedHistory } from "./_formats.ts";
import {
  adapterFor,
  collectSession,
  detectFormat,
  detectSessionsRoot,
  foreignSource,
  INTERRUPTED_RESULT,
  validateSessionFile,
} from "../src/formats/mod.ts";
import { planForeignFileRepair, repairSession } from "../src/repair/mod.ts";
import { AmbiguousSessionError, quarantinePath } from "../src/store/mod.ts";
import { parseSidecar } from "../testing/sidecar.ts";
import { importSession } from "../src/import/mod.ts";
import { inspectSession, verdictOf } from "../src/inspect/mod.ts";
import { searchSessions } from "../src/search/mod.ts";
import { eventOf, harness, pairedCallCount } from "./_runtime_helpers.ts";
import {
  GEMINI_SESSION_ID,
  geminiBusySession,
  GeminiSessionBuilder,
  geminiToolSession,
} from "../testing/formats/gemini_builder.ts";

const NAME = "session-2026-12-01T10-00-5a7e0c1d.jsonl";
const gemini = adapterFor("gemini");

async function read(dir: string, text: string, name = NAME) {
  const read = await readText(dir, name, text, "gemini");
  assertEquals(invalidRecords(read.records), []);
  assert(paired(resumedHistory(read.records).history), "the resumed history pairs every call");
  return read;
}

Deno.test("a Gemini session with a tool call reads as its one turn, the call paired", async () => {
  await using dir = await tempDir();
  const { lines, facts } = await read(dir.path, geminiToolSession().text());
  assertEquals(lines, [
    `1 session_meta ${GEMINI_SESSION_ID} gemini-2.5-flash ask-changes`,
    "2 ignored injected context",
    "3 turn_context line-3 gemini-2.5-flash ask-changes",
    "3 user: What does the README say?",
    "5 ignored superseded copy",
    "7 ignored thoughts",
    "7 assistant: Let me read it.",
    '7 call read_file__read_file_1_0 read_file {"file_path":"README.md"}',
    "7 output read_file__read_file_1_0 read_file: hello readme\n",
    "8 ignored repeated function response",
    "10 assistant: The README says hello.",
    "10 run_finished line-3 succeeded rounds=2",
  ]);
  assertEquals(facts.sessionId, GEMINI_SESSION_ID);
  assertEquals(facts.firstPrompt, "What does the README say?");
  assertEquals(facts.models, ["gemini-2.5-flash"]);
  assertEquals(facts.turns, 1);
  assertEquals(facts.lines, 11);
  assertEquals(facts.tokens, {
    input: 230,
    output: 17,
    cacheRead: 100,
    cacheCreation: 0,
    reasoningOutput: 0,
    total: 247,
  });
  assertEquals(facts.created, "2026-12-01T10:00:01.000Z");
});

Deno.test("Gemini's replay: the last copy wins in first-appearance order; $rewindTo; $set", async () => {
  await using dir = await tempDir();
  const ids: string[] = [];
  const b = new GeminiSessionBuilder().user("first", ids).gemini({ text: "one" }, ids)
    .user("second", ids).gemini({ text: "two" }, ids);
  // The first answer rewritten after the second prompt: it stays where it first came.
  b.raw({ id: ids[1], timestamp: b.time(), type: "gemini", content: "one, edited" });
  b.raw({ $set: { summary: "A short chat" } });
  b.raw({ $rewindTo: ids[2] }).user("second, again").gemini({ text: "two, again" });
  const { lines, facts } = await read(dir.path, b.text());
  assertEquals(lines, [
    `1 session_meta ${GEMINI_SESSION_ID} gemini-2.5-flash ask-changes`,
    "2 turn_context line-2 gemini-2.5-flash ask-changes",
    "2 user: first",
    "4 ignored superseded copy",
    "10 assistant: one, edited",
    "6 ignored rewound",
    "8 ignored rewound",
    "10 run_finished line-2 succeeded rounds=1",
    "13 turn_context line-13 gemini-2.5-flash ask-changes",
    "13 user: second, again",
    "15 assistant: two, again",
    "15 run_finished line-13 succeeded rounds=1",
  ]);
  assertEquals(facts.title, "A short chat");
  assertEquals(facts.turns, 2);
  assertEquals(gemini.notes(facts), [
    "1 line passed over: an earlier copy of a message (the last copy of a message id wins)",
    "2 messages rewound ($rewindTo)",
  ]);
});

Deno.test("readGeminiSession() hands on the copies that left the history in the order their messages came, not as they left", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder();
  const message = (id: string, type: string, text: string) =>
    b.raw({ id, timestamp: b.time(), type, content: [{ text }] });
  message("a", "user", "first");
  message("b", "gemini", "one");
  message("c", "user", "second");
  // The third message rewritten before the first: its old copy left the history first.
  message("c", "user", "second, edited");
  message("a", "user", "first, edited");
  message("d", "gemini", "two");
  b.raw({ $rewindTo: "d" });
  const { lines, facts } = await read(dir.path, b.text());
  assertEquals(lines, [
    `1 session_meta ${GEMINI_SESSION_ID} unknown ask-changes`,
    "2 ignored superseded copy",
    "6 turn_context line-6 unknown ask-changes",
    "6 user: first, edited",
    "3 assistant: one",
    "4 ignored superseded copy",
    "3 run_finished line-6 succeeded rounds=1",
    "5 turn_context line-5 unknown ask-changes",
    "5 user: second, edited",
    "7 ignored rewound",
  ]);
  assertEquals(facts.formatFacts, {
    supersededCopies: 2,
    checkpoints: 0,
    replacedByCheckpoint: 0,
    rewound: 1,
    parentSessionId: null,
    legacy: false,
  });
});

Deno.test("a $set of messages is a checkpoint: the history from it on", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder().user("old prompt").gemini({ text: "old answer" });
  b.raw({
    $set: {
      messages: [
        { id: "s1", timestamp: b.time(), type: "user", content: [{ text: "compressed prompt" }] },
        { id: "s2", timestamp: b.time(), type: "gemini", content: [{ text: "compressed answer" }] },
      ],
    },
  });
  b.user("new prompt");
  const { lines } = await read(dir.path, b.text());
  assertEquals(lines, [
    // The model the file named first (the checkpoint's messages name none).
    `1 session_meta ${GEMINI_SESSION_ID} gemini-2.5-flash ask-changes`,
    "2 ignored replaced by a checkpoint",
    "4 ignored replaced by a checkpoint",
    "6 turn_context line-6 gemini-2.5-flash ask-changes",
    "6 user: compressed prompt",
    "6 assistant: compressed answer",
    "6 run_finished line-6 succeeded rounds=1",
    "7 turn_context line-7 gemini-2.5-flash ask-changes",
    "7 user: new prompt",
  ]);
});

Deno.test("a legacy single-object .json session is read as its history", async () => {
  await using dir = await tempDir();
  const legacy = {
    sessionId: GEMINI_SESSION_ID,
    projectHash: "ab",
    startTime: "2025-06-01T10:00:00.000Z",
    lastUpdated: "2025-06-01T10:01:00.000Z",
    messages: [
      { id: "u1", timestamp: "2025-06-01T10:00:01.000Z", type: "user", content: "Hi there" },
      {
        id: "g1",
        timestamp: "2025-06-01T10:00:02.000Z",
        type: "gemini",
        content: "",
        toolCalls: [{
          id: "list_directory__w1",
          name: "list_directory",
          args: { path: "." },
          result: "a.txt",
          status: "success",
        }],
      },
      { id: "g2", timestamp: "2025-06-01T10:00:03.000Z", type: "gemini", content: "One file." },
    ],
  };
  const name = "session-2025-06-01T10-00-5a7e0c1d.json";
  const { lines, facts } = await read(dir.path, JSON.stringify(legacy, null, 2), name);
  assertEquals(lines, [
    `1 session_meta ${GEMINI_SESSION_ID} unknown ask-changes`,
    "1 turn_context line-1 unknown ask-changes",
    "1 user: Hi there",
    '1 call list_directory__w1 list_directory {"path":"."}',
    "1 output list_directory__w1 list_directory: a.txt",
    "1 assistant: One file.",
    "1 run_finished line-1 succeeded rounds=2",
  ]);
  assertEquals(facts.created, "2025-06-01T10:00:00.000Z");
  assertEquals(gemini.notes(facts), ["a legacy single-object session file (before 0.39)"]);
  assertEquals(await validateSessionFile(join(dir.path, name), "gemini"), {
    format: "gemini",
    path: join(dir.path, name),
    valid: true,
    findings: [],
  });
});

Deno.test("detectFormat tells a Gemini session by its metadata line and first message", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, NAME);
  await Deno.writeTextFile(path, geminiToolSession().text());
  assertEquals(await detectFormat(path), {
    format: "gemini",
    state: "records",
    line: 2,
    evidence: "a Gemini CLI checkpoint ($set of messages)",
  });
  const empty = join(dir.path, "session-2026-12-01T10-05-00000000.jsonl");
  await Deno.writeTextFile(empty, "");
  assertEquals((await detectFormat(empty)).format, "gemini");
});

/** A Gemini home: a project with a session, a resume's stub, a subagent's session. */
async function home(dir: string) {
  const chats = join(dir, ".gemini", "tmp", "proj", "chats");
  await Deno.mkdir(join(chats, GEMINI_SESSION_ID), { recursive: true });
  await Deno.writeTextFile(join(dir, ".gemini", "tmp", "proj", ".project_root"), "/work/proj\n");
  const session = join(chats, NAME);
  await Deno.writeTextFile(session, geminiToolSession().text());
  const stub = join(chats, "session-2026-12-01T11-00-5a7e0c1d.jsonl");
  await Deno.writeTextFile(stub, new GeminiSessionBuilder().context().text());
  const subId = "5a7e9999-0000-4000-8000-000000000009";
  const sub = join(chats, GEMINI_SESSION_ID, `${subId}.jsonl`);
  await Deno.writeTextFile(sub, new GeminiSessionBuilder(subId, "subagent").user("sub").text());
  const other = join(chats, "session-2026-12-02T09-30-5a7e0c2e.jsonl");
  const otherId = "5a7e0c2e-0000-4000-8000-000000000002";
  await Deno.writeTextFile(other, new GeminiSessionBuilder(otherId).user("Other work").text());
  return { root: join(dir, ".gemini", "tmp"), session, stub, sub, subId, other, otherId };
}

Deno.test("the Gemini home: GEMINI_CLI_HOME, found by prefix, the stub passed over", async () => {
  await using dir = await tempDir();
  const h = await home(dir.path);
  const env = { get: (name: string) => (name === "GEMINI_CLI_HOME" ? dir.path : undefined) };
  assertEquals(await foreignSource({ home: "gemini", env }), { format: "gemini", root: h.root });
  assertEquals(await detectSessionsRoot(join(dir.path, ".gemini")), {
    format: "gemini",
    root: h.root,
  });
  const found = await gemini.find(h.root, "5a7e0c1d-0000");
  assertEquals([found.id, found.path, found.project], [GEMINI_SESSION_ID, h.session, "proj"]);
  assertEquals((await gemini.find(h.root, GEMINI_SESSION_ID)).path, h.session);
  assertEquals((await gemini.find(h.root, "5a7e0c2")).path, h.other);
  assertEquals((await gemini.find(h.root, h.subId)).path, h.sub);
  await assertRejects(() => gemini.find(h.root, "5a7e0c"), AmbiguousSessionError);
  const listing = await gemini.list(h.root, {});
  assertEquals(
    listing.sessions.map((s) => [s.id, s.path, s.preview, s.cwd, s.model, s.firstAt, s.lastAt]),
    [
      [
        h.otherId,
        h.other,
        "Other work",
        "/work/proj",
        null,
        "2026-12-01T10:00:01.000Z",
        "2026-12-01T10:00:02.000Z",
      ],
      [
        GEMINI_SESSION_ID,
        h.session,
        "What does the README say?",
        "/work/proj",
        "gemini-2.5-flash",
        "2026-12-01T10:00:01.000Z",
        "2026-12-01T10:00:11.000Z",
      ],
    ],
  );
  const { facts } = await collectSession(h.session, "gemini");
  assertEquals(facts.cwd, "/work/proj");
  assertEquals(facts.subagents, [{ path: h.sub, agentId: h.subId, style: "folder", line: null }]);
  const subFacts = (await collectSession(h.sub)).facts;
  assertEquals(gemini.notes(subFacts), [`a subagent's session (of session ${GEMINI_SESSION_ID})`]);
  // A resume's stub has no conversation, said in words that fit Gemini's file too.
  const stub = await inspectSession(h.stub);
  assertEquals([stub.session.state, verdictOf(stub)], ["metadata-only", {
    healthy: true,
    tone: "warn",
    words: "no conversation: only the session's metadata lines",
    tokens: verdictOf(stub).tokens,
  }]);
});

/** Repairs `text` written as a session file; returns the plan, the new text and the sidecar. */
async function repaired(dir: string, text: string) {
  const path = join(dir, NAME);
  await Deno.writeTextFile(path, text);
  const before = await validateSessionFile(path, "gemini");
  const plan = await planForeignFileRepair(path, "gemini");
  await repairSession(path);
  const after = await validateSessionFile(path, "gemini");
  assertEquals(after.findings, [], "the repaired file passes Gemini's check");
  const again = await planForeignFileRepair(path, "gemini");
  assertEquals(
    [again.moved, again.rewritten, again.inserted],
    [[], [], []],
    "a second repair does nothing",
  );
  const sidecar = parseSidecar(await Deno.readFile(quarantinePath(path)));
  const decoder = new TextDecoder();
  return {
    path,
    before: before.findings.map((f) => `${f.kind} ${f.line}`),
    plan,
    text: await Deno.readTextFile(path),
    sidecar: sidecar.map((entry) => ({
      kind: entry.kind,
      start: entry.start,
      text: decoder.decode(entry.bytes),
    })),
  };
}

Deno.test("repair takes out the result Gemini's resume would send twice (the 400 it gets)", async () => {
  await using dir = await tempDir();
  const b = geminiToolSession();
  const r = await repaired(dir.path, b.text());
  assertEquals(r.before, ["unexpected_result 8"]);
  const kept = b.lines.filter((_, at) => at !== 7);
  assertEquals(r.text, kept.map((line) => `${line}\n`).join(""));
  const start = b.lines.slice(0, 7).reduce(
    (n, line) => n + new TextEncoder().encode(line).length + 1,
    0,
  );
  assertEquals(r.sidecar, [{ kind: "duplicate_output", start, text: b.lines[7]! }]);
});

Deno.test("repair keeps every byte of a torn last line and the file ends on a whole line", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder().user("Hello").gemini({ text: "Hi." });
  const whole = b.text();
  const torn =
    '{"id":"00000000-0000-4000-8000-000000000009","timestamp":"2026-12-01T10:00:09.000Z","type":"us';
  const r = await repaired(dir.path, whole + torn);
  assertEquals(r.before, ["bad_line 6"]);
  assertEquals(r.text, whole);
  assertEquals(r.sidecar, [{
    kind: "torn_tail",
    start: new TextEncoder().encode(whole).length,
    text: torn,
  }]);
});

Deno.test("repair splits two glued lines and answers a call that has no response", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder().user("List it").gemini({
    text: "",
    calls: [{ name: "list_directory", wire: "w1", args: { dir_path: "." } }],
  });
  // The last two lines glued together: a lost newline.
  const glued = b.lines.slice(0, -2).concat(b.lines.at(-2)! + b.lines.at(-1)!);
  const r = await repaired(dir.path, glued.map((line) => `${line}\n`).join(""));
  assertEquals(r.before, ["bad_line 5", "unanswered_call 5"]);
  const response = JSON.parse(r.text.trimEnd().split("\n").at(-1)!);
  assertEquals(response.type, "user");
  assertEquals(response.content, [{
    functionResponse: {
      id: "list_directory__w1",
      name: "list_directory",
      response: { error: INTERRUPTED_RESULT },
    },
  }]);
  assertEquals(r.text.trimEnd().split("\n").slice(0, -1), b.lines);
  assertEquals(r.sidecar.map((e) => e.kind), ["malformed_json"]);
  const { lines } = await read(dir.path, r.text);
  assertEquals(lines.filter((line) => / (call|output) /.test(line)), [
    '6 call list_directory__w1 list_directory {"dir_path":"."}',
    `7 output list_directory__w1 list_directory error: ${INTERRUPTED_RESULT}`,
  ]);
});

Deno.test("repair moves a response no call asked for", async () => {
  await using dir = await tempDir();
  const b = new GeminiSessionBuilder().user("Hello");
  b.raw({
    id: "stray",
    timestamp: b.time(),
    type: "user",
    content: [{ functionResponse: { id: "x__1", name: "x", response: { output: "?" } } }],
  });
  b.gemini({ text: "Hi." });
  const r = await repaired(dir.path, b.text());
  assertEquals(r.before, ["unexpected_result 4"]);
  assertEquals(r.text, b.lines.filter((_, at) => at !== 3).map((line) => `${line}\n`).join(""));
  assertEquals(r.sidecar.map((e) => [e.kind, e.text]), [["orphan_output", b.lines[3]]]);
});

Deno.test("search finds a Gemini session's words: prompts, answers, calls and their results", async () => {
  await using dir = await tempDir();
  const h = await home(dir.path);
  const sources = [{ format: "gemini", root: h.root, flags: ["--gemini"] }];
  const hits: string[] = [];
  for await (const event of searchSessions({ terms: ["readme"] }, { sources })) {
    if (event.kind !== "session") continue;
    assertEquals(event.session.firstPrompt, "What does the README say?");
    hits.push(...event.hits.map((hit) => `${hit.line} turn ${hit.turn} ${hit.role}`));
  }
  // Line 7 is the call (its result on the same line); line 8 repeats the result: left out.
  assertEquals(hits, ["3 turn 1 user", "7 turn 1 tool call", "10 turn 1 assistant"]);
});

Deno.test("a Gemini session imported into turnlog is continued on the embedded model", async () => {
  await using h = await harness();
  const source = join(h.workspace, "..", "gemini", NAME);
  await Deno.mkdir(join(source, ".."), { recursive: true });
  await Deno.writeTextFile(source, geminiToolSession().text());
  const before = await Deno.readTextFile(source);
  const imported = await importSession(source, { root: h.sessionsDir });
  assertEquals([imported.items, imported.calls, imported.synthesized], [5, 1, 0]);
  assertEquals(imported.source.format, "gemini");
  const events = await h.turn("what did I ask?", {
    sessionId: imported.sessionId,
    model: h.model.model,
  });
  eventOf(events, "run_succeeded");
  assertEquals(pairedCallCount(h.sent.at(-1)!), 1);
  assertEquals(await Deno.readTextFile(source), before, "the Gemini file is only read");
});

Deno.test("detectFormat tells a legacy single-object Gemini session from its top-level fields", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "session-2025-06-01T10-00-5a7e0c1d.json");
  const legacy = {
    sessionId: GEMINI_SESSION_ID,
    projectHash: "ab",
    startTime: "2025-06-01T10:00:00.000Z",
    messages: [],
  };
  await Deno.writeTextFile(path, JSON.stringify(legacy, null, 2));
  assertEquals(await detectFormat(path), {
    format: "gemini",
    state: "records",
    line: 1,
    evidence: "a Gemini CLI session's metadata line (one JSON object)",
  });
  const other = join(dir.path, "other.json");
  await Deno.writeTextFile(other, JSON.stringify({ name: "x", version: "1" }, null, 2));
  assertEquals((await detectFormat(other)).format, "unknown");
});

Deno.test("two calls in one Gemini reply are paired with their results; a rewound turn is gone", async () => {
  await using dir = await tempDir();
  const { lines, facts } = await read(dir.path, geminiBusySession().text());
  assertEquals(lines.filter((line) => !line.includes(" ignored ")), [
    `1 session_meta ${GEMINI_SESSION_ID} gemini-2.5-flash ask-changes`,
    "3 turn_context line-3 gemini-2.5-flash ask-changes",
    "3 user: Look around",
    "7 assistant: Two looks.",
    '7 call list_directory__l1 list_directory {"dir_path":"."}',
    '7 call read_file__r1 read_file {"file_path":"a.txt"}',
    "7 output list_directory__l1 list_directory: a.txt\nb.txt",
    "7 output read_file__r1 read_file: A",
    "10 assistant: There are two files.",
    "10 run_finished line-3 succeeded rounds=2",
    "17 turn_context line-17 gemini-2.5-flash ask-changes",
    "17 user: Read b.txt",
    '21 call read_file__r2 read_file {"file_path":"b.txt"}',
    "21 output read_file__r2 read_file: B",
    "24 assistant: b.txt says B.",
    "24 run_finished line-17 succeeded rounds=2",
  ]);
  assertEquals(facts.turns, 2);
  const path = join(dir.path, NAME);
  assertEquals((await validateSessionFile(path, "gemini")).findings.map((f) => f.line), [8, 8, 22]);
});

Deno.test("repair rewrites a checkpoint without the repeated result, and a message without a stray part", async () => {
  await using dir = await tempDir();
  const b = geminiToolSession();
  // A resume's checkpoint: the history again (each message's last copy), the result's repeat
  // (index 2) with it.
  const byId = new Map<string, unknown>();
  for (const line of b.lines.filter((line) => line.startsWith('{"id"'))) {
    const message = JSON.parse(line);
    byId.set(message.id, message);
  }
  const messages = [...byId.values()];
  b.raw({ $set: { messages } });
  const stray = { functionResponse: { id: "x__9", name: "x", response: { output: "?" } } };
  b.raw({
    id: "mixed",
    timestamp: b.time(),
    type: "user",
    content: [{ text: "And now?" }, stray],
  });
  const r = await repaired(dir.path, b.text());
  assertEquals(r.before, ["unexpected_result 12", "unexpected_result 13"]);
  const lines = r.text.trimEnd().split("\n");
  assertEquals(lines.slice(0, 11), b.lines.slice(0, 11), "the lines before stay as they were");
  const checkpoint = JSON.parse(lines[11]!);
  assertEquals(checkpoint.$set.messages, messages.filter((_, at) => at !== 2));
  assertEquals(JSON.parse(lines[12]!).content, [{ text: "And now?" }]);
  assertEquals(r.sidecar.map((e) => [e.kind, e.text]), [
    ["orphan_output", b.lines[11]],
    ["orphan_output", b.lines[12]],
  ]);
});

Deno.test("validateSessionFile() finds each call's result twice after a resume's checkpoint, as Gemini 0.61 writes it", async () => {
  await using dir = await tempDir();
  const b = geminiToolSession();
  const byId = new Map<string, Record<string, unknown>>();
  for (const line of b.lines.filter((line) => line.startsWith('{"id"'))) {
    const message = JSON.parse(line);
    if (message.type !== "user" || !JSON.stringify(message).includes("functionResponse")) {
      byId.set(message.id, message);
    }
  }
  // Its resume's checkpoint (tests/real_clients/gemini_suite.ts): the model message with its
  // call as a functionCall part and in toolCalls, then its results as `<id>_response`.
  const [prompt, call, answer] = [...byId.values()];
  const toolCalls = call!.toolCalls as { id: string; name: string; args: unknown }[];
  const model = {
    ...call,
    content: toolCalls.map(({ id, name, args }) => ({ functionCall: { id, name, args } })),
  };
  const results = {
    id: `${call!.id}_response`,
    timestamp: b.time(),
    type: "user",
    content: toolCalls.map((c) =>
      b.response({ name: c.name, wire: c.id.split("__")[1]!, args: {}, output: "hello readme\n" })
    ),
  };
  const context = JSON.parse(b.lines[1]!).$set.messages[0];
  const messages = [context, prompt, model, results, answer];
  b.raw({ $set: { sessionId: b.sessionId } }).raw({ $set: { messages, lastUpdated: b.time() } });
  const checkpoint = b.lines.length;
  b.user("read it again").gemini({
    text: "Again.",
    calls: [{ name: "read_file", wire: "r2", args: { file_path: "README.md" }, output: "hi\n" }],
  }).gemini({ text: "Still hello." });
  const response = b.lines.findLastIndex((line) => line.includes('"functionResponse"')) + 1;
  const r = await repaired(dir.path, b.text());
  assertEquals(r.before, [`unexpected_result ${checkpoint}`, `unexpected_result ${response}`]);
  assertEquals(r.sidecar.map((e) => [e.kind, e.text]), [
    ["orphan_output", b.lines[checkpoint - 1]],
    ["duplicate_output", b.lines[response - 1]],
  ]);
  const repairedCheckpoint = JSON.parse(r.text.split("\n")[checkpoint - 1]!);
  assertEquals(repairedCheckpoint.$set.messages.map((m: { id: string }) => m.id), [
    context.id,
    prompt!.id,
    call!.id,
    answer!.id,
  ]);
});
