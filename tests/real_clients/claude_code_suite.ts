/**
 * The real Claude Code (the pinned 2.1.332, or the user's own: `--claude-bin`) judges what turnlog reads and repairs. Each case runs the real
 * tool in a temporary home against the embedded model (which refuses what the Messages API
 * refuses), damages or kills the session the way it happens, and checks: turnlog reads what the
 * tool wrote the way the tool means it; `repairSession` (`inspect --repair --write`) keeps every
 * byte (file + sidecar = the original); a second repair changes nothing; the real tool resumes the
 * repaired file with requests the model accepts and appends its answer; and every real result
 * is sent as the file held it, never moved or replaced.
 */
import { assert, assertEquals } from "../_assert.ts";
import { needing } from "../_needs.ts";
import { byteString, sidecarPayloadLines, splitLines } from "../_inspect_fixtures.ts";
import { inspectSession } from "../../src/inspect/mod.ts";
import { isEmptyPlan, repairSession } from "../../src/repair/mod.ts";
import type { CallEntry, InspectReport, OutputEntry } from "../../src/inspect/mod.ts";
import { INTERRUPTED_RESULT } from "../../src/formats/mod.ts";
import { quarantinePath } from "../../src/store/mod.ts";
import { readConversation } from "../../src/export/mod.ts";
import { examineHomes } from "../../src/doctor/mod.ts";
import { missingInOrder, sentConversation } from "../../testing/real_clients/export_judge.ts";
import { CLAUDE_CODE, installedRealClient } from "../../testing/real_clients/install.ts";
import {
  ClaudeHome,
  type ClaudeRun,
  messageRequests,
  requestShape,
  type SentResult,
  sentResults,
  transcriptResults,
} from "../../testing/real_clients/claude_code.ts";

const client = installedRealClient(CLAUDE_CODE);
const missing = typeof client === "string" ? client : undefined;
/** The version that runs, for test names. */
const VERSION = typeof client === "string" ? CLAUDE_CODE.version : client.version;

const SLOW = "echo waiting; sleep 60; echo woke";
const CLAUDE_INTERRUPTED = "[Tool call interrupted";

/** A test with a fresh home for the real Claude Code. */
function realTest(name: string, fn: (home: ClaudeHome) => Promise<void>): void {
  Deno.test({
    ...needing(name, missing),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      await using home = await ClaudeHome.open(client as Exclude<typeof client, string>);
      await fn(home);
    },
  });
}

/** Every request of the run was accepted, and the run ended well. */
function assertAccepted(run: ClaudeRun): void {
  const refused = run.requests.filter((request) => request.status !== 200);
  assertEquals(refused.map((r) => `${r.status} ${r.error}`), [], "every request is accepted");
  assert(messageRequests(run).length > 0, "it asked the model");
  assertEquals(run.code, 0, run.stderr);
}

/** The calls of a report with their outputs' texts (null: no output), in order. */
function callsOf(report: InspectReport): { name: string; output: string | null }[] {
  const entries = report.turns.flatMap((turn) => turn.entries ?? []);
  const outputs = new Map<string, OutputEntry>();
  for (const entry of entries) {
    if (entry.kind === "function_call_output") outputs.set(entry.callId, entry);
  }
  return entries.filter((entry): entry is CallEntry => entry.kind === "function_call").map((
    call,
  ) => ({
    name: `${call.name} ${JSON.parse(call.text).command ?? call.text}`,
    output: outputs.get(call.callId)?.text ?? null,
  }));
}

async function readReport(path: string): Promise<InspectReport> {
  return await inspectSession(path, { entries: true });
}

/** The turns of a report as `outcome rounds`. */
function turnsOf(report: InspectReport): string[] {
  return report.turns.map((turn) => `${turn.outcome ?? "unfinished"} ${turn.rounds ?? "-"}`);
}

/**
 * Repairs the file twice and checks the bytes: every original line is in the file or in the
 * sidecar; every other line of the file is one turnlog wrote (a result it inserted, or a line it
 * rewrote whose original the sidecar keeps); a second repair changes nothing. Returns the plan.
 */
