import { InspectReportSchema, SessionListingSchema } from "../src/inspect/schemas.ts";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { evalWithGc, RUN_BASE, tempDir } from "./_helpers.ts";
import {
  byteString,
  joinLines,
  LONG_OUTPUT,
  makeStory,
  replaceLine,
  splitLines,
  strayOutputLine,
} from "./_inspect_fixtures.ts";
import { inspectSession, reportJsonPieces } from "../src/inspect/mod.ts";
import { runEvents, withCost } from "../src/inspect/_cost.ts";
import { resumeCommand } from "../cli/_commands.ts";
import { listSessions } from "../src/store/mod.ts";
import { shortestUniquePrefix, summarizeSessionFile } from "../src/store/mod.ts";
import { renderListing, renderReport, shortenText } from "../src/inspect/mod.ts";
import type { InspectReport, TurnEntry } from "../src/inspect/mod.ts";
import { newId } from "../src/record/mod.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";
import { findSession } from "../src/store/mod.ts";
import { repairSession } from "../src/repair/mod.ts";
import { harness, killedSession } from "./_runtime_helpers.ts";
import { generateSessionText, Rng } from "../testing/generate/mod.ts";
import { normalizeHistory, readRecords } from "../src/history/mod.ts";
import {
  makeRecord,
  type ResponseItem,
  responseItemRecord,
  type SessionRecord,
} from "../src/record/mod.ts";
import { replayHistory } from "../src/history/mod.ts";

/** Inspects and checks the document against its schema, as every consumer may rely on it. */
async function inspect(path: string, root?: string): Promise<InspectReport> {
  const report = await inspectSession(path, { root, entries: true, commandFor: resumeCommand });
  const parsed = InspectReportSchema.safeParse(JSON.parse(JSON.stringify(report)));
  assert(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues, null, 1));
  return report;
}

/** Writes `bytes` as a broken copy next to nothing else (outside any store). */
async function brokenCopy(dir: string, name: string, bytes: Uint8Array): Promise<string> {
  const path = `${dir}/${name}.jsonl`;
  await Deno.writeFile(path, bytes);
  return path;
}

/** The lines of a block, which `inspect` above always asks for. */
function entriesOf(block: { entries?: TurnEntry[] | undefined }): TurnEntry[] {
  assert(block.entries !== undefined, "no entries: they were asked for");
  return block.entries;
}

const kinds = (entries: TurnEntry[]) =>
  entries.map((e) =>
    e.kind === "message" ? e.role : e.kind === "problem" ? `problem:${e.problem}` : e.kind
  );

Deno.test("a fresh, a crashed and a resumed turn are three blocks with their counts and outcomes", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const report = await inspect(story.path, dir.path);

  assertEquals(report.session.id, story.sessionId);
  assertEquals(report.session.records, 21);
  assertEquals(report.session.model, "scripted");
  assertEquals(report.session.policy, { approval: "ask-changes" });
  assertEquals(report.header.endLine, 1);
  assertEquals(
    report.turns.map((t) => [t.index, t.runId, t.startLine, t.endLine, t.resumed, t.outcome]),
    [
      [1, story.runIds[0], 2, 8, false, "succeeded"],
      [2, story.runIds[1], 9, 13, true, null],
      [3, story.runIds[2], 14, 21, true, "failed"],
    ],
  );
  assertEquals(kinds(entriesOf(report.turns[0]!)), [
    "system",
    "user",
    "function_call",
    "function_call_output",
    "assistant",
    "run_finished",
  ]);
  assertEquals(kinds(entriesOf(report.turns[2]!)), [
    "function_call_output",
    "user",
    "compaction_checkpoint",
    "function_call",
    "function_call_output",
    "assistant",
    "run_finished",
  ]);
  const t3 = report.turns[2]!.counts;
  assertEquals(
    [
      t3.turn_context,
      t3.message,
      t3.function_call,
      t3.function_call_output,
      t3.compaction_checkpoint,
      t3.run_finished,
      t3.total,
    ],
    [1, 2, 1, 2, 1, 1, 8],
  );
  assertEquals(report.totals.counts.total, 21);
  assertEquals(report.totals.counts.message, 6);
  assertEquals(report.totals.usage.totalTokens, 1280);
  assertEquals([report.totals.turns, report.totals.resumedTurns, report.totals.unfinishedTurns], [
    3,
    2,
    1,
  ]);
  assertEquals(report.turns[2]!.error, "model refused");

  // The crash's call c3 (line 13, turn 2) is answered by the output resume synthesized.
  assertEquals(report.synthesizedOutputs, [
    { line: 15, turn: 3, callId: "c3", toolName: "write_file", call: { line: 13, turn: 2 } },
  ]);
  const c3 = entriesOf(report.turns[1]!).find((e) =>
    e.kind === "function_call" && e.callId === "c3"
  );
  assertEquals(c3?.kind === "function_call" && c3.output, { line: 15, turn: 3 });
  assertEquals(report.checkpoints, [{
    line: 17,
    turn: 3,
    version: 1,
    reason: "token budget",
    tokensBefore: 52000,
    removedItemCount: 9,
    keptItemCount: 2,
    replacementItemCount: 3,
  }]);
  assertEquals([report.orphanCalls, report.orphanOutputs, report.problems], [[], [], []]);
  assertEquals(report.healthy, true);

  // The long output is kept shortened with its full length.
  const out = entriesOf(report.turns[0]!)[3]!;
  assertEquals(out.kind === "function_call_output" && out.chars, LONG_OUTPUT.length);

  const prefix = report.continuePrefix!;
  assertStrictEquals(
    report.continueCommand,
    `./denow task resume --sessions-dir ${dir.path} --session ${prefix} "<your message>"`,
  );
  assert(prefix.length >= 8);
  assertEquals((await findSession(dir.path, prefix)).id, story.sessionId);
});

