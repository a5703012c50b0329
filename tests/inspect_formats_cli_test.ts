/**
 * `cli/inspect.ts` on other tools' sessions where those tools keep them: a Codex home and a
 * Claude Code home written by the project's generators, found with `--codex`, `--claude` or
 * `--sessions-dir`, listed, looked up by id prefix, and shown as text, JSON, HTML and history;
 * and every format of the registry, on the adapter contract's fixture, the same way.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { InspectReportSchema } from "../src/inspect/schemas.ts";
import { type ClaudeHome, writeClaudeHome, writeCodexHome } from "../testing/formats/homes.ts";
import type { CodexHomeSession } from "../testing/formats/homes.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { ADAPTERS } from "../src/formats/mod.ts";

const CLI = new URL("../cli/inspect.ts", import.meta.url).pathname;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

interface Homes extends AsyncDisposable {
  env: Record<string, string>;
  dir: string;
  codex: CodexHomeSession[];
  claude: ClaudeHome;
}

async function homes(): Promise<Homes> {
  const dir = await tempDir();
  const codex = await writeCodexHome(join(dir.path, "codex"));
  const claude = await writeClaudeHome(join(dir.path, "claude"));
  return {
    env: {
      CODEX_HOME: join(dir.path, "codex"),
      CLAUDE_CONFIG_DIR: join(dir.path, "claude"),
      TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"),
      NO_COLOR: "1",
    },
    dir: dir.path,
    codex,
    claude,
    [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose](),
  };
}

async function inspect(args: string[], env: Record<string, string>): Promise<Ran> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

function assertNoStackTrace(ran: Ran): void {
  const all = ran.stdout + ran.stderr;
  assert(!/\n\s+at .*(file|ext):/.test(all) && !/Uncaught/.test(all), all);
}

Deno.test("cli: --codex and --claude --no-catalog list those tools' sessions newest first, with a preview", async () => {
  await using h = await homes();
  const codex = await inspect(["--codex", "--no-catalog"], h.env);
  assertEquals(codex.code, 0, codex.stderr);
  const rows = (ran: Ran) => ran.stdout.split("\n").filter((line) => /^[0-9a-f]{8}/.test(line));
  assertMatch(
    codex.stdout,
    new RegExp(`^Codex sessions in ${h.env.CODEX_HOME}/sessions, newest first\n`),
  );
  assertEquals(rows(codex).map((row) => row.replace(/ {2}.* {2}/, " … ")), [
    "019c8bfe … Write a.txt",
    "019c8a70 … Build it",
    "019c8a4c … List the files",
  ]);
  const claude = await inspect(["--list", "--claude", "--limit", "2", "--no-catalog"], h.env);
  assertEquals(claude.code, 0, claude.stderr);
  // The newest two files, in the order of their own last records (forks: 17:00:17).
  assertEquals(rows(claude).map((row) => row.slice(0, 8)), ["5f0e1d2c", "6a7b8c9d"]);
  assertMatch(
    claude.stdout,
    /\nid prefix {2}first {17}last {18}project {8}title or first prompt\n/,
  );
  assertMatch(
    claude.stdout,
    /\n5f0e1d2c {3}2026-01-23 17:00:00Z {2}2026-01-23 17:00:17Z {2}\/work\/project {2}/,
  );
  assertMatch(claude.stdout, /\(more sessions: --limit N shows more\)/);
  // A file whose records name no time shows its dates as missing, never 1970.
  const every = await inspect(["--claude", "--no-catalog"], h.env);
  assertMatch(every.stdout, /\n33333333 {3}- {21}- {21}-work-project {2}An old title\n/);
  assert(!every.stdout.includes("1970"), every.stdout);
  const json = JSON.parse((await inspect(["--claude", "--json", "--no-catalog"], h.env)).stdout);
  assertEquals(json.format, "claude-code");
  assertEquals(json.sessions.length, 4);
  // A home given as --sessions-dir is read as the tool's root.
  const byDir = await inspect(["--sessions-dir", h.env.CODEX_HOME!, "--no-catalog"], h.env);
  assertEquals(rows(byDir), rows(codex));
  assertMatch(byDir.stdout, /Inspect one: \.\/denow task inspect --sessions-dir \S+ <id prefix>/);
  const last = await inspect(["--codex", "--last"], h.env);
  assertMatch(last.stdout, /^Session 019c8bfe-ec25-79e0-97d7-bda6a9c575ff {2}healthy\n/);
});

Deno.test("cli: --codex and --claude list from the catalog: every session's turns and verdict, by the sessions' own dates", async () => {
  await using h = await homes();
  const env = { ...h.env, TURNLOG_CATALOG: join(h.dir, "catalog.sqlite") };
  const codex = await inspect(["--codex"], env);
  assertEquals(codex.code, 0, codex.stderr);
  assertEquals(codex.stderr, "");
  const rows = (ran: Ran) => ran.stdout.split("\n").filter((line) => /^[0-9a-f]{8}/.test(line));
  assertMatch(
    codex.stdout,
    /\nid prefix {2}first {17}last {18}turns {2}verdict {9}project {8}title or first prompt\n/,
  );
  // By their last records (12:00:29, :25, :23), not by the times their names carry.
  assertEquals(rows(codex).map((row) => row.replace(/ {2}.*Z {2} */, " … ")), [
    "019c8a4c … 2  healthy         /work/project  List the files",
    "019c8bfe … 2  healthy         /work/project  Write a.txt",
    "019c8a70 … 3  2 orphan calls  /work/project  Build it",
  ]);
  const claude = await inspect(["--claude"], env);
  assertMatch(
    claude.stdout,
    /\n5f0e1d2c {3}2026-01-23 17:00:00Z {2}2026-01-23 17:00:17Z {6}2 {2}1 problem, 1 orphan call {2}\/work\/project {2}Write notes.txt\n/,
  );
  // A file whose records name no time goes last, its dates missing.
  assertEquals(rows(claude).at(-1)!.slice(0, 8), "33333333");
  assertMatch(rows(claude).at(-1)!, /^33333333 {3}- {21}- {21}/);
  const json = JSON.parse((await inspect(["--claude", "--json"], env)).stdout);
  assertEquals(json.sessions.length, 4);
  assertEquals(json.sessions.map((s: { turns: number }) => s.turns), [2, 5, 1, 0]);
});

