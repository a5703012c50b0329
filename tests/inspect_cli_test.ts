import { InspectReportSchema, SessionListingSchema } from "../src/inspect/schemas.ts";
import { needing } from "./_needs.ts";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { RUN_BASE, tempDir } from "./_helpers.ts";
import { joinLines, makeStory, replaceLine, splitLines } from "./_inspect_fixtures.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";
import { inspect, type Ran } from "./_cli.ts";
import { join } from "node:path";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

const CLI = new URL("../cli/inspect.ts", import.meta.url).pathname;

/** No stack trace: neither an `at file:` frame nor an uncaught error. */
function assertNoStackTrace(ran: Ran): void {
  const all = ran.stdout + ran.stderr;
  assert(!/\n\s+at .*(file|ext):/.test(all) && !/Uncaught/.test(all), all);
}

Deno.test("cli: a healthy session by prefix shows its turns and the continue command, exit 0", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const ran = await inspect(["--sessions-dir", dir.path, story.sessionId.slice(0, 10)]);
  assertEquals(ran.code, 0, ran.stderr);
  assertMatch(ran.stdout, new RegExp(`^Session ${story.sessionId}  healthy\n`));
  assertMatch(ran.stdout, /━━ Turn 2 · .* · resumed · lines 9-13\n/);
  assertMatch(ran.stdout, /Records per turn\n/);
  assertMatch(
    ran.stdout,
    /Continue this session:\n {2}\.\/denow task resume --sessions-dir \S+ --session [0-9a-f-]{8,} "<your message>"\n/,
  );
  assert(!ran.stdout.includes("\x1b["), "no colours on a pipe");
  assertEquals(ran.stderr, "");
});

Deno.test("cli: --json prints one document valid under its schema", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const ran = await inspect(["--json", story.path]);
  assertEquals(ran.code, 0, ran.stderr);
  const parsed = InspectReportSchema.parse(JSON.parse(ran.stdout));
  assertEquals(parsed.turns.map((t) => t.index), [1, 2, 3]);
  assertEquals(parsed.synthesizedOutputs.map((s) => s.callId), ["c3"]);
  assertEquals(parsed.checkpoints.length, 1);
  // Per-line entries only when asked: the document stays small for a large session.
  assertEquals(parsed.turns.filter((t) => t.entries !== undefined), []);
  assertEquals(parsed.header.entries, undefined);
  const full = await inspect(["--json", "--entries", story.path]);
  assertEquals(full.code, 0, full.stderr);
  const withEntries = InspectReportSchema.parse(JSON.parse(full.stdout));
  // Every line of a turn but its turn_context.
  assertEquals(
    withEntries.turns.map((t) => t.entries?.length),
    withEntries.turns.map((t) => t.counts.total - 1),
  );
  assertEquals(withEntries.header.entries?.map((e) => e.kind), []);
  const c3 = withEntries.turns[1]!.entries!.find((e) =>
    e.kind === "function_call" && e.callId === "c3"
  );
  assertEquals(c3?.kind === "function_call" && c3.orphan, false);
  assertEquals(
    { ...withEntries, turns: withEntries.turns.map(({ entries: _, ...t }) => t), header: {} },
    { ...parsed, header: {} },
  );
});

Deno.test("cli: broken files exit 1 with path:line problems and never a stack trace", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const good = await Deno.readFile(story.path);
  const lines = splitLines(good);
  const noise = new Uint8Array(2048).map((_, i) => (i * 131 + 7) % 256);
  const cases: [string, Uint8Array, RegExp][] = [
    [
      "torn",
      joinLines([...lines, new TextEncoder().encode('{"time')], { tornTail: true }),
      /:14: torn last line/,
    ],
    ["corrupt", joinLines(replaceLine(lines, 4, "{oops")), /:4: not valid JSON/],
    ["orphan", good, /line 13 \(turn 2\): c3 \(write_file\): resume would synthesize an output/],
    ["empty", new Uint8Array(), /:1: empty session file/],
    ["binary", noise, /binary\.jsonl:1: /],
    ["nul", joinLines([...lines, new Uint8Array(100)], { tornTail: true }), /:14: torn last line/],
  ];
  for (const [name, bytes, expected] of cases) {
    const path = `${dir.path}/${name}.jsonl`;
    await Deno.writeFile(path, bytes);
    const ran = await inspect([path]);
    assertEquals(ran.code, 1, `${name}: ${ran.stderr}`);
    assertMatch(ran.stdout, expected, name);
    assertNoStackTrace(ran);
    const json = await inspect(["--json", path]);
    assertEquals(json.code, 1, name);
    assertEquals(InspectReportSchema.parse(JSON.parse(json.stdout)).healthy, false);
    assertEquals(await Deno.readFile(path), bytes, `${name}: inspecting changed the file`);
  }
});

