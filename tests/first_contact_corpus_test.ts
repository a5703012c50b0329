/**
 * What a new user trips on first (issue 40), on real files of the shared corpus: titles, what
 * import carries, whether a turn finished, order, hints and search marks.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import {
  assistant,
  call,
  finished,
  itemRecords,
  output,
  RUN_BASE,
  tempDir,
  user,
} from "./_helpers.ts";
import { makeRecord } from "../src/record/mod.ts";
import { createSession } from "../src/store/mod.ts";
import { cli, inspect } from "./_cli.ts";
import { CORPUS, CORPUS_MISSING } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { CODEX_SESSION_ID, CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import { importSession } from "../src/import/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { collectRecords } from "../src/history/mod.ts";
import { claudeCodeAdapter } from "../src/formats/claude_code/mod.ts";
import { createSessionBrowserHandler } from "../src/server/mod.ts";
import { searchSessions } from "../src/search/mod.ts";
import { geminiToolSession } from "../testing/formats/gemini_builder.ts";
import { attributes, parsePage, texts } from "./_html_helpers.ts";

const PROJECTS = join(CORPUS, "claude", "projects");
const SAMPLE = join(PROJECTS, "-Users-dain-workspace-claude-code-log-sample");
const SOUND = join(PROJECTS, "-Users-dain-workspace-JSSoundRecorder");

/** A Claude Code home whose projects are the corpus's (linked, not copied). */
async function claudeHome(dir: string): Promise<Record<string, string>> {
  const home = join(dir, "claude");
  await Deno.mkdir(home);
  await Deno.symlink(PROJECTS, join(home, "projects"));
  return { CLAUDE_CONFIG_DIR: home };
}

Deno.test({
  ...needing(
    "listClaudeSessions() titles a session started with /clear or /init by the first prompt a person typed",
    CORPUS_MISSING,
  ),
  fn: async () => {
    await using dir = await tempDir();
    const listed = await inspect(["--claude", "--list"], await claudeHome(dir.path));
    assertEquals(listed.code, 0, listed.stderr);
    const row = (id: string) => listed.stdout.split("\n").find((line) => line.startsWith(id));
    assert(
      row("aa5c5ada")!.includes("  Can you please add tests for the new cache"),
      row("aa5c5ada"),
    );
    assert(row("7acd37a8")!.includes("  OK, so this was just so you know"), row("7acd37a8"));
    assert(!/ \/(clear|init)$/m.test(listed.stdout), listed.stdout);
    const header = await inspect([join(SOUND, "7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl")]);
    assertEquals(
      header.stdout.split("\n")[2],
      "  prompt   OK, so this was just so you know what there is now, but after more than a decade I want to pick it …",
    );
  },
});

Deno.test({
  ...needing(
    "importSession() leaves Claude Code's local commands, their output and caveat out of the history",
    CORPUS_MISSING,
  ),
  fn: async () => {
    await using dir = await tempDir();
    const source = join(SAMPLE, "aa5c5ada-4f1e-4b7f-9d1f-c496b3badde5.jsonl");
    const imported = await importSession(source, { root: join(dir.path, "sessions") });
    const users: string[] = [];
    for (const record of (await collectRecords(imported.path)).records) {
      if (record.type !== "response_item") continue;
      const item = record.payload;
      if (item.type === "message" && item.role === "user") users.push(item.content);
    }
    assertEquals(
      users[0]?.trimEnd(),
      "Can you please add tests for the new cache version compatibility check? See _is_cache_version_compatible in @claude_code_log/cache.py",
    );
    assert(
      !users.some((text) => /<command-name>|<local-command-stdout>|^Caveat: /.test(text)),
      users.join("\n"),
    );
  },
});

Deno.test("cli/inspect.ts hints at the listing of the home the failed lookup searched", async () => {
  await using dir = await tempDir();
  const env = { CODEX_HOME: dir.path };
  const codex = await inspect(["--codex", "019c8a4c"], env);
  assertEquals(codex.code, 2);
  assertEquals(
    codex.stderr.split("\n")[1],
    "List the sessions: ./denow task inspect --codex --list",
  );
  const folder = await inspect(["--sessions-dir", dir.path, "019c8a4c"], env);
  assertEquals(
    folder.stderr.split("\n")[1],
    `List the sessions: ./denow task inspect --sessions-dir ${dir.path} --list`,
  );
});

Deno.test("scripts/postgres.ts says which port is busy and how to pick another, before starting anything", async () => {
  await using dir = await tempDir();
  using busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = busy.addr.port;
  const script = new URL("../scripts/postgres.ts", import.meta.url);
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      `--config=${new URL("../deno.json", import.meta.url).pathname}`,
      "-P=postgres",
      script.pathname,
      "--port",
      String(port),
      "--data",
      join(dir.path, "pg"),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = new TextDecoder().decode(output.stderr).split("\n");
  assertEquals(output.code, 1);
  assertEquals(
    lines[0],
    `turnlog postgres: Port ${port} on 127.0.0.1 is in use by another program`,
  );
  assert(/^Pick another port: \.\/denow task postgres --port \d+$/.test(lines[1]!), lines[1]);
  assertEquals(await Deno.stat(join(dir.path, "pg")).then(() => true, () => false), false);
});

