/**
 * The real tools judge `export`: for every pair of source and target among turnlog, Codex CLI,
 * Claude Code and Gemini CLI. Each source session is made by the tool itself (turnlog's own
 * runtime for turnlog) against the embedded model, with a tool call; a copy is exported, and
 * the source tool resumes the original: the first request it sends is the ground truth. Each
 * target tool (turnlog's own resume for turnlog) then resumes the export against the embedded
 * model (which refuses what each real API refuses): its first request must carry every user
 * text, assistant text, call and result of the ground truth, in order (its own injected context
 * aside), every request must be accepted, and its answer must land in the exported file, which
 * turnlog then reads with one more turn. A round trip (Claude Code to Codex to Claude Code)
 * keeps the conversation equal. Corpus sessions (real Claude Code and Codex files) are exported
 * to each tool and resumed by it, their ground truth turnlog's reading of what their tool's
 * resume sends. The counts carried and degraded per pair are printed.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../_assert.ts";
import { needing } from "../_needs.ts";
import { CORPUS, CORPUS_MISSING } from "../_corpus.ts";
import { harness } from "../_runtime_helpers.ts";
import { createCompactor } from "../../src/runtime/mod.ts";
import { type ExportedSession, exportSession, readConversation } from "../../src/export/mod.ts";
import { collectSession } from "../../src/formats/mod.ts";
import { repairSession } from "../../src/repair/mod.ts";
import {
  CLAUDE_CODE,
  CODEX,
  GEMINI_CLI,
  installedRealClient,
  type RealClient,
} from "../../testing/real_clients/install.ts";
import { ClaudeHome, messageRequests } from "../../testing/real_clients/claude_code.ts";
import {
  codexExec,
  type CodexHome,
  codexKilledMidTool,
  codexResume,
  makeCodexHome,
  rolloutPath,
  startCodexApi,
} from "../../testing/real_clients/codex.ts";
import { GeminiHome } from "../../testing/real_clients/gemini.ts";
import {
  countsOf,
  missingInOrder,
  sentConversation,
  type SentItem,
  shortItem,
} from "../../testing/real_clients/export_judge.ts";

const codex = installedRealClient(CODEX);
const claude = installedRealClient(CLAUDE_CODE);
const gemini = installedRealClient(GEMINI_CLI);
const missing = [codex, claude, gemini].find((c): c is string => typeof c === "string");

/** The prompt every resume sends: a recall, so the model answers in text. */
const PROMPT = "what did I ask before";

/** A session made by its tool, copied before its tool resumed it, and that resume's request. */
interface Source {
  name: string;
  /** The copy, exported. */
  path: string;
  /** What the source tool's resume sent first. */
  truth: SentItem[];
}

/** The homes the targets run in, one per tool, shared by every source. */
interface Targets {
  codex: CodexHome;
  claude: ClaudeHome;
  gemini: GeminiHome;
  dir: string;
}

/** The first request body whose conversation ends with the prompt. */
function firstWithPrompt(bodies: unknown[]): unknown {
  const found = bodies.find((body) => JSON.stringify(body ?? {}).includes(PROMPT));
  assert(found !== undefined, `no request carried the prompt (${bodies.length} requests)`);
  return found;
}

async function copied(path: string, dir: string, name: string): Promise<string> {
  const copy = join(dir, `${name}-${path.split("/").at(-1)}`);
  await Deno.copyFile(path, copy);
  return copy;
}

async function codexSource(targets: Targets): Promise<Source> {
  const home = targets.codex;
  const ran = await codexExec(home, "run `echo hi`");
  assertEquals(ran.code, 0, ran.stderr);
  const rollout = await rolloutPath(home, ran.threadId!);
  const path = await copied(rollout, targets.dir, "codex");
  const before = home.api.requests.length;
  const resumed = await codexResume(home, ran.threadId!, PROMPT);
  assertEquals(resumed.code, 0, resumed.stderr);
  const bodies = home.api.requests.slice(before).map((request) => request.body);
  return { name: "Codex", path, truth: sentConversation(firstWithPrompt(bodies)) };
}