Deno.test("an orphan call is flagged as one resume would synthesize an output for, and the crash said so", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const report = await inspect(story.path, dir.path);
  assertEquals(report.orphanCalls, [
    { line: 13, turn: 2, callId: "c3", name: "write_file", inCheckpoint: false },
  ]);
  const c3 = entriesOf(report.turns[1]!).at(-1)!;
  assertEquals(c3.kind === "function_call" && [c3.orphan, c3.output], [true, null]);
  assertEquals(report.turns[1]!.outcome, null);
  assertEquals(report.problems, []);
  assertEquals(report.healthy, false);
  const text = renderReport(report, { color: false });
  assertMatch(text, /no output: resume would synthesize an output/);
  assertMatch(
    text,
    /the run did not finish: no run_finished record \(crashed or killed, or still running\)/,
  );
});

Deno.test("an orphan output and a second output are problems that resume drops", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const lines = splitLines(await Deno.readFile(story.path));
  const stray = strayOutputLine();
  const second = new TextDecoder().decode(lines[5]!); // c1's output again
  const path = await brokenCopy(
    dir.path,
    "orphan-output",
    joinLines([
      ...lines.slice(0, 7),
      new TextEncoder().encode(stray),
      new TextEncoder().encode(second),
      ...lines.slice(7),
    ]),
  );
  const report = await inspect(path);
  assertEquals(report.orphanOutputs.map((o) => [o.line, o.turn, o.callId, o.reason]), [
    [8, 1, "zz", "orphan_output"],
    [9, 1, "c1", "duplicate_output"],
  ]);
  assertEquals(report.problems.map((p) => [p.line, p.kind]), [[8, "orphan_output"], [
    9,
    "duplicate_output",
  ]]);
  assertMatch(
    report.problems[0]!.message,
    /:8: output for call zz \(read_file\) has no call before it: resume drops it$/,
  );
  assertMatch(
    renderReport(report, { color: false }),
    /orphan output: no call before it, resume drops it/,
  );
});

Deno.test("a torn tail and a corrupt middle line are listed with their lines and the rest still reads", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const lines = splitLines(await Deno.readFile(story.path));
  const broken = replaceLine(lines, 10, '{"timestamp":"x","type":"response_item","payl');
  broken[20] = broken[20]!.subarray(0, 30);
  const path = await brokenCopy(dir.path, "torn", joinLines(broken, { tornTail: true }));
  const report = await inspect(path);
  assertEquals(report.problems.map((p) => [p.line, p.kind, p.turn]), [
    [10, "malformed_json", 2],
    [21, "torn_tail", 3],
  ]);
  assertMatch(report.problems[0]!.message, new RegExp(`^${path}:10: not valid JSON`));
  assertEquals(report.turns.length, 3);
  assertEquals(report.turns[1]!.counts.problem_lines, 1);
  assertEquals(kinds(entriesOf(report.turns[1]!))[0], "problem:malformed_json");
  assertEquals(report.turns[2]!.outcome, null, "the run_finished line is the torn one");
  assertEquals(report.session.records, 19);
  assertEquals(report.session.lines, 21);
});