Deno.test("cli: a Claude Code file that names no time says its creation is unknown, never 1970", async () => {
  await using h = await homes();
  const ran = await inspect([h.claude.metadataOnly], h.env);
  assertMatch(ran.stdout, /\n {2}created {2}unknown\n/);
  assert(!ran.stdout.includes("1970"), ran.stdout);
  const json = JSON.parse((await inspect(["--json", h.claude.metadataOnly], h.env)).stdout);
  assertEquals([json.session.created, json.session.updated], [null, null]);
});

Deno.test("cli: an id prefix finds another tool's session; --json reports its format and calls per turn", async () => {
  await using h = await homes();
  const text = await inspect(["--codex", "019c8a70"], h.env);
  assertEquals(text.code, 1, "an orphan call is a finding");
  assertMatch(text.stdout, /^Session 019c8a70-dda7-7f33-98ea-f30553347322 {2}2 orphan calls\n/);
  assertMatch(text.stdout, /\n {2}format {3}Codex CLI rollout /);
  assertMatch(
    text.stdout,
    new RegExp(`\nContinue it in turnlog .*\n {2}\\./denow task import ${h.codex[1]!.path}\n`),
  );
  assertNoStackTrace(text);
  const json = await inspect(["--json", "--sessions-dir", join(h.claude.projects), "5f0e"], h.env);
  const report = InspectReportSchema.parse(JSON.parse(json.stdout));
  assertEquals([report.session.format, report.session.path], ["claude-code", h.claude.forks]);
  assertEquals(report.turns.map((t) => t.counts.function_call), [1, 2]);
  assertEquals(report.forks.map((f) => f.kind), ["rewind", "local_command"]);
  const missing = await inspect(["--claude", "ffffffff"], h.env);
  assertEquals(missing.code, 2);
  assertMatch(
    missing.stderr,
    /^turnlog inspect: Session not found: no session with id or prefix "ffffffff" in /,
  );
  const both = await inspect(["--codex", "--claude"], h.env);
  assertEquals(both.code, 2);
  assertMatch(both.stderr, /^turnlog inspect: --codex and --claude do not go together\n/);
});

