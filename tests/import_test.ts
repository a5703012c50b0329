import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { eventOf, fileRecords, harness, labels, pairedCallCount } from "./_runtime_helpers.ts";
import { ForeignSessionError } from "../src/formats/mod.ts";
import { importSession, locateForeignSession } from "../src/import/mod.ts";
import { inspectSession, renderReport } from "../src/inspect/mod.ts";
import { isUuidV7, SessionFileError } from "../src/record/mod.ts";
import { resumeForeignFile } from "../src/resume/mod.ts";
import { findSession, SessionNotFoundError } from "../src/store/mod.ts";
import { writeClaudeHome, writeCodexHome } from "../testing/formats/homes.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const cliPath = (name: string) => fileURLToPath(new URL(`../cli/${name}.ts`, import.meta.url));

/** The bytes and modification time of a file: what "never written" means. */
async function fingerprint(path: string) {
  const info = await Deno.stat(path);
  return { bytes: await Deno.readFile(path), mtime: info.mtime?.getTime() };
}

Deno.test("importSession() writes a new session of the active branch's history, normalized, and never writes the source", async () => {
  await using dir = await tempDir();
  const home = await writeClaudeHome(join(dir.path, "claude"));
  const before = await fingerprint(home.forks);
  const root = join(dir.path, "sessions");
  const imported = await importSession(home.forks, { root });
  assertEquals(await fingerprint(home.forks), before);
  assert(isUuidV7(imported.sessionId), imported.sessionId);
  assertEquals((await findSession(root, imported.sessionId)).path, imported.path);
  assertEquals(imported.source, {
    format: "claude-code",
    path: home.forks,
    sessionId: "5f0e1d2c-0000-4000-8000-000000000002",
  });
  assertEquals(
    [imported.items, imported.calls, imported.synthesized, imported.dropped, imported.problems],
    [11, 3, 1, 1, 0],
  );
  const records = await fileRecords(imported.path);
  const meta = records[0]!;
  assert(meta.type === "session_meta");
  assertEquals(meta.payload.importedFrom, imported.source);
  assertEquals(
    [meta.payload.id, meta.payload.model, meta.payload.wireApi, meta.payload.modelProvider],
    [imported.sessionId, "claude-sonnet-4-20250514", "chat", "anthropic"],
  );
  assertEquals(labels(records), [
    "session_meta",
    "turn_context",
    // The caveat, /clear and its output are left out: the prompt alone.
    "user",
    "assistant",
    "call:Write",
    "output:Write",
    "user",
    "user",
    "assistant",
    "call:Read",
    "output:Read",
    "call:Bash",
    "synthesized:Bash",
    "run_finished",
  ]);
  const shown = renderReport(await inspectSession(imported.path), { color: false });
  assertMatch(
    shown,
    new RegExp(
      `\n {2}imported from the Claude Code transcript ${home.forks} \\(session 5f0e1d2c-0000-4000-8000-000000000002\\)\n`,
    ),
  );
  // Exactly the history a resume of the source would send, but the caveat, /clear and its output.
  const { history } = await resumeForeignFile(home.forks, "claude-code");
  assertEquals(
    records.flatMap((r) => (r.type === "response_item" ? [r.payload] : [])),
    history.slice(3),
  );
});

for (const wireApi of ["responses", "chat"] as const) {
  Deno.test(`importSession() then a resume on the embedded model (${wireApi}) sends every call paired`, async () => {
    await using h = await harness();
    const codex = await writeCodexHome(join(h.workspace, "..", "codex"));
    const claude = await writeClaudeHome(join(h.workspace, "..", "claude"));
    const sources = [...codex.map((s) => s.path), claude.forks, claude.compaction, claude.session];
    for (const source of sources) {
      const before = await fingerprint(source);
      const imported = await importSession(source, { root: h.sessionsDir });
      const events = await h.turn("what did we do so far?", {
        sessionId: imported.sessionId,
        model: h.model.model,
        wireApi,
      });
      eventOf(events, "run_succeeded");
      const sent = h.sent.at(-1)!;
      assertEquals(pairedCallCount(sent), imported.calls, source);
      assertEquals(Array.isArray(sent.input), wireApi === "responses");
      assertEquals(await fingerprint(source), before, `${source} was written`);
    }
  });
}