Deno.test({
  ...needing(
    "createSessionBrowserHandler() lists a session that names no time last, not its project first",
    CORPUS_MISSING,
  ),
  fn: async () => {
    await using dir = await tempDir();
    const projects = join(dir.path, "projects");
    const copy = async (project: string, from: string) => {
      await Deno.mkdir(join(projects, project), { recursive: true });
      await Deno.copyFile(from, join(projects, project, from.split("/").at(-1)!));
    };
    await copy("-old", join(SAMPLE, "aa5c5ada-4f1e-4b7f-9d1f-c496b3badde5.jsonl"));
    await copy(
      "-new",
      join(PROJECTS, "-src-experiments-claude_p", "94604a7b-062f-4369-bdf0-da948381c3e5.jsonl"),
    );
    // A file of a title line only, written last: the newest file, no time of its own.
    await copy("-old", join(SAMPLE, "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl"));
    const handler = createSessionBrowserHandler({
      sessionsDir: join(dir.path, "sessions"),
      homes: [{ adapter: claudeCodeAdapter, root: projects }],
    });
    const page = parsePage(await (await handler(new Request("http://127.0.0.1/"))).text());
    assertEquals(attributes(page, "section.project", "data-project"), ["-new", "-old"]);
  },
});

Deno.test("cli/resume.ts continues a shipped example as a copy in the example's workspace, the example unchanged", async () => {
  await using dir = await tempDir();
  const shipped = new URL("../sessions/", import.meta.url).pathname;
  const sessions = join(dir.path, "sessions");
  await Deno.mkdir(sessions);
  for (const name of ["examples.json", "2026"]) {
    await new Deno.Command("cp", { args: ["-r", join(shipped, name), sessions] }).output();
  }
  const example = join(
    sessions,
    "2026/01/15/2026-01-15T10-00-00-000Z-019bc119-0100-71c1-a5dc-3be5a78913d8.jsonl",
  );
  const before = await Deno.readFile(example);
  // A recorded workspace is trusted inside the home only: the home is the test's folder.
  const env = {
    HOME: dir.path,
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno"),
  };
  const ran = await cli(
    ["--sessions-dir", sessions, "--session", "019bc119", "read notes.txt"],
    dir.path,
    env,
  );
  assertEquals(ran.code, 0, ran.stderr);
  const said =
    /^Session 019bc119-0100-71c1-a5dc-3be5a78913d8 is an example shipped with turnlog: continued as a copy, session ([0-9a-f-]{36}); the example is unchanged$/m
      .exec(ran.stdout);
  assert(said, ran.stdout);
  assert(ran.stdout.includes(`workspace ${join(sessions, "examples-workspace")}`), ran.stdout);
  assert(ran.stdout.includes("read_file(notes.txt) returned 2 lines"), ran.stdout);
  assertEquals(await Deno.readFile(example), before);
  // The copy is the user's own: continued in place, in the same workspace.
  const again = await cli(
    ["--sessions-dir", sessions, "--session", said[1]!, "read notes.txt"],
    dir.path,
    env,
  );
  assertEquals(again.code, 0, again.stderr);
  assert(!again.stdout.includes("is an example"), again.stdout);
  assert(again.stdout.includes("read_file(notes.txt) returned 2 lines"), again.stdout);
});

Deno.test({
  ...needing("cli/search.ts marks a match in bold text once, never as ****x****", CORPUS_MISSING),
  fn: async () => {
    await using dir = await tempDir();
    const script = new URL("../cli/search.ts", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, "--claude", "--limit", "1", "AudioWorklet"],
      env: { ...(await claudeHome(dir.path)), NO_COLOR: "1" },
    }).output();
    const text = new TextDecoder().decode(output.stdout);
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
    assert(text.includes("1. **ScriptProcessor → AudioWorklet** (deprecated API)"), text);
    assert(text.includes("in favour of **AudioWorklet**. However"), text);
    assert(!text.includes("****"), text);
  },
});

