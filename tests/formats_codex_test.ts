import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { invalidRecords, paired, readText, resumedHistory, segment } from "./_formats.ts";
import { readForeignSession } from "../src/formats/mod.ts";
import {
  codexFactsOf,
  findCodexSession,
  listCodexSessions,
  walkCodexSessions,
} from "../src/formats/codex/mod.ts";
import { AmbiguousSessionError, SessionNotFoundError } from "../src/store/mod.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import {
  codexCompaction,
  codexDamage,
  codexNoTaskEvents,
  codexOrphans,
  codexPerRequest,
  codexRolloutLines,
  codexTurnIds,
  codexUserMessagesOnly,
} from "../testing/formats/codex_fixtures.ts";
import { writeLines } from "../testing/formats/scale.ts";
import { inspectSession } from "../src/inspect/mod.ts";

const ID = "019c8a4c-0000-7000-8000-000000000001";

/** Reads a fixture and checks what every reading must satisfy: valid records, a paired resume. */
async function read(dir: string, text: string) {
  const read = await readText(dir, "rollout.jsonl", text, "codex");
  assertEquals(invalidRecords(read.records), []);
  assert(paired(resumedHistory(read.records).history), "the resumed history pairs every call");
  return read;
}

Deno.test("readForeignSession(codex) makes turns from task events with turn ids", async () => {
  await using dir = await tempDir();
  const { lines, records, facts, path, entries } = await read(dir.path, codexTurnIds());
  assertEquals(lines, [
    `1 session_meta ${ID} gpt-5.5 auto`,
    "2 turn_context t1 gpt-5.5 auto",
    "2 system: Follow the sandbox rules.",
    "3 system: <environment_context><cwd>/work/project</cwd></environment_context>",
    "5 user: List the files",
    "5 ignored image",
    "9 ignored reasoning",
    '10 call c1 exec_command {"cmd":"ls"}',
    "12 output c1 exec_command: Chunk ID: 1\nProcess exited with code 0\nOutput:\na.txt",
    "14 assistant: There is a.txt.",
    "16 run_finished t1 succeeded rounds=2",
    "18 turn_context t2 gpt-5.5 auto",
    "18 user: Read b.txt and search the web",
    "21 ignored web_search_call",
    '22 call c2 exec_command {"cmd":"cat b.txt"}',
    "23 output c2 exec_command error: Process exited with code 1\nOutput:\ncat: b.txt: No such file",
    '24 call c3 exec_command {"cmd":"false"}',
    "26 output c3 exec_command error: no output",
    "28 assistant: b.txt does not exist.",
    "30 run_finished t2 succeeded rounds=1",
  ]);
  assertEquals(records[0], {
    timestamp: "2026-02-23T12:00:00.000Z",
    type: "session_meta",
    payload: {
      version: 1,
      id: ID,
      createdAt: "2026-02-23T12:00:00.000Z",
      cwd: "/work/project",
      modelProvider: "openai",
      model: "gpt-5.5",
      wireApi: "responses",
      policy: { approval: "auto" },
    },
  });
  assertEquals(records.find((r) => r.type === "run_finished")!.payload, {
    runId: "t1",
    outcome: "succeeded",
    rounds: 2,
    usage: { inputTokens: 2100, outputTokens: 50, totalTokens: 2150 },
  });
  assertEquals(entries[1]!, {
    line: 2,
    start: entries[1]!.start,
    end: entries[1]!.end,
    record: records[1]!,
  });
  assertEquals({ ...facts, path: undefined, sizeBytes: undefined }, {
    // The check made on the way: every call answered.
    checked: [],
    format: "codex",
    path: undefined,
    sizeBytes: undefined,
    lines: 30,
    state: "records",
    sessionId: ID,
    sessionIds: [ID],
    title: null,
    firstPrompt: "List the files",
    models: ["gpt-5.5"],
    cwd: "/work/project",
    cwds: [{ cwd: "/work/project", line: 1 }],
    gitBranch: "main",
    created: "2026-02-23T12:00:00.000Z",
    updated: "2026-02-23T12:00:29.000Z",
    version: "0.135.0",
    approval: { mapped: "auto", source: "never" },
    tokens: {
      input: 3400,
      output: 90,
      cacheRead: 2900,
      cacheCreation: 0,
      reasoningOutput: 45,
      total: 3490,
    },
    // Each response as counted into tokens, its cached part apart, with its time and model.
    usage: [
      [200, 800, 20, 10, "2026-02-23T12:00:10.000Z"],
      [100, 1000, 30, 15, "2026-02-23T12:00:14.000Z"],
      [200, 1100, 40, 20, "2026-02-23T12:00:28.000Z"],
    ].map(([input, cacheRead, output, reasoningOutput, time]) => ({
      time: time as string,
      model: "gpt-5.5",
      input: input as number,
      output: output as number,
      cacheRead: cacheRead as number,
      cacheCreation: 0,
      reasoningOutput: reasoningOutput as number,
    })),
    turns: 2,
    forks: [],
    subagents: [],
    ignored: { image: 1, reasoning: 1, web_search_call: 1 },
    problems: 0,
    formatFacts: {
      originator: "codex_cli_rs",
      source: "cli",
      forkedFromId: null,
      inherited: null,
      sandbox: "workspace-write",
      turnMarkers: "task_events",
      rollbacks: [],
    },
  });
  const report = segment(path, entries);
  assertEquals(report.problems, []);
  assertEquals(
    report.turns.map((
      t,
    ) => [
      t.runId,
      t.startLine,
      t.endLine,
      t.counts.function_call,
      t.counts.function_call_output,
      t.outcome,
    ]),
    [
      ["t1", 2, 16, 1, 1, "succeeded"],
      ["t2", 18, 30, 2, 2, "succeeded"],
    ],
  );
});