Deno.test("importSession() refuses a turnlog session, a file of no known format and a file without a conversation", async () => {
  await using dir = await tempDir();
  const claude = await writeClaudeHome(join(dir.path, "claude"));
  const root = join(dir.path, "sessions");
  const first = await importSession(claude.session, { root });
  const again = await assertRejects(() => importSession(first.path, { root }), ForeignSessionError);
  assertMatch(again.message, /is a turnlog session already: continue it with resume/);
  const other = join(dir.path, "notes.jsonl");
  await Deno.writeTextFile(other, '{"hello":"world"}\n');
  const unknown = await assertRejects(() => importSession(other, { root }), ForeignSessionError);
  assertEquals(
    unknown.message,
    `${other}: not a session file: line 1 is a JSON object without a "type" ("{\\"hello\\":\\"world\\"}"...)`,
  );
  for (const [path, state] of [[claude.empty, "empty"], [claude.metadataOnly, "metadata-only"]]) {
    const error = await assertRejects(() => importSession(path!, { root }), SessionFileError);
    assertEquals(error.message, `${path}: no conversation to resume (${state} file)`);
  }
});

Deno.test("locateForeignSession() finds an id in the home a flag names, else in both homes", async () => {
  await using dir = await tempDir();
  const codex = await writeCodexHome(join(dir.path, "codex"));
  const claude = await writeClaudeHome(join(dir.path, "claude"));
  const env = {
    get: (name: string) =>
      ({ CODEX_HOME: join(dir.path, "codex"), CLAUDE_CONFIG_DIR: join(dir.path, "claude") })[
        name as "CODEX_HOME"
      ],
  };
  assertEquals((await locateForeignSession("019c8a70", { env })).path, codex[1]!.path);
  assertEquals((await locateForeignSession("5f0e", { env })).path, claude.forks);
  assertEquals(
    (await locateForeignSession("7acd37a8", { env, home: "claude-code" })).source.format,
    "claude-code",
  );
  assertEquals(
    (await locateForeignSession("019c8bfe", { sessionsDir: join(dir.path, "codex") })).path,
    codex[2]!.path,
  );
  await assertRejects(
    () => locateForeignSession("7acd37a8", { env, home: "codex" }),
    SessionNotFoundError,
  );
  const none = await assertRejects(
    () => locateForeignSession("7acd", { sessionsDir: dir.path }),
    Error,
  );
  assertMatch(none.message, /^No Codex, Claude Code or Gemini sessions in /);
});