Deno.test("no input, however broken, throws: each comes back as problems in a valid document", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const good = await Deno.readFile(story.path);
  const lines = splitLines(good);
  const random = new Uint8Array(4096);
  for (let i = 0; i < random.length; i++) random[i] = (i * 7919 + 13) % 256;
  const cases: [string, Uint8Array, [number, string][]][] = [
    ["empty", new Uint8Array(), [[1, "missing_session_meta"]]],
    ["only-newlines", new TextEncoder().encode("\n\n\n"), [[1, "missing_session_meta"]]],
    ["binary", random, []],
    ["nul-padding", joinLines([...lines, new Uint8Array(512)], { tornTail: true }), [[
      22,
      "torn_tail",
    ]]],
    [
      "nul-line",
      joinLines([...lines.slice(0, 5), new Uint8Array(64), ...lines.slice(5)]),
      [[6, "malformed_json"]],
    ],
    [
      "two-objects",
      joinLines([
        ...lines.slice(0, 6),
        new TextEncoder().encode(byteString(lines[6]!) + byteString(lines[7]!)),
        ...lines.slice(8),
      ]),
      [[7, "malformed_json"]],
    ],
    [
      "not-an-object",
      joinLines([...lines.slice(0, 2), new TextEncoder().encode("[1,2]"), ...lines.slice(2)]),
      [[3, "not_an_object"]],
    ],
    [
      "unknown-type",
      joinLines([...lines, new TextEncoder().encode('{"type":"event_msg","payload":{}}')]),
      [[22, "unknown_type"]],
    ],
    [
      "huge-line",
      joinLines([
        ...lines,
        new TextEncoder().encode(
          `{"timestamp":"t","type":"response_item","payload":"${"y".repeat(3_000_000)}`,
        ),
      ]),
      [[22, "malformed_json"]],
    ],
  ];
  for (const [name, bytes, expected] of cases) {
    const path = await brokenCopy(dir.path, name, bytes);
    const report = await inspect(path);
    assertEquals(report.healthy, false, name);
    if (name === "binary") {
      assert(
        report.problems.length > 0 &&
          report.problems.every((p) =>
            p.kind === "malformed_json" || p.kind === "torn_tail" ||
            p.kind === "missing_session_meta"
          ),
        name,
      );
      assert(report.problems.some((p) => p.kind === "missing_session_meta"), name);
      const text = renderReport(report, { color: false });
      assert(
        // deno-lint-ignore no-control-regex
        !/[\x00-\x08\x0b-\x1f\x7f]/.test(text),
        "control bytes of the file never reach the terminal",
      );
      continue;
    }
    assertEquals(report.problems.map((p): [number, string] => [p.line, p.kind]), expected, name);
    renderReport(report, { color: true });
  }
});

Deno.test("two records on one line get a hint on top of the parser's message", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const lines = splitLines(await Deno.readFile(story.path));
  const merged = [
    ...lines.slice(0, 6),
    new TextEncoder().encode(byteString(lines[6]!) + byteString(lines[7]!)),
    ...lines.slice(8),
  ];
  const report = await inspect(await brokenCopy(dir.path, "merged", joinLines(merged)));
  assertMatch(report.problems[0]!.message, /two records on one line\?/);
});

Deno.test("a lost turn_context strands its records: one problem for the run of them", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const lines = splitLines(await Deno.readFile(story.path));
  const report = await inspect(
    await brokenCopy(dir.path, "stray", joinLines([lines[0]!, ...lines.slice(2)])),
  );
  assertEquals(report.problems.map((p) => [p.line, p.kind]), [[2, "record_before_first_turn"]]);
  assertMatch(
    report.problems[0]!.message,
    /a message record before the first turn_context \(and 5 more, up to line 7\)$/,
  );
  assertEquals(report.header.counts.total, 7);
  assertEquals(report.turns.length, 2);
});

