/**
 * The real tools judge the archive: on homes Claude Code, Codex CLI and Gemini CLI wrote, the
 * session is archived, its file deleted (as Claude Code's clean-up does), and then `search`
 * still finds its words (from the archive), `inspect` says it is only in the archive,
 * `restore` puts it back byte-identical (sha256), and the real tool resumes it; a Claude Code
 * session restored with `--cwd` into a renamed project folder is resumed there, and a Codex
 * one restored with `--cwd` is resumed by Codex.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch } from "../_assert.ts";
import { needing } from "../_needs.ts";
import {
  archiveLayout,
  archiveSessions,
  archiveSources,
  listArchived,
  readIndex,
  restoreSession,
} from "../../src/archive/mod.ts";
import { archivedSources, searchSessions } from "../../src/search/mod.ts";
import {
  CLAUDE_CODE,
  CODEX,
  GEMINI_CLI,
  installedRealClient,
  type RealClient,
} from "../../testing/real_clients/install.ts";
import { ClaudeHome } from "../../testing/real_clients/claude_code.ts";
import {
  codexExec,
  codexResume,
  makeCodexHome,
  rolloutPath,
  rolloutRecords,
  startCodexApi,
} from "../../testing/real_clients/codex.ts";
import { GeminiHome } from "../../testing/real_clients/gemini.ts";

const INSPECT = fileURLToPath(new URL("../../cli/inspect.ts", import.meta.url));

async function sha256(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

function envOf(vars: Record<string, string>) {
  return { get: (name: string) => vars[name] };
}

/** The sessions `search` finds for `words` among those only in the archive at `to`. */
async function foundInArchive(to: string, words: string[]): Promise<string[]> {
  const tools: string[] = [];
  const sources = await archivedSources(to);
  for await (const event of searchSessions({ terms: words }, { sources })) {
    if (event.kind === "session") tools.push(`${event.session.id} ${event.session.tool}`);
  }
  return tools;
}

