/**
 * The real Codex CLI (the pinned 0.171.0, or the user's own: `--codex-bin`) judges what turnlog reads and repairs. Each case runs Codex in a
 * temporary `CODEX_HOME` against the embedded model (its Responses wire, `exec_command` rules),
 * then: turnlog reads what Codex wrote (calls, outputs, turns, how each ended) the way Codex
 * means it; `inspect --repair --write` mends it in place (same path: Codex's state names the
 * file); the real Codex resumes the repaired file with a request the embedded model accepts
 * and appends its answer; every original line is in the file or the sidecar; a second repair
 * changes nothing; no real output is moved or changed, and Codex still sends each one as it
 * was. Ignored, saying why, when Codex cannot be had.
 */
import { assert, assertEquals } from "../_assert.ts";
import { CODEX, installedRealClient, type RealClient } from "../../testing/real_clients/install.ts";
import {
  codexExec,
  codexFork,
  type CodexHome,
  codexKilledMidTool,
  codexResume,
  makeCodexHome,
  restoreHome,
  rolloutPath,
  sentInput,
  snapshotHome,
  startCodexApi,
} from "../../testing/real_clients/codex.ts";
import {
  abortedInRequest,
  assertAcceptedResume,
  assertNothingLost,
  codexTotal,
  historyConversation,
  lastRequest,
  type Reading,
  reading,
  realOutputs,
  repairTwice,
  sentConversation,
} from "../../testing/real_clients/codex_judge.ts";
import { collectSession } from "../../src/formats/mod.ts";
import { codexFactsOf } from "../../src/formats/codex/mod.ts";

const found = installedRealClient(CODEX);
const ignore = typeof found === "string";
if (ignore) console.log(`codex real-client tests ignored: ${found}`);
/** The version that runs, for test names. */
const VERSION = typeof found === "string" ? CODEX.version : found.version;

/** A test with a fresh Codex home against a fresh embedded model. */
function codexTest(name: string, fn: (home: CodexHome) => Promise<void>): void {
  Deno.test({
    name: `codex ${VERSION}: ${name}`,
    ignore,
    async fn() {
      await using api = await startCodexApi();
      await using home = await makeCodexHome(found as RealClient, api);
      await fn(home);
    },
  });
}

const ONE = "run `echo hi`";
const SLOW_ONE = "run `echo waiting; sleep 30; echo woke`";
const SLOW_TWO = "run `echo waiting; sleep 30; echo woke` and `sleep 31`";

async function cleanSession(home: CodexHome): Promise<{ threadId: string; rollout: string }> {
  const ran = await codexExec(home, ONE);
  assertEquals(ran.code, 0, ran.stderr);
  const threadId = ran.threadId!;
  return { threadId, rollout: await rolloutPath(home, threadId) };
}

codexTest(
  "a clean session with a tool call is healthy, repair changes nothing, Codex resumes it",
  async (home) => {
    const { threadId, rollout } = await cleanSession(home);
    const sent = realOutputs(lastRequest(home));
    assertEquals(sent.size, 1);
    const read = await reading(rollout);
    assertEquals(read.healthy, true);
    assertEquals(read.outcomes, ["succeeded"]);
    assertEquals(read.outputs, sent, "turnlog pairs what Codex sent");
    assertEquals(read.tokens, await codexTotal(rollout));
    const original = await Deno.readFile(rollout);
    const repaired = await repairTwice(rollout);
    assertEquals(repaired.changed, false);
    await assertNothingLost(rollout, original);
    await assertAcceptedResume(home, threadId, rollout, sent);
  },
);

codexTest(
  "a fork made by `codex exec fork` is read with its parent's history, as Codex sends it when it resumes the fork",
  async (home) => {
    const { threadId, rollout: parent } = await cleanSession(home);
    const two = await codexResume(home, threadId, "say two");
    assertEquals(two.code, 0, two.stderr);
    const forked = await codexFork(home, threadId, "say three");
    assertEquals(forked.code, 0, forked.stderr);
    const forkId = forked.threadId!;
    const fork = await rolloutPath(home, forkId);
    // The fork's file holds only its own records: the history is the parent's.
    const { facts } = await collectSession(fork, "codex");
    const inherited = codexFactsOf(facts)?.inherited;
    assertEquals(inherited?.threadId, threadId);
    assertEquals(inherited?.sources.map((source) => source.path), [parent]);
    assertEquals(inherited?.missing, null);
    const read = await reading(fork);
    assertEquals(read.healthy, true);
    assertEquals(read.outcomes, ["succeeded", "succeeded", "succeeded"]);
    assertEquals(read.tokens, await codexTotal(fork), "the thread's tokens, as Codex counts them");
    const history = await historyConversation(fork);
    assertEquals(history.filter((line) => line.startsWith("user: ")), [
      "user: run `echo hi`",
      "user: say two",
      "user: say three",
    ]);
    home.api.requests.length = 0;
    await assertAcceptedResume(home, forkId, fork, read.outputs);
    assertEquals(
      sentConversation(lastRequest(home)),
      [...history, "user: say done"],
      "what Codex sends when it resumes the fork is turnlog's reading of it",
    );
  },
);