Deno.test("a second session_meta is a problem", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const lines = splitLines(await Deno.readFile(story.path));
  const report = await inspect(await brokenCopy(dir.path, "dup", joinLines([...lines, lines[0]!])));
  assertEquals(report.problems.map((p) => [p.line, p.kind, p.turn]), [[
    22,
    "duplicate_session_meta",
    3,
  ]]);
});

Deno.test("inspecting never changes a file: bytes and mtime stay the same", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const lines = splitLines(await Deno.readFile(story.path));
  const torn = joinLines([...lines, new TextEncoder().encode('{"timestamp":')], { tornTail: true });
  await Deno.writeFile(story.path, torn);
  const before = await Deno.stat(story.path);
  await inspect(story.path, dir.path);
  const after = await Deno.stat(story.path);
  assertEquals(await Deno.readFile(story.path), torn);
  assertEquals(after.mtime?.getTime(), before.mtime?.getTime());
  assertEquals(after.size, before.size);
  let sidecar = true;
  await Deno.stat(`${story.path}.quarantine`).catch(() => (sidecar = false));
  assertEquals(sidecar, false);
});

Deno.test("summarizeSessionFile() counts what a full read counts, even with a marker split across chunks", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const report = await inspect(story.path);
  const firstUserMessage =
    "List the files in this folder and tell me what the project does.\nBe brief.";
  for (const chunkSize of [1, 7, 22, 64, 1 << 20]) {
    const scan = await summarizeSessionFile(story.path, chunkSize);
    assertEquals(
      scan,
      {
        sizeBytes: report.session.sizeBytes,
        records: 21,
        turns: 3,
        firstUserMessage,
        forkedFrom: undefined,
      },
      `chunk ${chunkSize}`,
    );
  }
  // A message that quotes the marker does not count: JSON escapes its quotes.
  const run = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    message: '"type":"turn_context"',
  });
  run.writer.close();
  assertEquals((await summarizeSessionFile(run.location.path)).turns, 1);
});

Deno.test("listing: newest first, counts and first user message, limited", async () => {
  await using dir = await tempDir();
  const older = await makeStory(dir.path);
  const newer = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    message: "second   session\nhello",
  });
  newer.writer.close();
  const listing = await listSessions(dir.path);
  assert(SessionListingSchema.safeParse(listing).success);
  assertEquals(listing.sessions.map((s) => [s.id, s.turns, s.records, s.firstUserMessage]), [
    [newer.sessionId, 1, 4, "second session hello"],
    [
      older.sessionId,
      3,
      21,
      "List the files in this folder and tell me what the project does. Be brief.",
    ],
  ]);
  assertEquals(listing.more, false);
  const one = await listSessions(dir.path, { limit: 1 });
  assertEquals([one.sessions.length, one.more], [1, true]);
  const text = renderListing(listing, { color: false });
  assertMatch(text, new RegExp(`${newer.sessionId.slice(0, 8)}.*second session hello`));
});

Deno.test("the continue prefix is the shortest unique one of at least 8 characters", async () => {
  await using dir = await tempDir();
  const time = new Date("2026-11-30T10:00:00.000Z");
  const a = newId(time);
  const b = newId(time);
  for (const runId of [a, b]) {
    const run = await initializeSessionForRun({
      ...RUN_BASE,
      root: dir.path,
      message: "hi",
      runId,
    });
    run.writer.close();
  }
  const prefix = await shortestUniquePrefix(dir.path, a);
  assert(prefix.length > 8 && !prefix.endsWith("-"), prefix);
  assertEquals((await findSession(dir.path, prefix)).id, a);
  const shorter = prefix.slice(0, prefix.at(-2) === "-" ? -2 : -1);
  assert(shorter.length < 8 || b.startsWith(shorter), "no shorter prefix is unique");
});