Deno.test("readForeignSession(codex) with compactUsage keeps the same responses as columns", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "rollout.jsonl");
  await Deno.writeTextFile(path, codexTurnIds());
  const facts = async (compactUsage: boolean) => {
    const session = readForeignSession(path, "codex", { compactUsage });
    for await (const _ of session.batches());
    return session.facts;
  };
  const objects = await facts(false);
  const columns = await facts(true);
  assertEquals(objects.usageColumns, undefined);
  assertEquals(columns.usage, undefined);
  assertEquals(objects.usage!.length, 3);
  assertEquals(columns.usageColumns!.toArray(), objects.usage);
  assertEquals(columns.usageColumns!.at(-1), objects.usage![2]);
  const { usage: _, ...rest } = objects;
  const { usageColumns: __, ...compactRest } = columns;
  assertEquals(compactRest, rest);
});

Deno.test("readForeignSession(codex) reads the older per-request turn contexts and shell exit codes", async () => {
  await using dir = await tempDir();
  const { lines, facts, records } = await read(dir.path, codexPerRequest());
  assertEquals(lines, [
    `1 session_meta ${ID} gpt-5-codex ask-all`,
    "3 turn_context line-3 gpt-5-codex ask-all",
    "3 user: Run the tests",
    '6 call s1 shell {"command":["npm","test"]}',
    '8 output s1 shell error: {"output":"1 failing","metadata":{"exit_code":1,"duration_seconds":0.1}}',
    '10 call s2 shell {"command":["npm","test","--","-u"]}',
    "12 output s2 shell: Exit code: 0\nWall time: 1.2 seconds\nOutput:\nall passing",
    "15 assistant: Fixed.",
    "17 run_finished line-3 succeeded rounds=3",
    "19 turn_context line-19 gpt-5-codex ask-all",
    "19 user: Now deploy",
    '22 call s3 shell {"command":["deploy"]}',
    '23 output s3 shell: {"output":"deployed","metadata":{"exit_code":0,"duration_seconds":0.1}}',
    "24 run_finished line-19 cancelled rounds=0",
  ]);
  assertEquals(records[records.length - 1]!.payload, {
    runId: "line-19",
    outcome: "cancelled",
    error: "interrupted",
    rounds: 0,
  });
  assertEquals([facts.turns, facts.approval, facts.version], [2, {
    mapped: "ask-all",
    source: "untrusted",
  }, "0.30.0"]);
});