async function repairTwice(path: string) {
  const before = await Deno.readFile(path);
  const first = await repairSession(path);
  assertEquals(first.validation?.findings ?? [], [], "Claude Code's check passes after it");
  const repaired = await Deno.readFile(path);
  const sidecar = await Deno.readFile(quarantinePath(path)).catch(() => new Uint8Array());
  const now = splitLines(repaired).map(byteString);
  const kept = new Set(sidecarPayloadLines(sidecar));
  const original = new Set(splitLines(before).map(byteString));
  for (const line of original) {
    if (line.length === 0) continue;
    assert(now.includes(line) || kept.has(line), `an original line is lost: ${line.slice(0, 80)}`);
  }
  const written = now.filter((line) => !original.has(line));
  const inserted = written.filter((line) => line.includes(INTERRUPTED_RESULT));
  assertEquals(inserted.length, first.plan.inserted.length, "the results it wrote are its own");
  assertEquals(written.length - inserted.length, first.plan.rewritten.length);
  const second = await repairSession(path);
  assert(isEmptyPlan(second.plan), "a second repair finds nothing to do");
  assertEquals(await Deno.readFile(path), repaired, "and changes nothing");
  return first.plan;
}

/** Resumes with the real tool and checks it was accepted and answered in the file. */
async function resumeAndAnswer(home: ClaudeHome, sessionId: string): Promise<ClaudeRun> {
  const path = home.transcript(sessionId);
  const size = (await Deno.stat(path)).size;
  const run = await home.run("say done", { resume: sessionId });
  assertAccepted(run);
  const tail = (await Deno.readTextFile(path)).slice(size);
  assert(tail.includes('You said: \\"say done\\"'), "its answer is appended to the same file");
  return run;
}

/** The results the last request sent for `ids`, as the file held them before. */
function assertRealResultsSent(run: ClaudeRun, real: Map<string, string>, ids: string[]): void {
  const last = messageRequests(run).at(-1)!;
  const sent = new Map(sentResults(last).map((result: SentResult) => [result.toolUseId, result]));
  for (const id of ids) {
    assertEquals(sent.get(id)?.text, real.get(id), `the real result of ${id} is sent unchanged`);
  }
}