Deno.test("rendering: turn blocks, shortened text with a note, colours only when asked", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const report = await inspect(story.path, dir.path);
  const plain = renderReport(report, { color: false });
  // The embedded model has no price: the turn's cost says so.
  assertMatch(
    plain,
    /━━ Turn 1 · run \S+ · .* · scripted · ask-changes · new · unpriced · lines 2-8/,
  );
  assertMatch(plain, /━━ Turn 3 · .* · resumed · lines 14-21/);
  assertMatch(
    plain,
    /synthesized for c3 \(write_file, line 13, turn 2\): Error \[SESSION_RESUME_INTERRUPTED\]/,
  );
  assertMatch(
    plain,
    /✂ compact +checkpoint \(token budget, v1\): 9 items removed, 2 kept, 52,000 tokens before/,
  );
  assertMatch(plain, /… \(\+\d+ chars\)/);
  assertMatch(plain, /\n {2}total +1 +3 +6 +4 +4 +0 +1 +2 +0 +21\n/);
  assertMatch(plain, /Continue this session:\n {2}\.\/denow task resume/);
  assert(!plain.includes("\x1b["), "no colours when not asked");
  assert(renderReport(report, { color: true }).includes("\x1b["));
  assertEquals(shortenText("abcdef", 6, { maxChars: 3 }), "abc … (+3 chars)");
  assertEquals(shortenText("abc", 10, { maxChars: 5 }), "abc … (+7 chars)");
});

Deno.test("withCost() gives each turnlog run its own turn's cost when turns start in the same millisecond", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const report = await inspect(story.path, dir.path);
  // A fast machine starts every turn within one millisecond: each run still pays for its own.
  const time = report.turns[0]!.time;
  const turns = report.turns.map((turn) => ({ ...turn, time, cost: undefined }));
  const priced = await withCost({ ...report, turns }, runEvents(turns), { provider: null });
  const withUsage = turns.map((turn) => turn.usage !== null);
  assertEquals(priced.turns.map((turn) => turn.cost === null), withUsage);
  assert(withUsage[0] && !withUsage.at(-1), "the first run reported usage, the last did not");
});

Deno.test("a runtime session killed mid-tool: flagged, repaired, then resumed with nothing to synthesize", async () => {
  await using h = await harness({ "a.txt": "a" });
  const { sessionId, sessionPath, killed } = await killedSession(h);
  assert(killed.killed && killed.callId !== undefined);

  const report = await inspect(sessionPath, h.sessionsDir);
  assertEquals(report.turns.map((t) => [t.index, t.resumed, t.outcome]), [[1, false, "succeeded"], [
    2,
    true,
    null,
  ]]);
  assertEquals(report.orphanCalls.map((c) => [c.turn, c.callId, c.name]), [[
    2,
    killed.callId,
    "slow_task",
  ]]);
  assertEquals(report.problems, []);

  const { plan, after } = await repairSession(sessionPath, { root: h.sessionsDir });
  assertEquals(plan.appended.map((a) => a.callId), [killed.callId]);
  assertEquals(after.healthy, true);
  assertEquals(after.synthesizedOutputs.map((s) => [s.callId, s.call?.turn]), [[killed.callId, 2]]);

  const resumed = await h.turn("continue", { sessionId });
  assertEquals(
    resumed.filter((e) => e.type === "session_repaired"),
    [],
    "nothing left to synthesize",
  );
  const final = await inspect(sessionPath, h.sessionsDir);
  assertEquals(final.turns.map((t) => t.outcome), ["succeeded", null, "succeeded"]);
  assertEquals(final.healthy, true);
});

/**
 * A generated session with more pairing damage than the generator makes: copies of call and
 * output lines put elsewhere (an output before its call, a second output, a second call with
 * one id) and checkpoints whose replacement history holds an output without its call and a
 * second output.
 */
function pairingDamage(seed: number, text: string): string {
  const rng = new Rng(seed * 7919);
  const random = () => rng.next();
  const lines = text.split("\n");
  const isItem = (line: string, type: string) => line.includes(`"payload":{"type":"${type}"`);
  const movable = lines.filter((line) =>
    isItem(line, "function_call") || isItem(line, "function_call_output")
  );
  for (let i = 0; i < 1 + Math.floor(random() * 4) && movable.length > 0; i++) {
    const copy = movable[Math.floor(random() * movable.length)]!;
    lines.splice(1 + Math.floor(random() * (lines.length - 1)), 0, copy.replace(/\r$/, ""));
  }
  return lines.map((line) => {
    if (!isItem(line, "compaction_checkpoint") || random() < 0.5) return line;
    let record;
    try {
      record = JSON.parse(line);
    } catch {
      return line; // a checkpoint line the generator cut short
    }
    const history = record.payload.replacementHistory as ResponseItem[];
    const answered = history.find((item) => item.type === "function_call_output");
    history.push({
      type: "function_call_output",
      callId: `stray_${seed}`,
      toolName: "read_file",
      output: "no call",
      isError: false,
    });
    if (answered) history.push({ ...answered });
    return JSON.stringify(record);
  }).join("\n");
}

