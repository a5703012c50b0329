/**
 * Ground truth from real files: each real Claude Code session of the shared corpus (and each
 * generated file of the shapes real versions write), given to the real Claude Code (the pinned 2.1.332, or the user's own) to
 * `--resume` against the embedded model, and compared with turnlog's reading. Every call whose
 * real result the tool sent is paired in turnlog's reading; after turnlog's repair the tool still
 * sends each of those results, unchanged; and for a file the tool resumes cleanly, repair plans
 * nothing but setting aside lines no one can read.
 */
import { basename, dirname, join } from "node:path";
import { assert, assertEquals } from "../_assert.ts";
import { CORPUS, corpusFiles, corpusMissing } from "../_corpus.ts";
import { needing } from "../_needs.ts";
import { inspectSession } from "../../src/inspect/mod.ts";
import { repairSession } from "../../src/repair/mod.ts";
import type { CallEntry, InspectReport } from "../../src/inspect/mod.ts";
import { CLAUDE_CODE, installedRealClient } from "../../testing/real_clients/install.ts";
import {
  ClaudeHome,
  type ClaudeRun,
  messageRequests,
  sentResults,
  transcriptResults,
} from "../../testing/real_clients/claude_code.ts";
import { CLAUDE_SESSION_ID } from "../../testing/formats/claude_builder.ts";
import {
  claudeAlternatingParallel,
  claudeKilledParallel,
  claudeLostLogicalParent,
  claudeSplitParallel,
} from "../../testing/formats/claude_shapes.ts";

const client = installedRealClient(CLAUDE_CODE);
const corpus = join(CORPUS, "claude", "projects");
const missingCorpus = corpusMissing(corpus);
const hasCorpus = missingCorpus === undefined;
const missingClient = typeof client === "string" ? client : undefined;
/** The version that runs, for test names. */
const VERSION = typeof client === "string" ? CLAUDE_CODE.version : client.version;

const SESSION_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/;
const PROMPT = "say done";

/** The real sessions of the corpus: files named by their session id that hold a tool call. */
async function corpusSessions(): Promise<{ name: string; folder: string; text: string }[]> {
  if (!hasCorpus) return [];
  const found = [];
  for await (const path of corpusFiles(corpus)) {
    if (!SESSION_FILE.test(basename(path)) || dirname(path).includes("subagents")) continue;
    const text = await Deno.readTextFile(path);
    if (!text.includes('"type":"tool_use"')) continue;
    found.push({ name: basename(path), folder: basename(dirname(path)), text });
  }
  return found;
}

/** The generated files of real shapes (a copy of what Claude Code 2.1.x wrote, in form). */
const SHAPES = {
  "split parallel calls (2.1.39)": claudeSplitParallel(),
  "alternating parallel calls (2.1.328)": claudeAlternatingParallel(),
  "a boundary without its logical parent": claudeLostLogicalParent(),
  "a kill Claude Code mended itself": claudeKilledParallel(true),
};

/** The call ids turnlog pairs with an output, and those it calls orphans. */
function pairing(report: InspectReport): { paired: Set<string>; orphan: Set<string> } {
  const calls = report.turns.flatMap((turn) => turn.entries ?? [])
    .filter((entry): entry is CallEntry => entry.kind === "function_call");
  return {
    paired: new Set(calls.filter((call) => call.output !== null).map((call) => call.callId)),
    orphan: new Set(calls.filter((call) => call.output === null).map((call) => call.callId)),
  };
}

/** The request of the resume that carries the history: the first one holding the prompt. */
function resumeRequest(run: ClaudeRun) {
  return messageRequests(run).find((request) =>
    request.status === 200 &&
    JSON.stringify((request.body as { messages?: unknown })?.messages ?? []).includes(PROMPT)
  );
}

/** The real results (as the file holds them) the tool sent in its resume request. */
function realResultsSent(run: ClaudeRun, real: Map<string, string>): Map<string, string> {
  const request = resumeRequest(run);
  const sent = new Map<string, string>();
  for (const result of request === undefined ? [] : sentResults(request)) {
    if (real.get(result.toolUseId) === result.text) sent.set(result.toolUseId, result.text);
  }
  return sent;
}

/** One file through the whole comparison; returns its numbers for the log line. */
async function judge(home: ClaudeHome, folder: string, name: string, text: string) {
  const dir = join(home.home, ".claude", "projects", folder);
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, name);
  const id = name.replace(/\.jsonl$/, "");
  await Deno.writeTextFile(path, text);
  const report = await inspectSession(path, { entries: true });
  const { paired, orphan } = pairing(report);
  const real = await transcriptResults(path);

  const asIs = await home.run(PROMPT, { resume: id });
  const clean = asIs.requests.every((request) => request.status === 200) && asIs.code === 0;
  const sent = realResultsSent(asIs, real);
  const misread = [...sent.keys()].filter((callId) => !paired.has(callId));
  assertEquals(misread, [], `${name}: calls whose real result Claude Code sends are paired`);

  await Deno.writeTextFile(path, text);
  const { plan } = await repairSession(path);
  const repaired = await home.run(PROMPT, { resume: id });
  assertEquals(
    repaired.requests.filter((r) => r.status !== 200).map((r) => r.error),
    [],
    `${name}: Claude Code resumes the repaired file with requests the API accepts`,
  );
  const after = realResultsSent(repaired, real);
  for (const [callId, result] of sent) {
    assertEquals(
      after.get(callId),
      result,
      `${name}: the real result of ${callId} is sent as it was`,
    );
  }
  if (clean) {
    assertEquals(
      [plan.inserted.length, plan.rewritten.length, plan.appended.length],
      [0, 0, 0],
      `${name}: nothing to repair in a file Claude Code resumes cleanly`,
    );
    assert(
      plan.moved.every((moved) => !["orphan_output", "duplicate_output"].includes(moved.kind)),
    );
  }
  const planned = plan.moved.length + plan.inserted.length + plan.rewritten.length;
  console.log(
    `${name}: ${paired.size + orphan.size} calls, ${orphan.size} orphan in turnlog's reading, ` +
      `${sent.size} real results sent by Claude Code (${misread.length} misread); resumed ` +
      `${clean ? "cleanly" : "with a refused request"}; repair plans ${planned} changes; ` +
      `after it ${after.size} real results sent, accepted`,
  );
}

const realClient = typeof client === "string" ? undefined : client;

for (const [label, text] of Object.entries(SHAPES)) {
  Deno.test({
    ...needing(
      `Claude Code ${VERSION} resumes a generated file of ${label} as turnlog reads it`,
      missingClient,
    ),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      await using home = await ClaudeHome.open(realClient!);
      await judge(home, "-work-project", `${CLAUDE_SESSION_ID}.jsonl`, text);
    },
  });
}

for (const session of await corpusSessions()) {
  Deno.test({
    ...needing(
      `Claude Code ${VERSION} resumes the corpus session ${session.name} as turnlog reads it`,
      missingClient,
    ),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn() {
      await using home = await ClaudeHome.open(realClient!);
      await judge(home, session.folder, session.name, session.text);
    },
  });
}

Deno.test({
  ...needing("the corpus holds real Claude Code sessions with tool calls", missingCorpus),
  async fn() {
    assert((await corpusSessions()).length > 0, `no session with a tool call under ${corpus}`);
  },
});