realTest(
  `Claude Code ${VERSION}: a clean session with a tool call reads paired and needs nothing`,
  async (home) => {
    const run = await home.run("run `echo one`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const report = await readReport(path);
    assertEquals(callsOf(report), [{ name: "Bash echo one", output: "one" }]);
    assertEquals(turnsOf(report), ["succeeded 2"]);
    assert(report.healthy);
    const before = await Deno.readFile(path);
    const { plan } = await repairSession(path);
    assert(isEmptyPlan(plan), "nothing to repair in a file the tool wrote itself");
    assertEquals(await Deno.readFile(path), before);
    const real = await transcriptResults(path);
    const resumed = await resumeAndAnswer(home, run.sessionId);
    assertRealResultsSent(resumed, real, [...real.keys()]);
  },
);

realTest(
  `Claude Code ${VERSION}: parallel calls (alternating lines) read as one message, healthy`,
  async (home) => {
    const run = await home.run("run `echo one` and `echo two` and `echo three`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const last = messageRequests(run).at(-1)!;
    const shape = requestShape(last);
    assertEquals(
      [
        shape.filter((m) => m.includes("tool_use")).length,
        shape.filter((m) => m.includes("tool_result")).length,
      ],
      [1, 1],
      "Claude Code sends one message of the three calls and one of their results",
    );
    const ids = sentResults(last).map((result) => result.toolUseId);
    const real = await transcriptResults(path);
    assertEquals(ids, [...real.keys()], "the results go in the file order of their lines");
    const report = await readReport(path);
    assertEquals(callsOf(report), [
      { name: "Bash echo one", output: "one" },
      { name: "Bash echo two", output: "two" },
      { name: "Bash echo three", output: "three" },
    ]);
    assertEquals(turnsOf(report), ["succeeded 2"]);
    assert(report.healthy);
    const { plan } = await repairSession(path);
    assert(isEmptyPlan(plan), "a file the tool resumes cleanly has nothing to repair");
    assertRealResultsSent(await resumeAndAnswer(home, run.sessionId), real, ids);
  },
);

realTest(
  `Claude Code ${VERSION}: a response's first line moved after its results is read in chain order, as the tool resumes it`,
  async (home) => {
    const run = await home.run("run `echo one` and `echo two` and `echo three`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const real = await transcriptResults(path);
    // The first call's line moved after the last result's: every parentUuid as it was.
    const lines = (await Deno.readTextFile(path)).split("\n");
    const first = lines.findIndex((line) => line.includes('"type":"tool_use"'));
    const last = lines.findLastIndex((line) => line.includes('"type":"tool_result"'));
    assert(first >= 0 && last > first, "the run wrote calls and results");
    const moved = [...lines.slice(0, first), ...lines.slice(first + 1, last + 1), lines[first]!];
    await Deno.writeTextFile(path, [...moved, ...lines.slice(last + 1)].join("\n"));
    const report = await readReport(path);
    assertEquals(callsOf(report), [
      { name: "Bash echo one", output: "one" },
      { name: "Bash echo two", output: "two" },
      { name: "Bash echo three", output: "three" },
    ]);
    assertEquals(report.orphanCalls, []);
    assert(report.healthy, "turnlog reads the chain, not the file order");
    const before = await Deno.readFile(path);
    const { plan } = await repairSession(path);
    assert(isEmptyPlan(plan), "nothing to repair in a file the tool resumes as it is");
    assertEquals(await Deno.readFile(path), before);
    assertRealResultsSent(await resumeAndAnswer(home, run.sessionId), real, [...real.keys()]);
  },
);

realTest(
  `Claude Code ${VERSION}: a kill mid-tool (one call) is repaired and resumed`,
  async (home) => {
    const id = await home.killMidTool(`run \`${SLOW}\``, "sleep 60");
    const path = home.transcript(id);
    const report = await readReport(path);
    assertEquals(callsOf(report), [{ name: `Bash ${SLOW}`, output: null }]);
    assertEquals(turnsOf(report), ["unfinished -"]);
    assertEquals(report.orphanCalls.length, 1);
    const plan = await repairTwice(path);
    assertEquals(plan.inserted.length, 1);
    const resumed = await resumeAndAnswer(home, id);
    const sent = sentResults(messageRequests(resumed).at(-1)!);
    assertEquals(sent.map((result) => [result.text, result.isError]), [[INTERRUPTED_RESULT, true]]);
  },
);

realTest(
  `Claude Code ${VERSION}: a kill mid-tool of two parallel calls keeps the finished call's result`,
  async (home) => {
    const id = await home.killMidTool(`run \`echo one\` and \`${SLOW}\``, "sleep 60", {
      resultsWritten: 1,
    });
    const path = home.transcript(id);
    const report = await readReport(path);
    assertEquals(callsOf(report), [
      { name: "Bash echo one", output: "one" },
      { name: `Bash ${SLOW}`, output: null },
    ]);
    assertEquals(turnsOf(report), ["unfinished -"]);
    const real = await transcriptResults(path);
    const plan = await repairTwice(path);
    assertEquals(plan.inserted.length, 1, "only the killed call gets a result");
    assertEquals(plan.moved, []);
    const resumed = await resumeAndAnswer(home, id);
    const sent = sentResults(messageRequests(resumed).at(-1)!);
    assertEquals(sent.map((result) => result.text), ["one", INTERRUPTED_RESULT]);
    assertRealResultsSent(resumed, real, [...real.keys()]);
  },
);

realTest(
  `Claude Code ${VERSION}: its own --resume after a kill mends the file; turnlog reads the turn as interrupted`,
  async (home) => {
    const id = await home.killMidTool(`run \`echo one\` and \`${SLOW}\``, "sleep 60", {
      resultsWritten: 1,
    });
    const path = home.transcript(id);
    const size = (await Deno.stat(path)).size;
    const resumed = await home.run("say done", { resume: id });
    assertAccepted(resumed);
    const first = messageRequests(resumed)[0]!;
    assertEquals(
      sentResults(first).map((
        result,
      ) => [result.text.slice(0, CLAUDE_INTERRUPTED.length), result.isError]),
      [["one", false], [CLAUDE_INTERRUPTED, true]],
      "what it sends: the real result, and an interrupted one for the killed call",
    );
    const written = (await Deno.readTextFile(path)).slice(size).split("\n").flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return []; // the end of a line the kill cut, which Claude Code closed with a newline
      }
    });
    const mend = written.filter((line) => line.toolDenialKind === "interrupted");
    assertEquals(mend.length, 1, "what it writes: one interrupted result");
    const synthetic = written.find((line) => line.message?.model === "<synthetic>");
    assertEquals(synthetic?.message?.content?.[0]?.text, "No response requested.");
    const report = await readReport(path);
    assertEquals(turnsOf(report), ["cancelled 1", "succeeded 1"]);
    assert(report.healthy, "a file the tool mended itself is healthy");
    const { plan } = await repairSession(path);
    assert(isEmptyPlan(plan), "and turnlog plans nothing for it");
    await resumeAndAnswer(home, id);
  },
);