/** What `normalizeHistory` says of the whole replayed history, each item back at its line. */
async function normalizedVerdicts(path: string) {
  const records: SessionRecord[] = [];
  const origin = new Map<ResponseItem, { line: number; inCheckpoint: boolean }>();
  for await (const entry of readRecords(path)) {
    if (!entry.record) continue;
    records.push(entry.record);
    if (entry.record.type !== "response_item") continue;
    const item = entry.record.payload;
    if (item.type === "compaction_checkpoint") {
      for (const kept of item.replacementHistory) {
        origin.set(kept, { line: entry.line, inCheckpoint: true });
      }
    } else {
      origin.set(item, { line: entry.line, inCheckpoint: false });
    }
  }
  const { history, synthesized, dropped } = normalizeHistory(replayHistory(records));
  const made = new Set<ResponseItem>(synthesized);
  // Each block of calls is followed by its outputs, in call order.
  const orphanCalls = [];
  for (let i = 0; i < history.length; i++) {
    if (history[i]!.type !== "function_call") continue;
    let end = i;
    while (history[end + 1]?.type === "function_call") end++;
    const calls = history.slice(i, end + 1);
    for (const [k, call] of calls.entries()) {
      if (call.type !== "function_call" || !made.has(history[end + 1 + k]!)) continue;
      orphanCalls.push({ ...origin.get(call)!, callId: call.callId, name: call.name });
    }
    i = end + calls.length;
  }
  const orphanOutputs = dropped.map(({ item, reason }) => ({
    ...origin.get(item)!,
    callId: item.callId,
    reason,
  }));
  return { orphanCalls, orphanOutputs };
}

Deno.test("orphans found while streaming are exactly normalizeHistory's verdicts on the replayed history", async () => {
  await using dir = await tempDir();
  const seen = { orphanCalls: 0, inCheckpoint: 0, orphan_output: 0, duplicate_output: 0 };
  for (let seed = 1; seed <= 250; seed++) {
    const generated = generateSessionText(seed, { turns: 1 + (seed % 7), checkpoints: 0.3 });
    const path = `${dir.path}/s${seed}.jsonl`;
    await Deno.writeTextFile(path, pairingDamage(seed, generated.text));
    const expected = await normalizedVerdicts(path);
    for (const entries of [false, true]) {
      const report = await inspectSession(path, { entries });
      assertEquals(
        {
          orphanCalls: report.orphanCalls.map((c) => ({
            line: c.line,
            inCheckpoint: c.inCheckpoint,
            callId: c.callId,
            name: c.name,
          })),
          orphanOutputs: report.orphanOutputs.map((o) => ({
            line: o.line,
            inCheckpoint: o.inCheckpoint,
            callId: o.callId,
            reason: o.reason,
          })),
        },
        expected,
        `seed ${seed}, entries: ${entries}`,
      );
      const flagged = report.problems.filter((p) =>
        p.kind === "orphan_output" || p.kind === "duplicate_output"
      );
      assertEquals(flagged.length, expected.orphanOutputs.length, `seed ${seed}`);
    }
    seen.orphanCalls += expected.orphanCalls.length;
    seen.inCheckpoint += expected.orphanCalls.filter((c) => c.inCheckpoint).length +
      expected.orphanOutputs.filter((o) => o.inCheckpoint).length;
    for (const o of expected.orphanOutputs) seen[o.reason]++;
  }
  // The sessions exercise every verdict, or the comparison above proves little.
  for (const [name, count] of Object.entries(seen)) assert(count >= 10, `only ${count} ${name}`);
});