async function claudeSource(targets: Targets): Promise<Source> {
  const home = targets.claude;
  const ran = await home.run("run `echo one`");
  assertEquals(ran.code, 0, ran.stderr);
  const path = await copied(home.transcript(ran.sessionId), targets.dir, "claude");
  const resumed = await home.run(PROMPT, { resume: ran.sessionId });
  assertEquals(resumed.code, 0, resumed.stderr);
  const bodies = messageRequests(resumed).map((request) => request.body);
  return { name: "Claude Code", path, truth: sentConversation(firstWithPrompt(bodies)) };
}

/**
 * A Claude Code session compacted by its own `/compact`, then a turn with a call: its resume
 * sends the summary, the answer the compaction preserved, the command's lines, and the turn.
 */
async function claudeCompactedSource(targets: Targets): Promise<Source> {
  const home = targets.claude;
  const ran = await home.run("run `echo one`");
  assertEquals(ran.code, 0, ran.stderr);
  const compacted = await home.run("/compact", { resume: ran.sessionId });
  assertEquals(compacted.code, 0, compacted.stderr);
  const after = await home.run("run `echo two`", { resume: ran.sessionId });
  assertEquals(after.code, 0, after.stderr);
  const path = await copied(home.transcript(ran.sessionId), targets.dir, "claude-compacted");
  assert((await Deno.readTextFile(path)).includes('"compact_boundary"'), "Claude Code compacted");
  const resumed = await home.run(PROMPT, { resume: ran.sessionId });
  assertEquals(resumed.code, 0, resumed.stderr);
  const bodies = messageRequests(resumed).map((request) => request.body);
  return {
    name: "Claude Code (compacted)",
    path,
    truth: sentConversation(firstWithPrompt(bodies)),
  };
}

/**
 * A Codex session compacted by Codex itself: its auto-compaction (limit 1 token, for one turn
 * only) before the second turn, then a turn with a call. Its resume sends the initial context,
 * the user messages before the compaction, the summary (a user message), and what follows.
 */
async function codexCompactedSource(targets: Targets): Promise<Source> {
  const home = targets.codex;
  const config = join(home.home, "config.toml");
  const plain = await Deno.readTextFile(config);
  const ran = await codexExec(home, "run `echo hi`");
  assertEquals(ran.code, 0, ran.stderr);
  await Deno.writeTextFile(config, `model_auto_compact_token_limit = 1\n${plain}`);
  const compacted = await codexResume(home, ran.threadId!, "say what happened");
  await Deno.writeTextFile(config, plain);
  assertEquals(compacted.code, 0, compacted.stderr);
  const after = await codexResume(home, ran.threadId!, "run `echo two`");
  assertEquals(after.code, 0, after.stderr);
  const rollout = await rolloutPath(home, ran.threadId!);
  const path = await copied(rollout, targets.dir, "codex-compacted");
  assert((await Deno.readTextFile(path)).includes('"type":"compacted"'), "Codex compacted");
  const before = home.api.requests.length;
  const resumed = await codexResume(home, ran.threadId!, PROMPT);
  assertEquals(resumed.code, 0, resumed.stderr);
  const bodies = home.api.requests.slice(before).map((request) => request.body);
  return { name: "Codex (compacted)", path, truth: sentConversation(firstWithPrompt(bodies)) };
}

/** The slow command a run is killed in. */
const SLOW = "echo waiting; sleep 60; echo woke";