async function killedCase(home: CodexHome, prompt: string, calls: number): Promise<void> {
  const { threadId, rollout } = await codexKilledMidTool(home, prompt, calls);
  const killed = await reading(rollout);
  assertEquals(killed.outcomes, [null], "the killed turn did not finish");
  assertEquals(killed.calls.length, calls);
  assertEquals(killed.outputs.size, 0);
  assertEquals(killed.orphanCalls, killed.calls);
  assertEquals(killed.tokens, await codexTotal(rollout), "a killed turn's tokens");
  const original = await Deno.readFile(rollout);
  await snapshotHome(home, "killed");

  // Codex's own resume mends the request, never the file.
  home.api.requests.length = 0;
  const own = await codexResume(home, threadId, "say done");
  assertEquals(own.code, 0, own.stderr);
  assertEquals(home.api.requests.map((request) => [request.status, request.error]), [[200, null]]);
  assertEquals(abortedInRequest(lastRequest(home)), killed.calls);
  const after = await Deno.readFile(rollout);
  assertEquals(after.subarray(0, original.length), original, "Codex only appends");
  const mended = await reading(rollout);
  assertEquals(mended.outcomes, [null, "succeeded"]);
  assertEquals(mended.orphanCalls, killed.calls, "the file still lacks the outputs");
  assertEquals(mended.wroteTurnAborted, false);
  assertEquals(mended.tokens, await codexTotal(rollout), "tokens after Codex's resume");

  // turnlog's repair of the file as Codex left it, then Codex resumes that.
  await restoreHome(home, "killed");
  home.api.requests.length = 0;
  const repaired = await repairTwice(rollout);
  assertEquals(repaired.changed, true);
  await assertNothingLost(rollout, original);
  const fixed = await reading(rollout);
  assertEquals(fixed.healthy, true);
  assertEquals(fixed.orphanCalls, []);
  await assertAcceptedResume(home, threadId, rollout, new Map());
  assertEquals(abortedInRequest(lastRequest(home)), [], "Codex sends turnlog's outputs");
}

codexTest(
  "killed mid-tool with one call: Codex's own resume, then turnlog's repair",
  (home) => killedCase(home, SLOW_ONE, 1),
);

codexTest(
  "killed mid-tool with two parallel calls: Codex's own resume, then turnlog's repair",
  (home) => killedCase(home, SLOW_TWO, 2),
);

/** A clean session's rollout changed by `damage` (lines in, lines out), then judged. */
async function damagedCase(
  home: CodexHome,
  damage: (lines: string[]) => string,
  expect: { orphanCalls: number; orphanOutputs: number; problems: number },
): Promise<void> {
  const { threadId, rollout } = await cleanSession(home);
  const lines = (await Deno.readTextFile(rollout)).split("\n").slice(0, -1);
  await Deno.writeTextFile(rollout, damage(lines));
  const read = await reading(rollout);
  assertEquals(
    [read.orphanCalls.length, read.orphanOutputs.length, read.problems],
    [expect.orphanCalls, expect.orphanOutputs, expect.problems],
  );
  const original = await Deno.readFile(rollout);
  await codexOwnResume(home, threadId, read);
  const repaired = await repairTwice(rollout);
  assertEquals(repaired.changed, true);
  await assertNothingLost(rollout, original);
  const fixed = await reading(rollout);
  assertEquals([fixed.healthy, fixed.problems], [true, 0]);
  await assertAcceptedResume(home, threadId, rollout, read.outputs);
}

/**
 * What Codex does with the damaged file by itself (the home put back afterwards): it resumes
 * it, answers each call turnlog calls an orphan with `aborted` and leaves out each output
 * turnlog calls an orphan, in the request only.
 */
async function codexOwnResume(home: CodexHome, threadId: string, read: Reading): Promise<void> {
  await snapshotHome(home, "damaged");
  home.api.requests.length = 0;
  const own = await codexResume(home, threadId, "say done");
  assertEquals(own.code, 0, own.stderr);
  assertEquals(home.api.requests.map((request) => [request.status, request.error]), [[200, null]]);
  assertEquals(abortedInRequest(lastRequest(home)), read.orphanCalls);
  const sentIds = sentInput(lastRequest(home)).map((item) => item.call_id);
  for (const callId of read.orphanOutputs) assertEquals(sentIds.includes(callId), false);
  await restoreHome(home, "damaged");
}

const callIndex = (lines: string[]) =>
  lines.findIndex((line) => line.includes('"type":"function_call"'));