Deno.test("without entries the report is the same, less the lines; the schema says they may be absent", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const withEntries = await inspect(story.path, dir.path);
  const without = await inspectSession(story.path, { root: dir.path, commandFor: resumeCommand });
  assertEquals(InspectReportSchema.parse(JSON.parse(JSON.stringify(without))), without);
  assertEquals("entries" in without.header, false);
  assertEquals(without.turns.filter((turn) => "entries" in turn), []);
  const strip = (report: InspectReport) => ({
    ...report,
    header: { ...report.header, entries: undefined },
    turns: report.turns.map((turn) => ({ ...turn, entries: undefined })),
  });
  assertEquals(strip(without), strip(withEntries));
  // `inspect --json` writes the document in pieces: together, exactly JSON.stringify's text.
  for (const report of [without, withEntries]) {
    assertEquals([...reportJsonPieces(report)].join(""), JSON.stringify(report, null, 2));
  }
  // The text view of a report without lines still has the turns, counts and findings.
  const text = renderReport(without, { color: false });
  assertMatch(text, /━━ Turn 3 · /);
  assertMatch(text, /Records per turn\n/);
  assert(!text.includes("│"), "no lines without entries");
});

Deno.test("reportJsonPieces() writes many turns and their entries in pieces of a few hundred entries, together the escaped JSON.stringify text", () => {
  const entry = (line: number) => ({ kind: "message", line, role: "user", text: "a\u202eb\x9b" });
  const turn = (index: number, entries: number) => ({
    index,
    time: "2026-01-01T00:00:00.000Z",
    counts: { message: entries, total: entries },
    ignored: index % 2 === 0 ? {} : { reasoning: 1 },
    entries: Array.from({ length: entries }, (_, i) => entry(index * 10_000 + i)),
  });
  // 2,000 turns of two entries, one of 1,000 (a piece of its own) and none at all.
  const report = {
    format: "turnlog-inspect",
    healthy: true,
    header: { endLine: 1, counts: { total: 1 }, ignored: {}, entries: [entry(1)] },
    turns: [
      ...Array.from({ length: 1_000 }, (_, i) => turn(i + 1, 2)),
      turn(1_001, 1_000),
      ...Array.from({ length: 1_000 }, (_, i) => turn(i + 1_002, 2)),
    ],
    problems: [],
    empty: {},
    nothing: null,
  } as unknown as InspectReport;
  const pieces = [...reportJsonPieces(report)];
  const escaped = JSON.stringify(report, null, 2).replaceAll("\u202e", "\\u202e")
    .replaceAll("\x9b", "\\u009b");
  assertEquals(pieces.join(""), escaped);
  // A piece of turns holds at most 256 entries and turns together, but a turn bigger than that.
  const turnPieces = pieces.filter((piece) => piece.includes('"index"'));
  const counted = turnPieces.map((piece) =>
    piece.split('"kind"').length - 1 + piece.split('"index"').length - 1
  );
  assertEquals(counted.filter((n) => n > 256), [1_001]);
  assertEquals(turnPieces.length, Math.ceil(1_000 / 85) * 2 + 1);
});

Deno.test("a shortened text is a copy: the entry does not keep the whole text alive", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/big.jsonl`;
  const big = "y".repeat(1 << 20);
  const lines = [JSON.stringify(makeRecord("turn_context", {
    runId: "r1",
    model: "m",
    wireApi: "chat",
    policy: { approval: "auto" },
    resumed: false,
  }))];
  for (let i = 0; i < 40; i++) {
    lines.push(JSON.stringify(responseItemRecord({
      type: "message",
      role: "assistant",
      content: `${i}${big}`,
    })));
  }
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  // The heap after the report is made, with the report held: 40 texts of 1 MiB are 40 MB.
  const script = `
    import { inspectSession } from ${
    JSON.stringify(new URL("../src/inspect/_inspect.ts", import.meta.url).href)
  };
    const report = await inspectSession(${JSON.stringify(path)}, { entries: true });
    globalThis.gc();
    const heap = Deno.memoryUsage().heapUsed;
    console.log(JSON.stringify({ heap, texts: report.turns[0].entries.length }));
  `;
  const { heap, texts } = await evalWithGc(script) as { heap: number; texts: number };
  assertEquals(texts, 40);
  assert(heap < 20_000_000, `heap ${(heap / 1e6).toFixed(1)} MB with 40 shortened texts`);
});