async function codexKilledSource(targets: Targets): Promise<Source> {
  const home = targets.codex;
  const { threadId, rollout } = await codexKilledMidTool(home, `run \`${SLOW}\``, 1);
  // Codex's own mend: its resume answers the orphan call ("aborted", in the request only).
  const mended = await codexResume(home, threadId, "say done");
  assertEquals(mended.code, 0, mended.stderr);
  const path = await copied(rollout, targets.dir, "codex-killed");
  const before = home.api.requests.length;
  const resumed = await codexResume(home, threadId, PROMPT);
  assertEquals(resumed.code, 0, resumed.stderr);
  const bodies = home.api.requests.slice(before).map((request) => request.body);
  return { name: "Codex (killed)", path, truth: sentConversation(firstWithPrompt(bodies)) };
}

async function claudeKilledSource(targets: Targets): Promise<Source> {
  const home = targets.claude;
  const id = await home.killMidTool(`run \`echo one\` and \`${SLOW}\``, "sleep 60", {
    resultsWritten: 1,
  });
  // Claude Code's own mend: its resume writes a result for each unanswered call.
  const mended = await home.run("say done", { resume: id });
  assertEquals(mended.code, 0, mended.stderr);
  const path = await copied(home.transcript(id), targets.dir, "claude-killed");
  const resumed = await home.run(PROMPT, { resume: id });
  assertEquals(resumed.code, 0, resumed.stderr);
  const bodies = messageRequests(resumed).map((request) => request.body);
  return { name: "Claude Code (killed)", path, truth: sentConversation(firstWithPrompt(bodies)) };
}

async function geminiSource(targets: Targets): Promise<Source> {
  const home = targets.gemini;
  const ran = await home.run("read README.md");
  assertEquals(ran.code, 0, ran.stderr);
  const [written] = home.sessionFiles();
  const path = await copied(written!, targets.dir, "gemini");
  // What Gemini resumes is the file repaired, as turnlog's reader reads it; the export is of
  // the file as Gemini wrote it.
  const bodies = await geminiTruth(home, written!);
  return { name: "Gemini CLI", path, truth: sentConversation(firstWithPrompt(bodies)) };
}

/**
 * Gemini's own resume of `written`, the file as turnlog reads it: renamed as an earlier
 * minute's (the exports and stubs of this minute are files of their own) and repaired (Gemini
 * 0.61 sends the call's one result twice when it resumes its own file: the API's 400, see
 * gemini_suite.ts). Returns the requests; the file and Gemini's stubs are removed.
 */
async function geminiTruth(home: GeminiHome, written: string): Promise<unknown[]> {
  const renamed = written.replace(/session-[\dT-]{16}-/, "session-2026-01-01T00-00-");
  await Deno.rename(written, renamed);
  await repairSession(renamed);
  const resumed = await home.run(PROMPT, { resume: "latest" });
  assertEquals(resumed.code, 0, resumed.stderr);
  await Deno.remove(renamed);
  for (const stub of home.sessionFiles()) await Deno.remove(stub);
  return resumed.requests.map((request) => request.body);
}

/**
 * A Gemini CLI session compressed by Gemini itself: a large file read, then a resume with its
 * compression threshold at nothing (and its compression model the embedded one), which sends
 * its two state-snapshot requests and writes the compressed history (`$set` of messages: the
 * summary as a user message and its "Got it" answer); then a turn with a call.
 */