Deno.test("inspectSession() shows a Codex apply_patch output as its text, not its JSON", async () => {
  await using dir = await tempDir();
  const patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n-old\n+new\n*** End Patch\n";
  const result = "Success. Updated the following files:\nM a.ts\n";
  const rollout = new CodexRolloutBuilder().meta().taskStarted("t1").prompt("Fix a.ts")
    .customCall("call_P", patch)
    .customOutput("call_P", JSON.stringify({ output: result, metadata: { exit_code: 0 } }))
    .answer("Fixed.").taskComplete("t1");
  const path = join(dir.path, `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, rollout.text());
  const shown = await inspect([path]);
  assertEquals(shown.code, 0, shown.stderr);
  const output = shown.stdout.split("\n").findIndex((line) => line.includes("↳ output"));
  assert(output > 0, shown.stdout);
  assert(shown.stdout.split("\n")[output]!.endsWith("Success. Updated the following files:"));
  assert(!shown.stdout.includes('{"output"'), shown.stdout);
  assert(!shown.stdout.includes("\\n"), shown.stdout);
});

Deno.test({
  ...needing(
    "verdictOf() is said in the same words by the text view, --json and the page of a Claude Code file of metadata lines only",
    CORPUS_MISSING,
  ),
  fn: async () => {
    await using dir = await tempDir();
    const path = join(SAMPLE, "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl");
    const words = "no conversation: only the session's metadata lines";
    const text = await inspect([path]);
    assertEquals(
      text.stdout.split("\n")[0],
      `Session 4e27c414-a885-46a0-b5c8-d58e1417377d  ${words}`,
    );
    const json = JSON.parse((await inspect([path, "--json"])).stdout);
    assertEquals([json.healthy, json.verdict], [true, words]);
    const html = join(dir.path, "page.html");
    assertEquals((await inspect([path, "--html", html])).code, 0);
    const page = parsePage(await Deno.readTextFile(html));
    assertEquals(texts(page, ".badge"), [words]);
    assertEquals(texts(page, "#findings p"), [
      "No conversation: only the session's metadata lines.",
    ]);
  },
});

Deno.test("cli/inspect.ts --history prints a repeated call id as the runtime sends it, <id>~2", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "sessions");
  const created = await createSession(root, { ...RUN_BASE, policy: { approval: "auto" } });
  const runId = created.meta.id;
  await created.writer.append([
    makeRecord("turn_context", {
      runId,
      model: "scripted",
      wireApi: "responses",
      policy: { approval: "auto" },
      resumed: false,
    }),
    ...itemRecords([user("read a"), call("c1"), output("c1"), assistant("a")]),
    ...itemRecords([user("again"), call("c1"), output("c1"), assistant("a again")]),
    finished(runId),
  ]);
  await created.writer.close();
  const shown = await inspect(["--history", created.location.path]);
  assertEquals(shown.code, 0, shown.stderr);
  const ids = shown.stdout.trim().split("\n").map((line) => JSON.parse(line).callId)
    .filter((id) => id !== undefined);
  assertEquals(ids, ["c1", "c1", "c1~2", "c1~2"]);
});

Deno.test({
  ...needing(
    "createSessionBrowserHandler() opens a subagent's transcript as a page of its own, linked from where it was started",
    CORPUS_MISSING,
  ),
  fn: async () => {
    await using dir = await tempDir();
    const handler = createSessionBrowserHandler({
      sessionsDir: join(dir.path, "sessions"),
      homes: [{ adapter: claudeCodeAdapter, root: PROJECTS }],
    });
    const get = (path: string) => handler(new Request(`http://127.0.0.1${path}`));
    const parent = "/sessions/29ccd257-68b1-427f-ae5f-6524b7cb6f20";
    const page = parsePage(await (await get(parent)).text());
    const [href] = attributes(page, '[data-subagent="a2271d1"] a', "href");
    assertEquals(href, `${parent}/subagents/a2271d1`);
    const opened = await get(href!);
    assertEquals(opened.status, 200);
    const sub = parsePage(await opened.text());
    const report = await inspectSession(
      join(
        PROJECTS,
        "-src-experiments-claude_p/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl",
      ),
    );
    assert(report.turns.length > 0);
    assert(
      (texts(sub, "body")[0] ?? "").includes("Give me a comprehensive overview"),
      "the subagent's prompt",
    );
    assertEquals(attributes(sub, `a[href="${parent}"]`, "href").length > 0, true);
    assertEquals((await get(`${parent}/subagents/nope`)).status, 404);
  },
});

Deno.test("searchSessions() finds a Gemini tool output once when a checkpoint writes the history again", async () => {
  await using dir = await tempDir();
  const b = geminiToolSession();
  // The checkpoint Gemini writes on resume: every message so far, the last copy of each.
  const messages = new Map<string, unknown>();
  for (const line of b.lines) {
    const value = JSON.parse(line);
    if (typeof value.id === "string") messages.set(value.id, value);
  }
  b.raw({ $set: { messages: [...messages.values()] } }).user("And now?").gemini({
    text: "Still hello.",
  });
  const chats = join(dir.path, "tmp", "project", "chats");
  await Deno.mkdir(chats, { recursive: true });
  await Deno.writeTextFile(join(chats, "session-2026-12-01T10-00-5a7e0c1d.jsonl"), b.text());
  const hits = [];
  const sources = [{ format: "gemini", root: join(dir.path, "tmp"), flags: [] }];
  for await (const event of searchSessions({ terms: ["hello readme"] }, { sources })) {
    if (event.kind === "session") hits.push(...event.hits.map((hit) => `${hit.line} ${hit.role}`));
  }
  assertEquals(hits, ["7 tool output"]);
});