/** `inspect <id>` as a user runs it, with the archive at `to`. */
async function inspectCli(id: string, to: string, home: Record<string, string>) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", INSPECT, id],
    env: { ...home, TURNLOG_ARCHIVE: to, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

const claude = installedRealClient(CLAUDE_CODE);
const codex = installedRealClient(CODEX);
const gemini = installedRealClient(GEMINI_CLI);
const missingOf = (client: RealClient | string) => typeof client === "string" ? client : undefined;

Deno.test({
  ...needing(
    "Claude Code: an archived transcript deleted is found, put back byte-identical and resumed; --cwd into a renamed project is resumed there",
    missingOf(claude),
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using home = await ClaudeHome.open(claude as RealClient);
    const first = await home.run("read notes.txt");
    assertEquals(first.code, 0, first.stderr);
    const id = first.sessionId;
    const path = home.transcript(id);
    const original = await sha256(path);
    const to = join(home.home, "archive");
    const env = envOf({ HOME: home.home });
    const sources = archiveSources({ env, homes: ["claude"] });
    const summary = await archiveSessions({ to, sources });
    assertEquals([summary.newSessions, summary.skipped.length], [1, 0]);
    await Deno.remove(path);

    assertEquals(await foundInArchive(to, ["notes.txt"]), [
      `${id} Claude Code (only in the archive)`,
    ]);
    const listed = await listArchived(await readIndex(archiveLayout(to)));
    assertEquals(listed.map((entry) => [entry.session.id, entry.present]), [[id, false]]);
    const opened = await inspectCli(id.slice(0, 8), to, { HOME: home.home });
    assertEquals(opened.code, 0, opened.stderr);
    assertMatch(opened.stderr, /is only in the archive \(its file is gone\)/);

    const restored = await restoreSession(id, { from: to, env });
    assertEquals(restored.files.map((file) => [file.path, file.status]), [[path, "written"]]);
    assertEquals(await sha256(path), original);
    const resumed = await home.run("what did I ask?", { resume: id });
    assertEquals(resumed.code, 0, resumed.stderr);
    assert(resumed.requests.every((request) => request.status === 200), "every request accepted");
    assert((await Deno.readTextFile(path)).length > 0);

    // The project folder renamed: the session restored for it, then resumed from there.
    const renamed = join(home.home, "renamed.app");
    await Deno.rename(home.project, renamed);
    const before = await Deno.readFile(path);
    await Deno.remove(path);
    await archiveSessions({ to, sources }); // the resumed one is archived too (a grown file)
    const moved = await restoreSession(id, { from: to, env, cwd: renamed });
    const movedPath = join(
      home.home,
      ".claude",
      "projects",
      renamed.replace(/[^A-Za-z0-9]/g, "-"),
      `${id}.jsonl`,
    );
    assertEquals(moved.files[0]!.path, movedPath);
    assert((moved.fields.get("cwd") ?? 0) > 0, "the cwd fields were rewritten");
    assertEquals(before.length > 0, true);
    const there = await new Deno.Command(home.client.bin, {
      args: [
        "-p",
        "what did I ask?",
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "bypassPermissions",
        "--model",
        home.model.model,
        "--resume",
        id,
      ],
      cwd: renamed,
      env: home.env(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(there.code, 0, new TextDecoder().decode(there.stderr));
    const lines = (await Deno.readTextFile(movedPath)).trimEnd().split("\n").map((l) =>
      JSON.parse(l)
    );
    const cwds = new Set(lines.filter((line) => typeof line.cwd === "string").map((l) => l.cwd));
    assertEquals([...cwds], [renamed], "every line, the new ones too, names the renamed folder");
    assert(lines.length > moved.fields.get("cwd")!, "Claude Code appended the resumed turn");
  },
});

Deno.test({
  ...needing(
    "Codex CLI: an archived rollout deleted is found, put back byte-identical and resumed; --cwd is resumed too",
    missingOf(codex),
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using api = await startCodexApi();
    await using home = await makeCodexHome(codex as RealClient, api);
    const ran = await codexExec(home, "run `echo hi`");
    assertEquals(ran.code, 0, ran.stderr);
    const threadId = ran.threadId!;
    const path = await rolloutPath(home, threadId);
    const original = await sha256(path);
    const to = join(home.base, "archive");
    const env = envOf({ CODEX_HOME: home.home, HOME: home.base });
    const sources = archiveSources({ env, homes: ["codex"] });
    assertEquals((await archiveSessions({ to, sources })).newSessions, 1);
    await Deno.remove(path);

    assertEquals(await foundInArchive(to, ["echo", "hi"]), [
      `${threadId} Codex (only in the archive)`,
    ]);
    const opened = await inspectCli(threadId.slice(0, 13), to, {
      CODEX_HOME: home.home,
      HOME: home.base,
    });
    assertEquals(opened.code === 0 || opened.code === 1, true, opened.stderr);
    assertMatch(opened.stderr, /is only in the archive \(its file is gone\)/);

    await restoreSession(threadId, { from: to, env });
    assertEquals(await sha256(path), original);
    const resumed = await codexResume(home, threadId, "say done");
    assertEquals(resumed.code, 0, resumed.stderr);

    // Moved: restored with another working directory, and Codex resumes it.
    await archiveSessions({ to, sources });
    await Deno.remove(path);
    const moved = await restoreSession(threadId, { from: to, env, cwd: join(home.base, "moved") });
    assertEquals(moved.files[0]!.path, path);
    assertEquals(moved.fields.get("session_meta.payload.cwd"), 1);
    const metas = (await rolloutRecords(path)).filter((r) => r.type === "session_meta");
    assertEquals(
      metas.map((r) => (r.payload as Record<string, unknown>).cwd),
      [join(home.base, "moved")],
    );
    const again = await codexResume(home, threadId, "say done again");
    assertEquals(again.code, 0, again.stderr);
  },
});

Deno.test({
  ...needing(
    "Gemini CLI: an archived session deleted is found, put back byte-identical and resumed; --cwd into a renamed project is resumed there",
    missingOf(gemini),
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using home = await GeminiHome.open(gemini as RealClient);
    const first = await home.run("hello there");
    assertEquals(first.code, 0, first.stderr);
    const [path] = home.sessionFiles();
    assert(path !== undefined, "Gemini wrote a session");
    const original = await sha256(path);
    const to = join(home.home, "archive");
    const env = envOf({ GEMINI_CLI_HOME: home.home, HOME: home.home });
    const sources = archiveSources({ env, homes: ["gemini"] });
    assertEquals((await archiveSessions({ to, sources })).newSessions, 1);
    const id = (await listArchived(await readIndex(archiveLayout(to))))[0]!.session.id;
    await Deno.remove(path);

    assertEquals(await foundInArchive(to, ["hello", "there"]), [
      `${id} Gemini (only in the archive)`,
    ]);
    const restored = await restoreSession(id, { from: to, env });
    assertEquals(restored.files.map((file) => file.path), [path]);
    assertEquals(await sha256(path), original);
    const resumed = await home.run("what did I ask", { resume: "latest" });
    assertEquals(resumed.code, 0, resumed.stderr);
    assert(resumed.requests.every((request) => request.status === 200), "every request accepted");

    // The project folder renamed: the session restored for it, then resumed from there.
    await archiveSessions({ to, sources });
    for (const file of home.sessionFiles()) await Deno.remove(file);
    const renamed = join(home.home, "Renamed App");
    await Deno.rename(home.project, renamed);
    const moved = await restoreSession(id, { from: to, env, cwd: renamed });
    const movedPath = moved.files[0]!.path;
    assertEquals(
      movedPath.startsWith(join(home.root, "renamed-app", "chats") + "/"),
      true,
      movedPath,
    );
    assert((moved.fields.get("projectHash") ?? 0) >= 1, "projectHash rewritten");
    assertEquals(
      (await Deno.readTextFile(join(home.root, "renamed-app", ".project_root"))).trim(),
      renamed,
    );
    const size = (await Deno.stat(movedPath)).size;
    const before = home.model.requests.length;
    const there = await new Deno.Command(home.client.bin, {
      args: ["-m", home.model.model, "-p", "what did I ask", "-o", "text", "--resume", "latest"],
      cwd: renamed,
      env: home.env(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assertEquals(there.code, 0, new TextDecoder().decode(there.stderr));
    const requests = home.model.requests.slice(before);
    assert(requests.length > 0 && requests.every((r) => r.status === 200), "accepted");
    assert(
      (await Deno.stat(movedPath)).size > size,
      "Gemini resumed the restored session from the renamed folder",
    );
    const sent = JSON.stringify(requests[0]!.body);
    assert(sent.includes("hello there"), "the restored conversation was sent");
  },
});