async function geminiCompressedSource(targets: Targets): Promise<Source> {
  const home = targets.gemini;
  await Deno.writeTextFile(join(home.project, "README.md"), "a line of the readme\n".repeat(3000));
  const ran = await home.run("read README.md");
  assertEquals(ran.code, 0, ran.stderr);
  const [written] = home.sessionFiles();
  await repairSession(written!);
  const settings = join(home.home, ".gemini", "settings.json");
  const plain = await Deno.readTextFile(settings);
  await Deno.writeTextFile(
    settings,
    JSON.stringify({
      ...JSON.parse(plain),
      model: { compressionThreshold: 0.000001 },
      modelConfigs: {
        customAliases: {
          "chat-compression-default": { modelConfig: { model: home.model.model } },
        },
      },
    }),
  );
  const compressed = await home.run("say what happened", { resume: "latest" });
  await Deno.writeTextFile(settings, plain);
  assertEquals(compressed.code, 0, compressed.stderr);
  assert(
    compressed.requests.some((r) => JSON.stringify(r.body).includes("<state_snapshot>")),
    "Gemini compressed",
  );
  for (const stub of home.sessionFiles().filter((file) => file !== written)) {
    await Deno.remove(stub);
  }
  await Deno.writeTextFile(join(home.project, "notes.txt"), "hello notes\n");
  const after = await home.run("read notes.txt", { resume: "latest" });
  assertEquals(after.code, 0, after.stderr);
  for (const stub of home.sessionFiles().filter((file) => file !== written)) {
    await Deno.remove(stub);
  }
  const path = await copied(written!, targets.dir, "gemini-compressed");
  const bodies = await geminiTruth(home, written!);
  return {
    name: "Gemini CLI (compressed)",
    path,
    truth: sentConversation(firstWithPrompt(bodies)),
  };
}

async function turnlogSource(targets: Targets): Promise<Source> {
  await using h = await harness({ "notes.txt": "hello notes\n" });
  const events = await h.turn("read notes.txt", { model: h.model.model });
  const started = events.find((event) => event.type === "run_started") as
    | { sessionId: string }
    | undefined;
  assert(started !== undefined, "turnlog started a run");
  const file = await findFile(h.sessionsDir, started.sessionId);
  const path = await copied(file, targets.dir, "turnlog");
  const before = h.sent.length;
  await h.turn(PROMPT, { sessionId: started.sessionId, model: h.model.model });
  return { name: "turnlog", path, truth: sentConversation(firstWithPrompt(h.sent.slice(before))) };
}

async function turnlogCompactedSource(targets: Targets): Promise<Source> {
  await using h = await harness({ "notes.txt": "hello notes\n".repeat(40) });
  // A low threshold: the second turn's rounds are compacted into a summary.
  const compactor = createCompactor({ threshold: 300 });
  const events = await h.turn("read notes.txt", { model: h.model.model, compactor });
  const started = events.find((event) => event.type === "run_started") as
    | { sessionId: string }
    | undefined;
  assert(started !== undefined, "turnlog started a run");
  const sessionId = started.sessionId;
  await h.turn("list .", { sessionId, model: h.model.model, compactor });
  const file = await findFile(h.sessionsDir, sessionId);
  const read = await readConversation(file);
  assert(
    read.items.some(({ item }) => item.type === "compaction_summary"),
    "the session was compacted",
  );
  const path = await copied(file, targets.dir, "turnlog-compacted");
  const before = h.sent.length;
  await h.turn(PROMPT, { sessionId, model: h.model.model });
  return {
    name: "turnlog (compacted)",
    path,
    truth: sentConversation(firstWithPrompt(h.sent.slice(before))),
  };
}

async function findFile(dir: string, id: string): Promise<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      const found = await findFile(path, id).catch(() => undefined);
      if (found) return found;
    } else if (entry.name.includes(id)) return path;
  }
  throw new Error(`no file of ${id} in ${dir}`);
}

/** What one target's resume of an export sent, and what became of the file. */
interface Resumed {
  /** Every request body of the resume, with its status and error. */
  requests: { body: unknown; status: number; error: string | null | undefined }[];
  code: number;
  stderr: string;
}

function envOf(home: string, variable: string): { get(name: string): string | undefined } {
  return { get: (name) => name === variable ? home : undefined };
}