Deno.test("cli: usage errors and unknown sessions exit 2 with a clear message", async () => {
  await using dir = await tempDir();
  const a = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "one" });
  a.writer.close();
  const b = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "two" });
  b.writer.close();
  const common = a.sessionId.slice(0, [...a.sessionId].findIndex((c, i) => c !== b.sessionId[i]));
  const cases: [string[], RegExp][] = [
    [
      ["--sessions-dir", dir.path, "0123abcd"],
      /Session not found: no session with id or prefix "0123abcd"/,
    ],
    [
      ["--sessions-dir", dir.path, common],
      new RegExp(`Ambiguous session id "${common}": it matches 2 sessions:\n  ${b.sessionId}`),
    ],
    [["--sessions-dir", dir.path, "a.b"], /Invalid session id "a\.b"/],
    [[`${dir.path}/missing.jsonl`], /No such session file: .*missing\.jsonl/],
    [[dir.path + "/"], /Not a session file: .* is a directory/],
    [
      ["--bogus"],
      /Unknown option '--bogus'\nRun \.\/denow task inspect --help for the options\.\n$/,
    ],
    [["--write", a.location.path], /--write only goes with --repair/],
    [["--entries", a.location.path], /--entries only goes with --json, without --repair/],
    [["--json", "--repair", "--entries", a.location.path], /--entries only goes with --json/],
    [["--repair"], /--repair needs a session/],
    [["--limit", "0"], /Invalid --limit "0": expected a whole number above 0/],
    [["x", "y"], /Expected one session, got 2/],
  ];
  for (const [args, expected] of cases) {
    const ran = await inspect(args);
    assertEquals(ran.code, 2, `${args.join(" ")}: ${ran.stdout}${ran.stderr}`);
    assertMatch(ran.stderr, expected);
    assertMatch(ran.stderr, /^turnlog inspect: /);
    assertNoStackTrace(ran);
  }
  const help = await inspect(["--help"]);
  assertEquals(help.code, 0);
  assertMatch(help.stdout, /^Usage: \.\/denow task inspect/);
  const repairHelp = await inspect(["--repair", "--help"]);
  assertEquals(repairHelp.code, 0);
  assertMatch(repairHelp.stdout, /^Usage: \.\/denow task repair \[--write\] <id/);
});

Deno.test("cli: without an argument it lists the sessions of TURNLOG_SESSIONS_DIR, newest first", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const newer = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    message: "the newest one",
  });
  newer.writer.close();
  const ran = await inspect([], { TURNLOG_SESSIONS_DIR: dir.path });
  assertEquals(ran.code, 0, ran.stderr);
  const rows = ran.stdout.split("\n").filter((line) => /^[0-9a-f]{8}[0-9a-f-]* +\d{4}-/.test(line));
  assertEquals(rows.length, 2);
  const [newPrefix, oldPrefix] = rows.map((row) => row.split(" ")[0]!);
  assert(
    newer.sessionId.startsWith(newPrefix!) && story.sessionId.startsWith(oldPrefix!),
    rows.join("\n"),
  );
  assertMatch(rows[0]!, / 1 +4 {2}the newest one$/);
  assertMatch(rows[1]!, / 3 +21 {2}List the files/);
  // Each shown prefix finds its session: it is what `inspect <prefix>` takes.
  const shown = await inspect(["--sessions-dir", dir.path, oldPrefix!]);
  assertMatch(shown.stdout, new RegExp(`^Session ${story.sessionId} `));
  const limited = await inspect(["--list", "--limit", "1", "--json", "--sessions-dir", dir.path]);
  const listing = SessionListingSchema.parse(JSON.parse(limited.stdout));
  assertEquals([listing.sessions.map((s) => s.id), listing.more], [[newer.sessionId], true]);
});