Deno.test("readForeignSession(codex) falls back to turn_context ids and user_message events", async () => {
  await using dir = await tempDir();
  const trimmed = await read(dir.path, codexNoTaskEvents());
  assertEquals(trimmed.lines, [
    `1 session_meta ${ID} gpt-5.3-codex ask-changes`,
    "2 turn_context t1 gpt-5.3-codex ask-changes",
    "2 system: Instructions.",
    "3 user: First question",
    "7 assistant: First answer.",
    // No task events: a turn that ends on the model's answer, no call waiting, finished.
    "7 run_finished t1 succeeded rounds=0",
    "8 turn_context t2 gpt-5.4 ask-changes",
    "8 user: Second question",
    '11 call c1 exec_command {"cmd":"ls"}',
    "12 output c1 exec_command: ok",
    "14 assistant: Second answer.",
    "14 run_finished t2 succeeded rounds=0",
  ]);
  assertEquals([trimmed.facts.models, codexFactsOf(trimmed.facts)?.turnMarkers], [[
    "gpt-5.3-codex",
    "gpt-5.4",
  ], "turn_context"]);
  const bare = await read(dir.path, codexUserMessagesOnly());
  assertEquals(bare.lines, [
    `1 session_meta ${ID} unknown ask-changes`,
    "2 turn_context line-2 unknown ask-changes",
    "2 user: Hello",
    "4 assistant: Hi.",
    "4 run_finished line-2 succeeded rounds=0",
    "5 turn_context line-5 unknown ask-changes",
    "5 user: Only the event is left",
    "6 assistant: Answer to the event.",
    "6 run_finished line-5 succeeded rounds=0",
  ]);
  assertEquals(codexFactsOf(bare.facts)?.turnMarkers, "user_message");
});

Deno.test("readForeignSession(codex) keeps orphan calls and puts re-injected context in the next turn", async () => {
  await using dir = await tempDir();
  const { lines, path, entries, records } = await read(dir.path, codexOrphans());
  assertEquals(lines, [
    `1 session_meta ${ID} gpt-5.3-codex ask-changes`,
    "3 turn_context t1 gpt-5.3-codex ask-changes",
    "3 user: Build it",
    "6 call o1 exec_command [REDACTED_ARGUMENTS len=20 sha=1234abcd]",
    "8 turn_context t2 gpt-5.3-codex ask-changes",
    "8 system: Re-injected instructions after the crash.",
    "9 system: <environment_context><cwd>/work/project</cwd></environment_context>",
    "11 user: Try again",
    '14 call c2 exec_command {"cmd":"make"}',
    "15 system: Approval granted.",
    "16 output c2 exec_command: built",
    "18 assistant: Built.",
    "19 run_finished t2 succeeded rounds=0",
    "21 turn_context t3 gpt-5.3-codex ask-changes",
    "21 user: Deploy",
    '24 call o3 exec_command {"cmd":"deploy"}',
  ]);
  const report = segment(path, entries);
  assertEquals(report.orphanCalls.map((o) => [o.line, o.turn, o.callId]), [[6, 1, "o1"], [
    24,
    3,
    "o3",
  ]]);
  assertEquals(report.turns.map((t) => t.outcome), [null, "succeeded", null]);
  assertEquals(resumedHistory(records).synthesized.map((o) => o.callId), ["o1", "o3"]);
});

Deno.test("readForeignSession(codex) makes compacted records checkpoints, mid-turn and old-style", async () => {
  await using dir = await tempDir();
  const { lines, path, entries, records, facts } = await read(dir.path, codexCompaction());
  assertEquals(lines, [
    `1 session_meta ${ID} gpt-5.3-codex ask-changes`,
    "3 turn_context t1 gpt-5.3-codex ask-changes",
    "3 user: Write a.txt",
    "6 call p1 apply_patch *** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch",
    '7 output p1 apply_patch: {"output":"Success.","metadata":{"exit_code":0}}',
    "8 call p2 apply_patch *** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch",
    '9 output p2 apply_patch error: {"output":"Failed.","metadata":{"exit_code":1}}',
    "11 checkpoint codex compacted (remote, encrypted summary) removed=5 kept=3 [system:Instructions. | user:Write a.txt | compaction_summary:[Codex compacted the conversation here; its summary is encrypted in the rollout and cannot be read]]",
    "11 ignored compaction",
    '13 call c3 exec_command {"cmd":"cat a.txt"}',
    "14 output c3 exec_command: hello",
    "16 assistant: Written.",
    "17 run_finished t1 succeeded rounds=1",
    "19 turn_context t2 gpt-5.3-codex ask-changes",
    "19 user: Summarize",
    "22 checkpoint codex compacted removed=7 kept=1 [compaction_summary:The user asked for a.txt; it was written.]",
    "25 assistant: Summarized.",
    "26 run_finished t2 succeeded rounds=0",
  ]);
  const report = segment(path, entries);
  assertEquals(
    report.checkpoints.map((c) => [c.line, c.turn, c.tokensBefore, c.replacementItemCount]),
    [
      [11, 1, 200100, 3],
      [22, 2, 200100, 1],
    ],
  );
  assertEquals(resumedHistory(records).history, [
    { type: "compaction_summary", content: "The user asked for a.txt; it was written." },
    { type: "message", role: "assistant", content: "Summarized." },
  ]);
  assertEquals(facts.ignored, { compaction: 1 });
});