async function exportTo(
  source: string,
  target: string,
  targets: Targets,
  root?: string,
): Promise<ExportedSession> {
  switch (target) {
    case "codex":
      return await exportSession(source, {
        to: "codex",
        env: envOf(targets.codex.home, "CODEX_HOME"),
        cwd: targets.codex.work,
      });
    case "claude":
      return await exportSession(source, {
        to: "claude",
        env: envOf(targets.claude.home, "HOME"),
        cwd: targets.claude.project,
      });
    case "gemini":
      return await exportSession(source, {
        to: "gemini",
        env: envOf(targets.gemini.home, "GEMINI_CLI_HOME"),
        cwd: targets.gemini.project,
      });
    default:
      return await exportSession(source, { to: "turnlog", root, cwd: targets.dir });
  }
}

async function resumeIn(exported: ExportedSession, targets: Targets): Promise<Resumed> {
  switch (exported.target) {
    case "codex": {
      const before = targets.codex.api.requests.length;
      const run = await codexResume(targets.codex, exported.id, PROMPT);
      return { requests: targets.codex.api.requests.slice(before), ...run };
    }
    case "claude": {
      const run = await targets.claude.run(PROMPT, { resume: exported.id });
      return { requests: messageRequests(run), code: run.code, stderr: run.stderr };
    }
    case "gemini": {
      const run = await targets.gemini.run(PROMPT, { resume: exported.id });
      return { requests: run.requests, code: run.code, stderr: run.stderr };
    }
  }
  throw new Error(`resumeIn: ${exported.target} is resumed by turnlog's harness`);
}

/** The figures the note on the issue gives per pair. */
const figures: string[] = [];

/**
 * Exports `source` to `target`, resumes it with the target's tool, and judges the request and
 * the file.
 */
async function judgePair(source: Source, target: string, targets: Targets): Promise<void> {
  let exported: ExportedSession;
  let resumed: Resumed;
  let turns: number;
  if (target === "turnlog") {
    await using h = await harness();
    exported = await exportTo(source.path, target, targets, h.sessionsDir);
    turns = (await collectSession(exported.path)).facts.turns;
    const before = h.sent.length;
    const events = await h.turn(PROMPT, { sessionId: exported.id, model: h.model.model });
    const failed = events.find((event) => event.type === "run_failed");
    resumed = {
      requests: h.sent.slice(before).map((body) => ({ body, status: 200, error: null })),
      code: failed === undefined ? 0 : 1,
      stderr: JSON.stringify(failed ?? null),
    };
    await judgeFile(exported, turns);
  } else {
    exported = await exportTo(source.path, target, targets);
    turns = (await collectSession(exported.path)).facts.turns;
    resumed = await resumeIn(exported, targets);
    await judgeFile(exported, turns);
  }
  if (Deno.env.get("TURNLOG_EXPORT_DEBUG")) {
    console.error(`${source.name} truth:\n${source.truth.map(shortItem).join("\n")}`);
  }
  figures.push(
    `${source.name} -> ${target}: carried ${JSON.stringify(exported.carried)}; degraded ${
      JSON.stringify(exported.degraded.map((d) => `${d.count} ${d.what}`))
    }`,
  );
  const refused = resumed.requests.filter((request) => request.status !== 200);
  assertEquals(refused.map((r) => `${r.status} ${r.error}`), [], "every request is accepted");
  assertEquals(resumed.code, 0, resumed.stderr);
  const sent = sentConversation(firstWithPrompt(resumed.requests.map((r) => r.body)));
  assertEquals(
    missingInOrder(source.truth, sent),
    [],
    `the ${target} request carries the ${source.name} resume's conversation, in order:\n${
      sent.map(shortItem).join("\n")
    }`,
  );
}

/** The target's answer is in the exported file: turnlog reads one more turn, ending with it. */
async function judgeFile(exported: ExportedSession, turns: number): Promise<void> {
  const after = await readConversation(exported.path);
  const prompt = after.items.findLastIndex(({ item }) =>
    item.type === "message" && item.role === "user" && item.content.includes(PROMPT)
  );
  assert(prompt !== -1, `the prompt is in the exported ${exported.target} file`);
  const answer = after.items.at(-1)!.item;
  assert(
    answer.type === "message" && answer.role === "assistant",
    `the ${exported.target} file ends with the answer`,
  );
  assertEquals(
    (await collectSession(exported.path)).facts.turns,
    turns + 1,
    `turnlog reads one more turn in the ${exported.target} file`,
  );
}