Deno.test("cli: --repair is a dry run (exit 1), --repair --write fixes (exit 0), again finds nothing", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const lines = splitLines(await Deno.readFile(story.path));
  const broken = joinLines(replaceLine(lines, 4, "{oops"));
  await Deno.writeFile(story.path, broken);
  const prefix = story.sessionId.slice(0, 13);

  const dry = await inspect(["--sessions-dir", dir.path, "--repair", prefix]);
  assertEquals(dry.code, 1, dry.stderr);
  assertMatch(dry.stdout, /dry run: nothing changed/);
  assertEquals(await Deno.readFile(story.path), broken);

  const write = await inspect(["--sessions-dir", dir.path, "--repair", "--write", prefix]);
  assertEquals(write.code, 0, write.stdout + write.stderr);
  assertMatch(write.stdout, /^Repaired /);
  assertMatch(write.stdout, /moved line 4 \(malformed_json, 5 bytes\)/);
  assertMatch(write.stdout, /appended 1 synthesized output/);
  assertMatch(write.stdout, /The session is healthy now/);

  const again = await inspect(["--sessions-dir", dir.path, "--repair", "--write", prefix]);
  assertEquals(again.code, 0);
  assertMatch(again.stdout, /^Nothing to repair in /);
  const after = await inspect(["--sessions-dir", dir.path, prefix]);
  assertEquals(after.code, 0);
});

const hasScript = await Deno.stat("/usr/bin/script").then(() => true, () => false);

Deno.test({
  ...needing(
    "cli: colours on a terminal, none with NO_COLOR (run under script(1) for a tty)",
    hasScript ? undefined : "no script(1) at /usr/bin/script (apt-get install bsdutils)",
  ),
  async fn() {
    await using dir = await tempDir();
    await makeStory(dir.path);
    const onTty = async (noColor: string) => {
      const command = `'${Deno.execPath()}' run -A '${CLI}' --sessions-dir '${dir.path}'`;
      const { stdout } = await new Deno.Command("/usr/bin/script", {
        args: ["-qc", command, "/dev/null"],
        env: { NO_COLOR: noColor },
        stdout: "piped",
        stderr: "piped",
      }).output();
      return new TextDecoder().decode(stdout);
    };
    const coloured = await onTty("");
    assert(coloured.startsWith("\x1b[1mSessions in "), coloured);
    const plain = await onTty("1");
    assertMatch(plain, /^Sessions in /);
    assert(!plain.includes("\x1b["), plain);
  },
});

Deno.test("cli: --full shows whole texts, without the shortening note", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const short = await inspect([story.path]);
  assertMatch(short.stdout, /… \(\+\d+ chars\)/);
  const full = await inspect(["--full", story.path]);
  assertEquals(full.code, 0);
  assert(!/… \(\+\d+ chars\)/.test(full.stdout));
  assert(full.stdout.includes("x".repeat(900)));
});

Deno.test("cli: a session path that is a symlink loop is a not-found error, exit 2, one line and a hint", async () => {
  await using dir = await tempDir();
  const a = `${dir.path}/a.jsonl`;
  await Deno.symlink(`${dir.path}/b.jsonl`, a);
  await Deno.symlink(a, `${dir.path}/b.jsonl`);
  for (const args of [[a], [a, "--repair", "--write"], ["--list", "--sessions-dir", a]]) {
    const ran = await inspect(args, { NO_COLOR: "1" });
    assertEquals(ran.code, 2, `${args}: ${ran.stderr}`);
    assertMatch(ran.stderr, /^turnlog inspect: .*symbolic links.*\nList the sessions: /);
    assertNoStackTrace(ran);
  }
});

/** Three sessions of the story in one root; the path of the middle one. */
async function threeSessions(root: string): Promise<string> {
  const paths = [];
  for (let i = 0; i < 3; i++) paths.push((await makeStory(root)).path);
  return paths[1]!;
}