Deno.test("readForeignSession(codex) reports damage in place and reads on", async () => {
  await using dir = await tempDir();
  const { lines, path, entries } = await read(dir.path, codexDamage());
  assertEquals(lines, [
    `1 session_meta ${ID} gpt-5.3-codex ask-changes`,
    "3 turn_context t1 gpt-5.3-codex ask-changes",
    "3 user: Hi",
    "6 problem malformed_json",
    "7 problem malformed_json",
    "8 ignored unknown:future_record",
    "9 problem unknown_type",
    "11 assistant: Hello.",
    "12 problem torn_tail",
  ]);
  const messages = segment(path, entries).problems.map((p) => p.message);
  assertEquals(messages[2], `${path}:9: a JSON object without a "type": not a Codex record`);
  assert(messages[1]!.includes("(two records on one line?"), messages[1]);
});

async function codexTree(root: string): Promise<[string, string, string]> {
  const ids: [string, string, string] = [
    "019c8a4c-ed82-79a1-aa28-7738fc5ab61a",
    "019c8a4d-8f45-7010-8b5d-7fad920aa6f9",
    "019c8bfe-ec25-79e0-97d7-bda6a9c575ff",
  ];
  const names = [
    "2026/02/23/rollout-2026-02-23T12-40-23-" + ids[0] + ".jsonl",
    "2026/02/23/rollout-2026-02-23T12-41-04-" + ids[1] + ".jsonl",
    "2026/02/24/rollout-2026-02-24T20-34-25-" + ids[2] + ".jsonl",
  ];
  for (const [index, name] of names.entries()) {
    const path = join(root, name);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    const rollout = new CodexRolloutBuilder().meta({ id: ids[index]!, branch: "main" })
      .message("user", "<environment_context>x</environment_context>")
      .taskStarted("t").prompt(`Prompt ${index}\nsecond line`).turnContext({
        turnId: "t",
        model: "gpt-5.5",
      });
    await Deno.writeTextFile(path, rollout.text());
  }
  await Deno.writeTextFile(join(root, "2026/02/23/notes.txt"), "not a rollout");
  return ids;
}

Deno.test("listCodexSessions() lists newest first with the first real prompt, from the heads", async () => {
  await using dir = await tempDir();
  const ids = await codexTree(dir.path);
  const listing = await listCodexSessions(dir.path, { limit: 2 });
  assertEquals(listing.more, true);
  assertEquals(
    listing.sessions.map((s) => [s.id, s.created, s.preview, s.cwd, s.gitBranch, s.model]),
    [
      [
        ids[2],
        "2026-02-23T19:34:25.573Z",
        "Prompt 2 second line",
        "/work/project",
        "main",
        "gpt-5.5",
      ],
      [
        ids[1],
        "2026-02-23T11:41:04.709Z",
        "Prompt 1 second line",
        "/work/project",
        "main",
        "gpt-5.5",
      ],
    ],
  );
  const walked = [];
  for await (const found of walkCodexSessions(dir.path)) walked.push(found.id);
  assertEquals(walked, [ids[2], ids[1], ids[0]]);
});