async function withTargets(fn: (targets: Targets) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "turnlog-export-suite-" });
  await using api = await startCodexApi();
  await using codexHome = await makeCodexHome(codex as RealClient, api);
  await using claudeHome = await ClaudeHome.open(claude as RealClient);
  await using geminiHome = await GeminiHome.open(gemini as RealClient);
  try {
    await fn({ codex: codexHome, claude: claudeHome, gemini: geminiHome, dir });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const SOURCES = [
  ["turnlog", turnlogSource],
  ["Codex", codexSource],
  ["Claude Code", claudeSource],
  ["Gemini CLI", geminiSource],
  ["Codex killed mid-tool, then mended by its resume", codexKilledSource],
  ["Claude Code killed mid-tool, then mended by its resume", claudeKilledSource],
  ["turnlog after a compaction", turnlogCompactedSource],
  ["Claude Code after its /compact", claudeCompactedSource],
  ["Codex after its auto-compaction", codexCompactedSource],
  ["Gemini CLI after its compression", geminiCompressedSource],
] as const;

for (const [name, make] of SOURCES) {
  Deno.test({
    ...needing(`exportSession() from ${name}: every target's real tool resumes it`, missing),
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      await withTargets(async (targets) => {
        const source = await make(targets);
        assert(countsOf(source.truth).call > 0, "the ground truth holds a call");
        for (const target of ["turnlog", "codex", "claude", "gemini"]) {
          await t.step(`to ${target}`, () => judgePair(source, target, targets));
        }
      });
      console.error(figures.splice(0).join("\n"));
    },
  });
}

Deno.test({
  ...needing(
    "exportSession() Claude Code -> Codex -> Claude Code keeps the conversation, and Claude Code resumes it",
    missing,
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withTargets(async (targets) => {
      const source = await claudeSource(targets);
      const there = await exportTo(source.path, "codex", targets);
      const back = await exportTo(there.path, "claude", targets);
      const strip = (items: { item: unknown }[]) =>
        JSON.stringify(items.map(({ item }) => item)).replace(/"callId":"[^"]*"/g, "");
      const original = await readConversation(source.path);
      const returned = await readConversation(back.path);
      assertEquals(
        strip(returned.items.filter(({ item }) => !isSystem(item))),
        strip(original.items.filter(({ item }) => !isSystem(item))),
        "the conversation is the same, item for item, error flags too",
      );
      const resumed = await resumeIn(back, targets);
      assertEquals(resumed.requests.filter((r) => r.status !== 200), []);
      const sent = sentConversation(firstWithPrompt(resumed.requests.map((r) => r.body)));
      assertEquals(missingInOrder(source.truth, sent), []);
    });
  },
});

async function output(command: Deno.Command): Promise<{ code: number; text: string }> {
  const done = await command.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: done.code, text: decode(done.stdout) + decode(done.stderr) };
}