Deno.test("cli: --list with one session file it may not read lists the others and says which, exit 0", async () => {
  await using dir = await tempDir();
  const denied = await threeSessions(dir.path);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `--deny-read=${denied}`, CLI, "--list", "--sessions-dir", dir.path],
    env: { NO_COLOR: "1" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  const rows = stdout.split("\n").filter((line) => /^[0-9a-f]{8}/.test(line));
  assertEquals(rows.length, 3, stdout);
  assertEquals(
    rows.filter((row) => row.includes("(cannot read the file: permission denied)")).length,
    1,
  );
});

Deno.test({
  // Root reads a file of mode 000, so the file this test needs unreadable is not: as root it is
  // ignored, its name saying so, rather than passing without a check.
  ...needing(
    "cli: --list with a session file of mode 000 lists the others and says which, exit 0",
    Deno.uid() === 0 ? "a user other than root (root reads a file of mode 000)" : undefined,
  ),
  async fn() {
    await using dir = await tempDir();
    const denied = await threeSessions(dir.path);
    await Deno.chmod(denied, 0o000);
    const ran = await inspect(["--list", "--sessions-dir", dir.path, "--json"]);
    assertEquals(ran.code, 0, ran.stderr);
    const listing = SessionListingSchema.parse(JSON.parse(ran.stdout));
    assertEquals(listing.sessions.map((s) => s.unreadable ?? "read"), [
      "read",
      "permission denied",
      "read",
    ]);
  },
});

Deno.test("cli: a session two files hold (restored for another project beside its original) is named with both paths, and either path inspects", async () => {
  await using dir = await tempDir();
  const id = "7acd37a8-0000-4000-8000-0000000000c1";
  const b = new ClaudeTranscriptBuilder({ sessionId: id });
  b.assistant([{ text: "Hello." }], { parent: b.user("hello"), stop: "end_turn" });
  const paths = ["-work-app", "-work-moved"].map((project) =>
    join(dir.path, "projects", project, `${id}.jsonl`)
  );
  for (const path of paths) {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, b.text());
  }
  const ran = await inspect(["--claude", id.slice(0, 8)], { CLAUDE_CONFIG_DIR: dir.path });
  assertEquals([ran.code, ran.stdout], [2, ""]);
  assertEquals(
    ran.stderr,
    `turnlog inspect: Session ${id} is in 2 files:\n${paths.map((p) => `  ${p}\n`).join("")}` +
      "Give the path of the one you mean (listed above) in place of the id.\n",
  );
  for (const path of paths) {
    const one = await inspect([path]);
    assertEquals(one.code, 0, one.stderr);
    assert(one.stdout.includes(`  file     ${path}\n`), one.stdout);
  }
});

Deno.test("cli: an id turnlog's store does not have is looked for in the tools' homes, as export and import look", async () => {
  await using dir = await tempDir();
  const id = "7acd37a8-0000-4000-8000-0000000000c2";
  const b = new ClaudeTranscriptBuilder({ sessionId: id });
  b.assistant([{ text: "Hello." }], { parent: b.user("hello"), stop: "end_turn" });
  const path = join(dir.path, "claude", "projects", "-work-app", `${id}.jsonl`);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, b.text());
  const env = {
    HOME: join(dir.path, "home"),
    CLAUDE_CONFIG_DIR: join(dir.path, "claude"),
    TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"),
    // HOME moves; Deno's cache stays where it is.
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno"),
  };
  const found = await inspect([id.slice(0, 8)], env);
  assertEquals(found.code, 0, found.stderr);
  assertMatch(found.stdout, new RegExp(`^Session ${id} {2}healthy\n`));
  assert(found.stdout.includes(`  file     ${path}\n`), found.stdout);
  const missing = await inspect(["0123abcd"], env);
  assertEquals(missing.code, 2);
  assertEquals(
    missing.stderr.split("\n")[0],
    'turnlog inspect: Session not found: no session with id or prefix "0123abcd" in ' +
      `${env.TURNLOG_SESSIONS_DIR}, nor in Codex's, Claude Code's or Gemini's homes`,
  );
});