Deno.test("cli: --html, --history and the --repair dry run work on other tools' files and write nothing", async () => {
  await using h = await homes();
  const rollout = h.codex[1]!.path;
  const before = await Deno.readFile(rollout);
  const page = join(h.dir, "page.html");
  const html = await inspect(["--html", page, rollout], h.env);
  assertEquals(html.code, 0, html.stderr);
  assertMatch(await Deno.readTextFile(page), /data-format="codex"/);
  const history = await inspect(["--history", h.claude.forks], h.env);
  assertEquals(history.code, 0, history.stderr);
  const items = history.stdout.trim().split("\n").map((line) => JSON.parse(line));
  assertEquals(items.length, 14);
  assertEquals(items.filter((i) => i.synthesized).map((i) => i.callId), ["toolu_O"]);
  const dry = await inspect(["--repair", rollout], h.env);
  assertEquals([dry.code, dry.stderr], [1, ""]);
  assertMatch(
    dry.stdout,
    new RegExp(
      `^Repair plan for ${rollout} \\(dry run: nothing changed; add --write to do it\\)\n` +
        "What Codex needs and the file lacks:\n",
    ),
  );
  assertMatch(dry.stdout, /\n {2}1\. write after line 6 a result for o1 \(exec_command, /);
  const empty = await inspect([h.claude.empty], h.env);
  assertEquals(empty.code, 0);
  assertMatch(
    empty.stdout,
    /^Session 22222222-0000-4000-8000-000000000000 {2}empty file: no conversation\n/,
  );
  const noHistory = await inspect(["--history", h.claude.empty], h.env);
  assertEquals(noHistory.code, 2);
  assertMatch(
    noHistory.stderr,
    new RegExp(`^turnlog inspect: ${h.claude.empty}: no conversation to resume \\(empty file\\)\n`),
  );
  assertEquals(await Deno.readFile(rollout), before);
});

Deno.test("cli: a Claude Code conversation whose lines name no time shows its turns with no time, never 1970", async () => {
  await using dir = await tempDir();
  const transcript = new ClaudeTranscriptBuilder({
    sessionId: "bbbbbbbb-0000-4000-8000-000000000001",
  });
  transcript.user("Hello there");
  transcript.assistant([{ text: "Hi." }], { stop: "end_turn" });
  const path = join(dir.path, "bbbbbbbb-0000-4000-8000-000000000001.jsonl");
  const undated = transcript.lines.map((line) => {
    const { timestamp: _, ...rest } = JSON.parse(line);
    return JSON.stringify(rest);
  });
  await Deno.writeTextFile(path, undated.join("\n") + "\n");
  const text = await inspect([path], {});
  assertMatch(text.stdout, /Turn 1 .*no time/);
  assert(!text.stdout.includes("1970"), text.stdout);
  const html = await inspect(["--html", "-", path], {});
  assert(html.stdout.includes("Hello there") && !html.stdout.includes("1970"), "the page");
});

Deno.test("cli: the first prompt is the person's words in every view, not Claude Code's injected context", async () => {
  await using dir = await tempDir();
  const id = "cccccccc-0000-4000-8000-000000000001";
  const transcript = new ClaudeTranscriptBuilder({ sessionId: id });
  transcript.user("<system-reminder>injected context</system-reminder>");
  transcript.user("<ide_opened_file>hello.py</ide_opened_file>Fix the greeting please");
  transcript.assistant([{ text: "Done." }], { stop: "end_turn" });
  const projects = join(dir.path, "projects");
  await Deno.mkdir(join(projects, "-work-p"), { recursive: true });
  const path = join(projects, "-work-p", `${id}.jsonl`);
  await Deno.writeTextFile(path, transcript.text());
  const env = { CLAUDE_CONFIG_DIR: dir.path };
  const json = JSON.parse((await inspect(["--json", path], env)).stdout);
  assertEquals(json.session.firstPrompt, "Fix the greeting please");
  const html = (await inspect(["--html", "-", path], env)).stdout;
  assertMatch(html, /<title>Fix the greeting please · /);
  const listing = (await inspect(["--claude"], env)).stdout;
  assertMatch(listing, /cccccccc.*Fix the greeting please/);
});

Deno.test("cli: a Claude Code file is shown in the tool's words, without turnlog's bookkeeping", async () => {
  await using dir = await tempDir();
  const transcript = new ClaudeTranscriptBuilder({
    sessionId: "dddddddd-0000-4000-8000-000000000001",
  });
  transcript.user("List the files");
  transcript.assistant([{ text: "Here they are." }], { stop: "end_turn" });
  const path = join(dir.path, "dddddddd-0000-4000-8000-000000000001.jsonl");
  await Deno.writeTextFile(path, transcript.text());
  const text = (await inspect([path], {})).stdout;
  assertMatch(text, /━━ Turn 1 · turn \S+ · /);
  assertMatch(text, /\nMessages and calls per turn\n {2}turn +lines +message .*\n {2}1 /);
  for (const jargon of [" policy ", "ask-changes", " run ", "meta", "context", "finished"]) {
    assert(!text.includes(jargon), `${jargon} in:\n${text}`);
  }
  const html = (await inspect(["--html", "-", path], {})).stdout;
  assert(html.includes("Messages and calls per turn"), "the chart's title");
  for (const jargon of ["session meta", "turn context", "run finished", "ask-changes"]) {
    assert(!html.includes(jargon), jargon);
  }
});

for (const adapter of ADAPTERS) {
  Deno.test(`cli: ${adapter.tool}'s session, torn, is listed, found by a prefix, shown and its repair planned (writing nothing)`, async () => {
    await using dir = await tempDir();
    const session = await FIXTURES[adapter.name]!.write(dir.path);
    const text = await Deno.readTextFile(session.path);
    await Deno.writeTextFile(session.path, text.slice(0, text.trimEnd().length - 7));
    const before = await Deno.readFile(session.path);
    const env = { TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"), NO_COLOR: "1" };
    const at = ["--sessions-dir", session.root];
    const prefix = session.id.slice(0, 8);

    const listed = await inspect(at, env);
    assertEquals([listed.code, listed.stderr], [0, ""]);
    assert(
      listed.stdout.startsWith(`${adapter.shortTool} sessions in ${session.root}, newest first\n`),
      listed.stdout,
    );
    assertMatch(listed.stdout, new RegExp(`\n${prefix} `));

    const shown = await inspect([...at, prefix], env);
    assertEquals([shown.code, shown.stderr], [1, ""]);
    assert(shown.stdout.startsWith(`Session ${session.id}  `), shown.stdout);
    assert(shown.stdout.includes(`\n  format   ${adapter.fileNoun}`), shown.stdout);
    assertMatch(shown.stdout, /\n {2}torn_tail {2}\S+: torn last line/);
    assert(shown.stdout.includes(`  file     ${session.path}\n`), shown.stdout);
    assert(
      shown.stdout.includes(
        `Repair: add --repair to see what would change in this ${adapter.fileNoun}`,
      ),
      shown.stdout,
    );

    const json = await inspect([...at, prefix, "--json"], env);
    const report = InspectReportSchema.parse(JSON.parse(json.stdout));
    assertEquals([report.session.format, report.session.path], [adapter.name, session.path]);

    const dry = await inspect([...at, prefix, "--repair"], env);
    assertEquals([dry.code, dry.stderr], [1, ""]);
    assert(
      dry.stdout.startsWith(
        `Repair plan for ${session.path} (dry run: nothing changed; add --write to do it)\n` +
          (adapter.passesOverBadLines
            ? `Lines ${adapter.shortTool} passes over (it resumes the file as it is):\n`
            : `What ${adapter.shortTool} needs and the file lacks:\n`),
      ),
      dry.stdout,
    );
    assertMatch(dry.stdout, /\n {2}\d+\. move line \d+ \(torn_tail, \d+ bytes\) to the sidecar /);
    assertEquals(await Deno.readFile(session.path), before);
    assertEquals(await Deno.stat(`${session.path}.quarantine`).catch(() => null), null);
  });
}