async function run(script: string, args: string[], env: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--config=${CONFIG}`, "-A", cliPath(script), ...args],
    env: { NO_COLOR: "1", OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("cli/import.ts imports by id from the Codex home, prints the resume command, which runs", async () => {
  await using dir = await tempDir();
  const codex = await writeCodexHome(join(dir.path, "codex"));
  const sessions = join(dir.path, "sessions");
  const env = { CODEX_HOME: join(dir.path, "codex"), TURNLOG_SESSIONS_DIR: sessions };
  const before = await fingerprint(codex[1]!.path);
  const ran = await run("import", ["--codex", "019c8a70"], env);
  assertEquals(ran.code, 0, ran.stderr);
  assertMatch(ran.stdout, new RegExp(`^Imported the Codex CLI rollout ${codex[1]!.path}\n`));
  assertMatch(
    ran.stdout,
    /\n {2}session 019c8a70-dda7-7f33-98ea-f30553347322: 14 history items, 3 tool calls, 2 outputs synthesized\n/,
  );
  const command = /\nContinue it: \.\/denow task resume --session (\S+) "<your message>"\n$/.exec(
    ran.stdout,
  );
  assert(command, ran.stdout);
  const resumed = await run(
    "resume",
    ["--session", command[1]!, "--workspace", dir.path, "what happened?"],
    env,
  );
  assertEquals(resumed.code, 0, resumed.stdout + resumed.stderr);
  assertMatch(resumed.stdout, /Resuming session /);
  assertEquals(await fingerprint(codex[1]!.path), before);
});

Deno.test("cli/import.ts names each line it passed over, path:line and what is wrong", async () => {
  await using dir = await tempDir();
  const b = new ClaudeTranscriptBuilder({ sessionId: "7acd37a8-0000-4000-8000-0000000000b1" });
  b.assistant([{ text: "Hello." }], { parent: b.user("hello"), stop: "end_turn" });
  const [first, ...rest] = b.text().split("\n");
  const path = join(dir.path, "7acd37a8-0000-4000-8000-0000000000b1.jsonl");
  await Deno.writeTextFile(path, [first, "not json", ...rest].join("\n"));
  const ran = await run("import", [path], { TURNLOG_SESSIONS_DIR: join(dir.path, "sessions") });
  assertEquals(ran.code, 0, ran.stderr);
  assertMatch(ran.stdout, /, 1 bad line passed over\n/);
  assertMatch(ran.stdout, new RegExp(`\nPassed over ${path}:2: not valid JSON \\(`));
});

Deno.test("cli/import.ts: usage errors and files it cannot import exit 2, saying why and what to do", async () => {
  await using dir = await tempDir();
  const claude = await writeClaudeHome(join(dir.path, "claude"));
  const env = { TURNLOG_SESSIONS_DIR: join(dir.path, "sessions") };
  const cases: [string[], RegExp][] = [
    [
      [],
      /^turnlog import: Name the session to import: a file path, an id or an id prefix\nRun \.\/denow task import --help for the options\.\n$/,
    ],
    [["--codex", "--claude", "x"], /^turnlog import: --codex and --claude do not go together\n/],
    [
      [claude.empty],
      /^turnlog import: (\S+): no conversation to resume \(empty file\)\nLook at it: \.\/denow task inspect \1\n$/,
    ],
    [
      ["--claude", "ffffffff"],
      /^turnlog import: Session not found: no session with id or prefix "ffffffff" in /,
    ],
    [
      [dir.path],
      /^turnlog import: Not a session file: \S+ is a directory or another special file\n/,
    ],
  ];
  for (const [args, expected] of cases) {
    const ran = await run("import", args, { ...env, CLAUDE_CONFIG_DIR: join(dir.path, "claude") });
    assertEquals(ran.code, 2, `${args.join(" ")}: ${ran.stderr}`);
    assertMatch(ran.stderr, expected);
    assert(!/\n\s+at /.test(ran.stderr), "no stack trace");
  }
});

Deno.test("an imported session that ran without asking resumes under the default policy, saying so and where its tools work", async () => {
  await using dir = await tempDir();
  const workspace = join(dir.path, "checkout");
  await Deno.mkdir(workspace);
  const rollout = join(dir.path, "rollout-2026-02-23T12-00-00-019c8a4c.jsonl");
  await Deno.writeTextFile(
    rollout,
    new CodexRolloutBuilder().meta({ cwd: "/nonexistent/elsewhere" })
      .turnContext({ approval: "never", cwd: "/nonexistent/elsewhere" })
      .prompt("hello").answer("Hi.").text(),
  );
  const sessions = join(dir.path, "sessions");
  const env = { TURNLOG_SESSIONS_DIR: sessions };
  assertEquals((await run("import", [rollout], env)).code, 0);
  const resume = (policy: string[]) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        `--config=${CONFIG}`,
        "-A",
        cliPath("resume"),
        "--last",
        ...policy,
        "write hello to probe.md",
      ],
      env: { NO_COLOR: "1", OPENAI_API_KEY: "", OPENAI_BASE_URL: "", ...env },
      cwd: workspace,
      stdin: "null",
    }).output().then((o) => new TextDecoder().decode(o.stdout));
  const asked = await resume([]);
  assertMatch(
    asked,
    new RegExp(
      `\nworkspace ${workspace} \\(its tools work here; the session was recorded in /nonexistent/elsewhere\\): ` +
        "the current folder: the recorded /nonexistent/elsewhere came from another tool's file, so " +
        "the tools work there only when --workspace names it\n" +
        "Policy ask-changes, not the recorded auto: the session was imported from another tool's file ",
    ),
  );
  assertMatch(asked, /write_file needs approval/);
  assertEquals(await Deno.stat(join(workspace, "probe.md")).then(() => true, () => false), false);
  // Said on this run, the looser policy applies.
  const told = await resume(["--policy", "auto"]);
  assert(!told.includes("not the recorded"), told);
  assertEquals(await Deno.readTextFile(join(workspace, "probe.md")), "hello");
});