realTest(
  `Claude Code ${VERSION}: a torn last line is set aside and the session resumes`,
  async (home) => {
    const run = await home.run("run `echo one`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const text = await Deno.readTextFile(path);
    const lines = text.split("\n");
    const answer = lines.findLastIndex((line) => line.includes('"type":"assistant"'));
    const torn = [...lines.slice(0, answer), lines[answer]!.slice(0, 200)].join("\n");
    await Deno.writeTextFile(path, torn);
    const report = await readReport(path);
    assertEquals(report.problems.map((problem) => problem.kind), ["torn_tail"]);
    const real = await transcriptResults(path);
    const plan = await repairTwice(path);
    assertEquals(plan.moved.length, 1);
    assertRealResultsSent(await resumeAndAnswer(home, run.sessionId), real, [...real.keys()]);
  },
);

realTest(
  `Claude Code ${VERSION}: a file cut right after a call gets a result for it and resumes`,
  async (home) => {
    const run = await home.run("run `echo one`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const lines = (await Deno.readTextFile(path)).split("\n");
    const call = lines.findIndex((line) => line.includes('"type":"tool_use"'));
    await Deno.writeTextFile(path, lines.slice(0, call + 1).join("\n") + "\n");
    assertEquals(callsOf(await readReport(path)), [{ name: "Bash echo one", output: null }]);
    const plan = await repairTwice(path);
    assertEquals(plan.inserted.length, 1);
    const resumed = await resumeAndAnswer(home, run.sessionId);
    assertEquals(sentResults(messageRequests(resumed).at(-1)!).map((r) => r.text), [
      INTERRUPTED_RESULT,
    ]);
  },
);

realTest(
  `Claude Code ${VERSION}: a result without its call leaves the branch and the session resumes`,
  async (home) => {
    const run = await home.run("run `echo one`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const text = await Deno.readTextFile(path);
    const answer = text.split("\n").findLast((line) => line.includes('"type":"assistant"'))!;
    const parent = JSON.parse(answer);
    const stray = {
      ...parent,
      type: "user",
      parentUuid: parent.uuid,
      uuid: "5e1a7e0d-0000-4000-8000-000000000001",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_stray", content: "stray" }],
      },
    };
    delete stray.requestId;
    await Deno.writeTextFile(path, JSON.stringify(stray) + "\n", { append: true });
    const report = await readReport(path);
    assertEquals(report.orphanOutputs.length, 1);
    const real = await transcriptResults(path);
    real.delete("toolu_stray");
    const plan = await repairTwice(path);
    assertEquals(plan.moved.length, 1);
    const resumed = await resumeAndAnswer(home, run.sessionId);
    assertRealResultsSent(resumed, real, [...real.keys()]);
    assert(
      !sentResults(messageRequests(resumed).at(-1)!).some((r) => r.toolUseId === "toolu_stray"),
    );
  },
);

/** A stray `tool_result` line hung off the last assistant line of the file. */
async function appendStrayResult(path: string): Promise<void> {
  const text = await Deno.readTextFile(path);
  const parent = JSON.parse(
    text.split("\n").findLast((line) => line.includes('"type":"assistant"'))!,
  );
  const stray = {
    ...parent,
    type: "user",
    parentUuid: parent.uuid,
    uuid: "5e1a7e0d-0000-4000-8000-000000000002",
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_stray", content: "stray" }],
    },
  };
  delete stray.requestId;
  await Deno.writeTextFile(path, JSON.stringify(stray) + "\n", { append: true });
}

realTest(
  `Claude Code ${VERSION}: its own --resume leaves a stray result out of its request, not out of the file; turnlog does`,
  async (home) => {
    const run = await home.run("run `echo one`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    await appendStrayResult(path);
    const real = await transcriptResults(path);
    real.delete("toolu_stray");
    const own = await resumeAndAnswer(home, run.sessionId);
    const sent = sentResults(messageRequests(own).at(-1)!);
    assert(!sent.some((result) => result.toolUseId === "toolu_stray"), "it sends no stray result");
    assert(
      (await Deno.readTextFile(path)).includes('"tool_use_id":"toolu_stray"'),
      "the file keeps it",
    );
    assertEquals((await readReport(path)).orphanOutputs.length, 1);
    const plan = await repairTwice(path);
    assertEquals(plan.moved.length, 1, "turnlog takes the stray line out, into the sidecar");
    assertRealResultsSent(await resumeAndAnswer(home, run.sessionId), real, [...real.keys()]);
  },
);

realTest(
  `Claude Code ${VERSION}: a line that is not JSON in the middle of the file is passed over: it resumes as it is, and doctor says so`,
  async (home) => {
    const run = await home.run("run `echo one` and `echo two`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const real = await transcriptResults(path);
    const lines = (await Deno.readTextFile(path)).split("\n");
    const at = lines.findIndex((line) => line.includes('"type":"tool_result"'));
    await Deno.writeTextFile(
      path,
      [...lines.slice(0, at), "not json", ...lines.slice(at)].join("\n"),
    );
    const env = { get: (name: string) => name === "HOME" ? home.home : undefined };
    const doctor = (await examineHomes({ env })).homes.find((h) => h.tool === "Claude Code")!;
    assertEquals(doctor.unresumable, []);
    assertEquals(doctor.passedOver.map((s) => [s.path, s.findings]), [[path, 1]]);
    assertRealResultsSent(await resumeAndAnswer(home, run.sessionId), real, [...real.keys()]);
  },
);

realTest(
  `Claude Code ${VERSION}: a torn line its own --resume leaves in the middle of the file is set aside`,
  async (home) => {
    const run = await home.run("run `echo one`");
    assertAccepted(run);
    const path = home.transcript(run.sessionId);
    const lines = (await Deno.readTextFile(path)).split("\n");
    const answer = lines.findLastIndex((line) => line.includes('"type":"assistant"'));
    const fragment = lines[answer]!.slice(0, 200);
    await Deno.writeTextFile(path, [...lines.slice(0, answer), fragment].join("\n"));
    await resumeAndAnswer(home, run.sessionId);
    const after = (await Deno.readTextFile(path)).split("\n");
    const at = after.indexOf(fragment);
    assert(at >= 0 && at < after.length - 2, "the fragment stays, in the middle of the file");
    const report = await readReport(path);
    assertEquals(report.problems.map((problem) => [problem.kind, problem.line]), [
      ["malformed_json", at + 1],
    ]);
    const real = await transcriptResults(path);
    const plan = await repairTwice(path);
    assertEquals(plan.moved.map((moved) => moved.line), [at + 1]);
    assertRealResultsSent(await resumeAndAnswer(home, run.sessionId), real, [...real.keys()]);
  },
);

realTest(
  `Claude Code ${VERSION}: after its /compact, turnlog reads what its resume sends (the summary, the preserved answer, what follows)`,
  async (home) => {
    const run = await home.run("run `echo one`");
    assertAccepted(run);
    const compacted = await home.run("/compact", { resume: run.sessionId });
    assertEquals(compacted.code, 0, compacted.stderr);
    const path = home.transcript(run.sessionId);
    assert((await Deno.readTextFile(path)).includes('"subtype":"compact_boundary"'), "compacted");
    const read = await readConversation(path);
    const prompt = "what did I ask before";
    const resumed = await home.run(prompt, { resume: run.sessionId });
    assertAccepted(resumed);
    const body = messageRequests(resumed).find((r) => JSON.stringify(r.body).includes(prompt))!;
    const truth = sentConversation(body.body);
    // turnlog's reading, sent as a request would send it, then the prompt.
    const ours = sentConversation({
      input: [
        ...read.items.map(({ item }) =>
          item.type === "compaction_summary"
            ? { type: "message", role: "user", content: item.content }
            : item.type === "function_call"
            ? { type: "function_call", name: item.name, arguments: item.arguments }
            : item.type === "function_call_output"
            ? { type: "function_call_output", output: item.output }
            : item
        ),
        { type: "message", role: "user", content: prompt },
      ],
    });
    assertEquals(truth.map((item) => item.kind), ["user", "assistant", "user"]);
    assertEquals(truth[1], { kind: "assistant", text: "Bash(echo one) returned: one" });
    assertEquals(missingInOrder(truth, ours), [], "turnlog reads all Claude Code sends");
    assertEquals(missingInOrder(ours, truth), [], "and nothing Claude Code leaves out");
  },
);