Deno.test({
  ...needing(
    "exportSession() writes sessions each tool's own list finds: codex resume --last, claude --continue, gemini --list-sessions",
    missing,
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withTargets(async (targets) => {
      const source = await turnlogSource(targets);
      // Codex: `resume --last` picks the newest rollout its list shows (it needs a
      // user_message event, and an interactive source).
      const codexExport = await exportTo(source.path, "codex", targets);
      const before = targets.codex.api.requests.length;
      const last = await output(
        new Deno.Command(targets.codex.client.bin, {
          args: [
            "exec",
            "resume",
            "--last",
            "--skip-git-repo-check",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "-m",
            targets.codex.api.model,
            PROMPT,
          ],
          cwd: targets.codex.work,
          stdin: "null",
          env: {
            CODEX_HOME: targets.codex.home,
            TURNLOG_EMBEDDED_KEY: targets.codex.api.apiKey,
            NO_COLOR: "1",
          },
        }),
      );
      assertEquals(last.code, 0, last.text);
      assert(last.text.includes(codexExport.id), "codex resume --last took the export");
      const sent = sentConversation(
        firstWithPrompt(targets.codex.api.requests.slice(before).map((r) => r.body)),
      );
      assertEquals(missingInOrder(source.truth, sent), []);
      // Claude Code: `--continue` takes the newest session of the current folder's project.
      const claudeExport = await exportTo(source.path, "claude", targets);
      const continued = await output(
        new Deno.Command(targets.claude.client.bin, {
          args: ["-p", PROMPT, "--continue", "--output-format", "stream-json", "--verbose"],
          cwd: targets.claude.project,
          env: targets.claude.env(),
          clearEnv: true,
          stdin: "null",
        }),
      );
      assertEquals(continued.code, 0, continued.text);
      assert(
        continued.text.includes(`"session_id":"${claudeExport.id}"`),
        "claude --continue took the export",
      );
      // Gemini CLI: its list of the project's sessions.
      const geminiExport = await exportTo(source.path, "gemini", targets);
      const listed = await output(
        new Deno.Command(targets.gemini.client.bin, {
          args: ["--list-sessions"],
          cwd: targets.gemini.project,
          env: targets.gemini.env(),
          clearEnv: true,
          stdin: "null",
        }),
      );
      assertEquals(listed.code, 0, listed.text);
      assert(listed.text.includes(geminiExport.id), listed.text);
      assert(listed.text.includes("read notes.txt"), listed.text);
    });
  },
});

function isSystem(item: unknown): boolean {
  const value = item as { type: string; role?: string };
  return value.type === "message" && value.role === "system";
}

const CORPUS_FILES = [
  join(
    CORPUS,
    "claude/projects/-src-experiments-claude_p/2b4ed4c0-b905-41de-9238-273db3ec737a.jsonl",
  ),
  join(CORPUS, "codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"),
];

Deno.test({
  ...needing(
    "exportSession() of corpus sessions: each target's real tool resumes them",
    missing ?? CORPUS_MISSING,
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await withTargets(async (targets) => {
      for (const file of CORPUS_FILES) {
        // The ground truth: what the file's own resume sends, as turnlog reads it (the
        // source's tool resumes it in claude_code_corpus_suite.ts and codex_corpus_suite.ts).
        const read = await readConversation(file);
        const truth = sentConversation({
          input: read.items.flatMap(({ item }): Record<string, unknown>[] =>
            item.type === "message" && item.role !== "system"
              ? [{ type: "message", role: item.role, content: item.content }]
              : item.type === "function_call"
              ? [{ type: "function_call", name: item.name, arguments: item.arguments }]
              : item.type === "function_call_output"
              ? [{ type: "function_call_output", output: item.output }]
              : []
          ),
        });
        for (const target of ["codex", "claude", "gemini"]) {
          await t.step(`${file.split("/").at(-1)} to ${target}`, async () => {
            const exported = await exportTo(file, target, targets);
            const resumed = await resumeIn(exported, targets);
            figures.push(
              `corpus ${file.split("/").at(-1)} -> ${target}: carried ${
                JSON.stringify(exported.carried)
              }; degraded ${JSON.stringify(exported.degraded.map((d) => `${d.count} ${d.what}`))}`,
            );
            const refused = resumed.requests.filter((request) => request.status !== 200);
            assertEquals(refused.map((r) => `${r.status} ${r.error}`), []);
            assertEquals(resumed.code, 0, resumed.stderr);
            const sent = sentConversation(firstWithPrompt(resumed.requests.map((r) => r.body)));
            assertEquals(missingInOrder(truth, sent), []);
          });
        }
      }
    });
    console.log(figures.splice(0).join("\n"));
  },
});