codexTest(
  "a torn last line right after a call: the fragment to the sidecar, an output with an ordinal last",
  (home) =>
    damagedCase(home, (lines) => {
      const at = callIndex(lines) + 1;
      const next = lines[at]!;
      return [...lines.slice(0, at), next.slice(0, next.length >> 1)].join("\n");
    }, { orphanCalls: 1, orphanOutputs: 0, problems: 1 }),
);

codexTest(
  "a file cut right after a call: an output with an ordinal becomes the last record",
  (home) =>
    damagedCase(
      home,
      (lines) => lines.slice(0, callIndex(lines) + 1).join("\n") + "\n",
      { orphanCalls: 1, orphanOutputs: 0, problems: 0 },
    ),
);

codexTest("a result without its call: it leaves the file for the sidecar", (home) =>
  damagedCase(
    home,
    (lines) => lines.filter((_, at) => at !== callIndex(lines)).join("\n") + "\n",
    { orphanCalls: 0, orphanOutputs: 1, problems: 1 },
  ));

/**
 * A clean session's rollout with its ordinals changed by `damage` (records in, records out):
 * turnlog finds it, Codex refuses it or not as `refused` says, and after repair the real
 * Codex resumes it whole.
 */
async function ordinalCase(
  home: CodexHome,
  damage: (records: Record<string, unknown>[]) => Record<string, unknown>[],
  refused: boolean,
): Promise<void> {
  const { threadId, rollout } = await cleanSession(home);
  const two = await codexResume(home, threadId, "say two");
  assertEquals(two.code, 0, two.stderr);
  const records = (await Deno.readTextFile(rollout)).split("\n").filter(Boolean).map((line) =>
    JSON.parse(line) as Record<string, unknown>
  );
  await Deno.writeTextFile(
    rollout,
    damage(records).map((record) => JSON.stringify(record)).join("\n") + "\n",
  );
  const read = await reading(rollout);
  assertEquals([read.healthy, read.problems > 0], [false, true], "a finding");
  const original = await Deno.readFile(rollout);
  await snapshotHome(home, "damaged");
  home.api.requests.length = 0;
  const own = await codexResume(home, threadId, "say done");
  assertEquals(own.code !== 0, refused, own.stderr);
  if (refused) assert(own.stderr.includes("missing an ordinal"), own.stderr);
  await restoreHome(home, "damaged");
  const repaired = await repairTwice(rollout);
  assertEquals(repaired.changed, true);
  await assertNothingLost(rollout, original);
  const fixed = await reading(rollout);
  assertEquals([fixed.healthy, fixed.problems], [true, 0]);
  await assertAcceptedResume(home, threadId, rollout, read.outputs);
  const users = sentConversation(lastRequest(home)).filter((line) => line.startsWith("user: "));
  assertEquals(users, ["user: run `echo hi`", "user: say two", "user: say done"], "resumed whole");
}

const withoutOrdinal = (record: Record<string, unknown>) => {
  const { ordinal: _, ...rest } = record;
  return rest;
};
const promptAt = (records: Record<string, unknown>[]) =>
  records.findIndex((record) => JSON.stringify(record).includes('"text":"say two"'));

codexTest(
  "the last records without an ordinal: Codex refuses the file, and resumes it whole after repair",
  (home) =>
    ordinalCase(
      home,
      (records) => records.map((r, at) => at >= records.length - 2 ? withoutOrdinal(r) : r),
      true,
    ),
);

codexTest(
  "a record without an ordinal mid-file: a finding, renumbered, resumed whole",
  (home) =>
    ordinalCase(
      home,
      (records) => records.map((r, at) => at === promptAt(records) ? withoutOrdinal(r) : r),
      false,
    ),
);

codexTest("a repeated ordinal: a finding, renumbered, resumed whole", (home) =>
  ordinalCase(
    home,
    (records) =>
      records.map((r, at) =>
        at === promptAt(records) ? { ...r, ordinal: (r.ordinal as number) - 1 } : r
      ),
    false,
  ));

codexTest("an ordinal that goes back: a finding, renumbered, resumed whole", (home) =>
  ordinalCase(
    home,
    (records) => records.map((r, at) => at === promptAt(records) ? { ...r, ordinal: 3 } : r),
    false,
  ));

Deno.test({
  name: `codex ${VERSION}: the judge is a real one (a request with an unanswered call is refused)`,
  ignore,
  async fn() {
    await using api = await startCodexApi();
    await using home = await makeCodexHome(found as RealClient, api);
    const { threadId } = await cleanSession(home);
    assert(threadId.length > 0);
    const body = structuredClone(api.requests.at(-1)!.body);
    const input = (body.input as Record<string, unknown>[]).filter((item) =>
      item.type !== "function_call_output"
    );
    const refused = await fetch(`${api.baseURL}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${api.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ ...body, input }),
    });
    assertEquals(refused.status, 400);
    assertEquals(
      (await refused.json()).error.message.startsWith("No tool output found for function call"),
      true,
    );
  },
});