Deno.test("findCodexSession() finds a rollout by id or unique prefix from file names", async () => {
  await using dir = await tempDir();
  const ids = await codexTree(dir.path);
  assertEquals((await findCodexSession(dir.path, ids[1]!)).id, ids[1]);
  assertEquals(
    (await findCodexSession(dir.path, "019c8bfe")).path,
    join(dir.path, "2026/02/24/rollout-2026-02-24T20-34-25-" + ids[2] + ".jsonl"),
  );
  const ambiguous = await assertRejects(
    () => findCodexSession(dir.path, "019c8a4"),
    AmbiguousSessionError,
  );
  assertEquals(ambiguous.candidates.map((c) => c.id).sort(), [ids[0], ids[1]]);
  await assertRejects(() => findCodexSession(dir.path, "019d"), SessionNotFoundError);
});

Deno.test("findCodexSession() finds a rollout moved into another day's folder, as its listing shows it", async () => {
  await using dir = await tempDir();
  const ids = await codexTree(dir.path);
  const name = "rollout-2026-02-24T20-34-25-" + ids[2] + ".jsonl";
  await Deno.mkdir(join(dir.path, "2025/11/02"), { recursive: true });
  await Deno.rename(join(dir.path, "2026/02/24", name), join(dir.path, "2025/11/02", name));
  const walked = [];
  for await (const found of walkCodexSessions(dir.path)) walked.push(found.id);
  assert(walked.includes(ids[2]!), "the walk lists it");
  assertEquals(
    (await findCodexSession(dir.path, ids[2]!)).path,
    join(dir.path, "2025/11/02", name),
  );
  assertEquals((await findCodexSession(dir.path, "019c8bfe")).id, ids[2]);
  await assertRejects(() => findCodexSession(dir.path, "019d"), SessionNotFoundError);
});

Deno.test("codexRolloutLines() grows a rollout to a target size in the real shapes, the same for a seed", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "big.jsonl");
  const size = await writeLines(path, codexRolloutLines({ seed: 5, targetBytes: 400_000 }));
  assert(size >= 400_000 && size < 500_000, `size ${size}`);
  const again = [...codexRolloutLines({ seed: 5, targetBytes: 400_000 })].join("\n") + "\n";
  assertEquals(again, await Deno.readTextFile(path));
  const session = readForeignSession(path, "codex");
  let calls = 0;
  let outputs = 0;
  let checkpoints = 0;
  for await (const entry of session) {
    const item = entry.record?.type === "response_item" ? entry.record.payload : undefined;
    if (item?.type === "function_call") calls++;
    if (item?.type === "function_call_output") outputs++;
    if (item?.type === "compaction_checkpoint") checkpoints++;
  }
  assert(calls > 100 && calls === outputs, `${calls} calls, ${outputs} outputs`);
  assert(checkpoints >= 1, `${checkpoints} checkpoints`);
  assertEquals(session.facts.problems, 0);
});

Deno.test("inspectSession() of a Codex rollout without task events: turns that end on an answer finished, one that ends on a call did not", async () => {
  await using dir = await tempDir();
  // Three prompts answered (the first after a call and its output), no task events and no
  // turn_context: the shape of a completed session whose rollout keeps neither.
  const b = new CodexRolloutBuilder().meta({ cliVersion: "0.128.0" });
  b.prompt("Run the tests").call("c1").output("c1", "ok").answer("They pass.");
  b.prompt("Thanks").answer("You are welcome.");
  b.prompt("Bye").answer("Bye.");
  const done = join(dir.path, `rollout-2026-02-23T12-00-00-${ID}.jsonl`);
  await Deno.writeTextFile(done, b.text());
  const report = await inspectSession(done);
  assertEquals([report.totals.turns, report.totals.unfinishedTurns], [3, 0]);
  assertEquals(report.turns.map((turn) => turn.outcome), ["succeeded", "succeeded", "succeeded"]);
  // Killed while a call ran: the last turn ends on the call, with no output and no answer.
  b.prompt("Deploy").call("c2", "exec_command", '{"cmd":"deploy"}');
  const killed = join(dir.path, `rollout-2026-02-23T12-00-01-${ID}.jsonl`);
  await Deno.writeTextFile(killed, b.text());
  const cut = await inspectSession(killed);
  assertEquals([cut.totals.turns, cut.totals.unfinishedTurns], [4, 1]);
});
