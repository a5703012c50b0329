/**
 * The archive and restore, as the library and the commands do them: byte-identical restores,
 * incremental runs (chunk sizes, reads counted), versions, the lock, --check, --cwd.
 */
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ArchiveInUseError,
  archiveLayout,
  archiveSessions,
  archiveSources,
  checkArchive,
  lockArchive,
  readIndex,
  refreshView,
  RestoreConflictError,
  restoreSession,
} from "../src/archive/mod.ts";
import { adapterFor } from "../src/formats/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import { CLAUDE_HOME_IDS, writeClaudeHome, writeCodexHome } from "../testing/formats/homes.ts";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { fatTime, msTime, ownTimesOnly, rewriteUnseen, wholeSecondNow } from "./_racy.ts";
import { fineClock } from "../src/_tick.ts";
import { NO_USER_HOMES } from "../testing/user_env.ts";

const EXAMPLE = fileURLToPath(
  new URL(
    "../sessions/2026/01/15/2026-01-15T09-00-00-000Z-019bc0e2-1280-705c-b071-0a2ebd22e0b2.jsonl",
    import.meta.url,
  ),
);
const EXAMPLE_REL =
  "2026/01/15/2026-01-15T09-00-00-000Z-019bc0e2-1280-705c-b071-0a2ebd22e0b2.jsonl";

/** A home with a Codex home, a Claude Code home (a subagent among them) and a turnlog store. */
async function home() {
  const dir = await Deno.makeTempDir({ prefix: "turnlog-archive-test-" });
  const codex = await writeCodexHome(join(dir, ".codex"));
  const claude = await writeClaudeHome(join(dir, ".claude"));
  const store = join(dir, "store");
  await Deno.mkdir(join(store, "2026", "01", "15"), { recursive: true });
  await Deno.copyFile(EXAMPLE, join(store, ...EXAMPLE_REL.split("/")));
  const env = { get: (name: string) => (name === "HOME" ? dir : undefined) };
  const sources = archiveSources({ env, store });
  const to = join(dir, "archive");
  return {
    dir,
    codex,
    claude,
    store,
    env,
    sources,
    to,
    archive: () => archiveSessions({ to, sources }),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

async function sha256(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

Deno.test("restoreSession() puts every deleted session back byte for byte (sha256), subagents too", async () => {
  await using h = await home();
  const first = await h.archive();
  assertEquals(first.newSessions, 10);
  assertEquals(first.skipped, []);
  const paths = [...h.codex.map((session) => session.path), h.claude.session];
  const subagent = join(
    h.claude.projects,
    "-work-project",
    h.claude.sessionId,
    "subagents",
    "agent-a1b2c3d.jsonl",
  );
  const storeFile = join(h.store, ...EXAMPLE_REL.split("/"));
  const oldAgent = join(h.claude.projects, "-work-project", "agent-0badc0de.jsonl");
  const all = [...paths, subagent, oldAgent, h.claude.forks, h.claude.compaction, storeFile];
  const before = new Map(await Promise.all(all.map(async (p) => [p, await sha256(p)] as const)));
  for (const path of all) await Deno.remove(path);
  for (const id of [...h.codex.map((s) => s.id), h.claude.sessionId, CLAUDE_HOME_IDS.forks]) {
    await restoreSession(id, { from: h.to, env: h.env });
  }
  await restoreSession(CLAUDE_HOME_IDS.compaction.slice(0, 8), { from: h.to, env: h.env });
  const restored = await restoreSession(storeFile, { from: h.to, home: h.store });
  assertEquals(restored.files.map((f) => f.status), ["written"]);
  for (const [path, hash] of before) assertEquals(await sha256(path), hash, path);
  // Again: the same bytes are there, nothing is written.
  const again = await restoreSession(h.claude.sessionId, { from: h.to, env: h.env });
  assertEquals(again.files.map((f) => f.status), ["same", "same", "same"]);
  assertEquals(again.files.slice(1).map((f) => f.path).sort(), [oldAgent, subagent].sort());
});

Deno.test("archiveSessions() stores only the new bytes of a file that grew, as one new chunk", async () => {
  await using h = await home();
  await h.archive();
  const path = h.codex[0]!.path;
  const key = `codex/${path.slice(join(h.dir, ".codex", "sessions").length + 1)}`;
  const old = (await readIndex(archiveLayout(h.to))).latest(key)!;
  const added = '{"timestamp":"2026-02-23T13:00:00.000Z","type":"event_msg","payload":{}}\n';
  await Deno.writeTextFile(path, added, { append: true });
  const summary = await h.archive();
  assertEquals([summary.newSessions, summary.grown, summary.rewritten], [0, 1, 0]);
  assertEquals(summary.unchanged, 9);
  assertEquals(summary.newBytes, added.length);
  const grown = (await readIndex(archiveLayout(h.to))).latest(key)!;
  assertEquals(grown.version, old.version);
  assertEquals(grown.chunks.slice(0, -1), old.chunks);
  assertEquals(grown.chunks.at(-1)!.size, added.length);
  assertEquals(grown.size, old.size + added.length);
  assertEquals(grown.sha256, await sha256(path));
});

Deno.test("archiveSessions() keeps a file rewritten in place as a new version; restore --version 1 gives the old bytes", async () => {
  await using h = await home();
  await h.archive();
  const path = h.claude.compaction;
  const original = await sha256(path);
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, text.replace("Step two", "Step 2"));
  const summary = await h.archive();
  assertEquals([summary.grown, summary.rewritten], [0, 1]);
  const id = CLAUDE_HOME_IDS.compaction;
  const other = join(h.dir, "other-machine");
  const v1 = await restoreSession(id, { from: h.to, home: other, version: 1 });
  assertEquals(v1.version, 1);
  assertEquals(await sha256(v1.files[0]!.path), original);
  await Deno.remove(v1.files[0]!.path);
  const latest = await restoreSession(id, { from: h.to, home: other });
  assertEquals(latest.version, 2);
  assertEquals(await sha256(latest.files[0]!.path), await sha256(path));
  assertEquals(latest.files[0]!.path, join(other, "projects", "-work-other", `${id}.jsonl`));
});

Deno.test("archiveSessions() hashes again a file it archived in the tick of its last write on a file system of seconds, and keeps its rewrite in place at the same size and time", async () => {
  using _seconds = ownTimesOnly();
  await using h = await home();
  const path = h.claude.compaction;
  const second = await fatTime(path);
  await h.archive();
  await rewriteUnseen(path, "Step two", "Step TWO", second);
  const summary = await h.archive();
  assertEquals([summary.grown, summary.rewritten], [0, 1]);
  const other = join(h.dir, "other-machine");
  const latest = await restoreSession(CLAUDE_HOME_IDS.compaction, { from: h.to, home: other });
  assertEquals([latest.version, await sha256(latest.files[0]!.path)], [2, await sha256(path)]);
});

Deno.test("refreshView() shows a newer archived version of a gone file, of the same size as the version the view holds", async () => {
  await using h = await home();
  await h.archive();
  const path = h.claude.compaction;
  const rel = relative(join(h.dir, ".claude", "projects"), path);
  const text = await Deno.readTextFile(path);
  await Deno.remove(path);
  const [claude] = (await refreshView(h.to)).filter((view) => view.format === "claude-code");
  const shown = join(claude!.root, rel);
  assertEquals(await Deno.readTextFile(shown), text);
  // Back, rewritten in place at the same size, archived as version 2, and gone again.
  const rewritten = text.replace("Step two", "Step TWO");
  assertEquals(rewritten.length === text.length && rewritten !== text, true);
  await Deno.writeTextFile(path, rewritten);
  assertEquals((await h.archive()).rewritten, 1);
  await Deno.remove(path);
  await refreshView(h.to);
  assertEquals(await Deno.readTextFile(shown), rewritten);
  // An up-to-date view is written no more.
  const before = Deno.statSync(shown);
  await refreshView(h.to);
  assertEquals(Deno.statSync(shown).ino, before.ino);
});

/** The archive of `h` run again reads no byte of any session file (a stat each). */
async function assertArchivedUnchanged(h: Awaited<ReturnType<typeof home>>) {
  using io = countIo();
  // What the homes' walks read alone (Claude Code tells an old-style subagent's session by
  // its first line): the archive reads nothing more of any session file.
  for (const source of h.sources) {
    for await (const _ of source.walk(source.root)) continue;
  }
  const walked = io.take().reads;
  const summary = await h.archive();
  const counts = io.take();
  assertEquals(summary.unchanged, 10);
  const homeReads = counts.reads.filter((read) => !read.path.startsWith(h.to));
  assertEquals(homeReads, walked);
  assertEquals(summary.newBytes + summary.storedBytes, 0);
}

Deno.test("archiveSessions() of an unchanged home reads no byte of any session file (a stat each)", async () => {
  await using h = await home();
  await h.archive();
  await assertArchivedUnchanged(h);
});

Deno.test("archiveSessions() takes a file written on a whole second, on a device this process saw keep ms, as one write in 1,000: the next run reads none of it", async () => {
  await using h = await home();
  const taught = h.codex[1]!.path;
  await msTime(taught);
  assert(fineClock(await Deno.stat(taught)));
  // Before, a whole second was a file system of seconds: archived unsure, hashed again next run.
  await wholeSecondNow(h.codex[0]!.path);
  await h.archive();
  await assertArchivedUnchanged(h);
});

Deno.test("restoreSession() never writes over a different file, and says so", async () => {
  await using h = await home();
  await h.archive();
  const path = h.codex[1]!.path;
  await Deno.writeTextFile(path, "something else\n");
  let thrown: unknown;
  try {
    await restoreSession(h.codex[1]!.id, { from: h.to, env: h.env });
  } catch (error) {
    thrown = error;
  }
  assert(thrown instanceof RestoreConflictError);
  assertEquals(thrown.message, `A different file is already at ${path}: it was left as it is`);
  assertEquals(await Deno.readTextFile(path), "something else\n");
});

Deno.test("lockArchive() lets one run at a time; a killed holder's lock is taken over", async () => {
  await using h = await home();
  await h.archive();
  const layout = archiveLayout(h.to);
  {
    using _held = await lockArchive(layout.lock, layout.root);
    let thrown: unknown;
    try {
      await h.archive();
    } catch (error) {
      thrown = error;
    }
    assert(thrown instanceof ArchiveInUseError);
    assertMatch(thrown.message, new RegExp(`\\(process ${Deno.pid}\\) holds`));
  }
  // A holder killed with SIGKILL: the kernel let go of its lock, the next run goes on.
  const code = `const f = await Deno.open(${
    JSON.stringify(layout.lock)
  }, {read: true, write: true});
await f.lock(true); console.log("locked"); await new Promise(() => {});`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    stdout: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  await reader.read();
  child.kill("SIGKILL");
  await child.status;
  reader.releaseLock();
  await child.stdout.cancel();
  assertEquals((await h.archive()).unchanged, 10);
});

Deno.test("checkArchive() finds a flipped byte in a chunk and names it; the CLI exits 1", async () => {
  await using h = await home();
  await h.archive();
  assertEquals((await checkArchive(h.to)).problems, []);
  const key = `claude-code/-work-other/${CLAUDE_HOME_IDS.forks}.jsonl`;
  const file = (await readIndex(archiveLayout(h.to))).latest(key)!;
  const chunk = join(
    h.to,
    "chunks",
    file.chunks[0]!.sha256.slice(0, 2),
    `${file.chunks[0]!.sha256}.zst`,
  );
  const bytes = await Deno.readFile(chunk);
  bytes[bytes.length >> 1]! ^= 0x01;
  await Deno.writeFile(chunk, bytes);
  const check = await checkArchive(h.to);
  assert(
    check.problems.some((problem) => problem.startsWith(`${chunk}: `)),
    check.problems.join("\n"),
  );
  assert(check.problems.some((problem) => problem.startsWith(`${key} version 1: chunk ${chunk}`)));
  const ran = await runCli("archive", ["--check", "--to", h.to], h.dir);
  assertEquals(ran.code, 1);
  assertMatch(ran.stderr, new RegExp(`turnlog archive: ${escape(chunk)}: `));
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

Deno.test("restoreSession() with cwd moves a Claude Code session into the renamed project, and it reads back", async () => {
  await using h = await home();
  await h.archive();
  const restored = await restoreSession(h.claude.sessionId, {
    from: h.to,
    env: h.env,
    cwd: "/work/renamed.app",
  });
  const [own, agent] = restored.files;
  assertEquals(
    own!.path,
    join(h.claude.projects, "-work-renamed-app", `${h.claude.sessionId}.jsonl`),
  );
  assertEquals(
    agent!.path,
    join(
      h.claude.projects,
      "-work-renamed-app",
      h.claude.sessionId,
      "subagents",
      "agent-a1b2c3d.jsonl",
    ),
  );
  const lines = (await Deno.readTextFile(own!.path)).trimEnd().split("\n").map((l) =>
    JSON.parse(l)
  );
  const cwds = new Set(lines.filter((l) => "cwd" in l).map((l) => l.cwd));
  assertEquals([...cwds], ["/work/renamed.app"]);
  assertEquals([...restored.fields.keys()], ["cwd"]);
  const before = await inspectSession(h.claude.session, {});
  const after = await inspectSession(own!.path, {});
  assertEquals(after.turns.length, before.turns.length);
  assertEquals(after.healthy, before.healthy);
  assertEquals(
    adapterFor("claude-code").relocate?.place("-old/x.jsonl", "/a b", "/r"),
    "-a-b/x.jsonl",
  );
});

Deno.test("restoreSession() with cwd rewrites a Codex rollout's session_meta and turn contexts", async () => {
  await using h = await home();
  await h.archive();
  const session = h.codex[2]!;
  await Deno.remove(session.path);
  const restored = await restoreSession(session.id, { from: h.to, env: h.env, cwd: "/srv/moved" });
  assertEquals(restored.files[0]!.path, session.path);
  const lines = (await Deno.readTextFile(session.path)).trimEnd().split("\n").map((l) =>
    JSON.parse(l)
  );
  const metas = lines.filter((l) => l.type === "session_meta" || l.type === "turn_context");
  assert(metas.length >= 2);
  for (const line of metas) assertEquals(line.payload.cwd, "/srv/moved");
  assertEquals(restored.fields.get("session_meta.payload.cwd"), 1);
  assertEquals(restored.fields.get("turn_context.payload.cwd"), metas.length - 1);
  const report = await inspectSession(session.path, {});
  assert(report.turns.length > 0);
  assertEquals(adapterFor("codex").relocate?.place("2026/x.jsonl", "/y", "/r"), "2026/x.jsonl");
});

Deno.test("archiveSessions() makes the archive private: folders 0700, files 0600", async () => {
  await using h = await home();
  await h.archive();
  for await (const path of walk(h.to)) {
    const info = await Deno.stat(path);
    assertEquals(info.mode! & 0o777, info.isDirectory ? 0o700 : 0o600, path);
  }
});

async function* walk(dir: string): AsyncIterable<string> {
  yield dir;
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else yield path;
  }
}

/** Deno's cache as this process has it: the commands run with another HOME. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");

const ROOT = fileURLToPath(new URL("../", import.meta.url));

async function runCli(
  command: "archive" | "restore" | "search" | "inspect",
  args: string[],
  home: string,
) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "cli", `${command}.ts`), ...args],
    env: {
      ...NO_USER_HOMES,
      HOME: home,
      NO_COLOR: "1",
      TURNLOG_ARCHIVE: join(home, "archive"),
      TURNLOG_SESSIONS_DIR: join(home, "store"),
      TURNLOG_STORE: "",
      DENO_DIR: DENO_DIR,
    },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("archive and restore as a user runs them: one line, only in the archive, found, put back", async () => {
  await using h = await home();
  const first = await runCli("archive", [], h.dir);
  assertEquals(first.stderr, "");
  assertEquals(
    first.stdout,
    "turnlog archive: archived 10 new sessions, 0 grown, 40.5 KiB new (8.2 KiB stored), 0 unchanged\n",
  );
  const again = await runCli("archive", [], h.dir);
  assertEquals(
    again.stdout,
    "turnlog archive: archived 0 new sessions, 0 grown, 0 bytes new (0 bytes stored), 10 unchanged\n",
  );
  const before = await sha256(h.claude.compaction);
  await Deno.remove(h.claude.compaction);
  const found = await runCli("search", ["Step two"], h.dir);
  assertEquals(found.code, 0, found.stderr);
  assertMatch(found.stdout, /^6a7b8c9d {2}Claude Code \(only in the archive\) {2}/);
  const archived = await runCli("restore", ["--list"], h.dir);
  assertEquals(archived.code, 0, archived.stderr);
  const rows = archived.stdout.split("\n");
  assertEquals(
    rows[0],
    "Archived sessions, newest first: id, tool, last written, size; below, its file",
  );
  assertEquals(rows.at(-2), "10 archived sessions, 1 only in the archive");
  const gone = rows.findIndex((row) =>
    row.startsWith(`${CLAUDE_HOME_IDS.compaction}  Claude Code  `)
  );
  assertEquals(rows[gone + 1], `  ${h.claude.compaction} (only in the archive)`);
  const listed = await runCli("inspect", ["--list", "--claude"], h.dir);
  assertMatch(listed.stdout, /\nOnly in the archive \(their files are gone; .* restore <id>\):\n/);
  assertMatch(listed.stdout.split("Only in the archive")[1]!, /\n6a7b8c9d /);
  const opened = await runCli("inspect", ["6a7b8c9d"], h.dir);
  assertEquals(opened.code, 0, opened.stderr);
  assertMatch(
    opened.stderr,
    /^turnlog inspect: 6a7b8c9d is only in the archive \(its file is gone\)/,
  );
  assertMatch(opened.stdout, /^Session 6a7b8c9d-0000-4000-8000-000000000003 {2}healthy\n/);
  const restored = await runCli("restore", ["6a7b8c9d"], h.dir);
  assertEquals(restored.code, 0, restored.stderr);
  assertEquals(
    restored.stdout.split("\n")[0],
    `turnlog restore: restored Claude Code session ${CLAUDE_HOME_IDS.compaction} (version 1 of 1) to ${h.claude.compaction}`,
  );
  assertEquals(await sha256(h.claude.compaction), before);
  const conflict = await runCli("restore", ["019c8a4c", "--version", "2"], h.dir);
  assertEquals(conflict.code, 2);
  assertEquals(
    conflict.stderr.split("\n")[0],
    "turnlog restore: Session 019c8a4c-ed82-79a1-aa28-7738fc5ab61a has no version 2 (its versions: 1)",
  );
});

Deno.test("geminiRelocation.place() takes the slug Gemini CLI would: the registry's, else the marker's owner, else a free one", async () => {
  const home = await Deno.makeTempDir({ prefix: "turnlog-gemini-slug-" });
  const root = join(home, "tmp");
  await Deno.mkdir(root);
  try {
    const relocate = adapterFor("gemini").relocate!;
    const rel = "old/chats/session-2026-01-01T00-00-abcdef12.jsonl";
    assertEquals(
      await relocate.place(rel, "/work/My App", root),
      "my-app/chats/session-2026-01-01T00-00-abcdef12.jsonl",
    );
    await Deno.mkdir(join(root, "my-app"));
    await Deno.writeTextFile(join(root, "my-app", ".project_root"), "/elsewhere/my-app\n");
    assertEquals((await relocate.place(rel, "/work/My App", root)).split("/")[0], "my-app-1");
    await Deno.writeTextFile(
      join(root, "..", "projects.json"),
      JSON.stringify({ projects: { "/work/My App": "known" } }),
    );
    assertEquals((await relocate.place(rel, "/work/My App", root)).split("/")[0], "known");
    await Deno.remove(join(root, "..", "projects.json"));
    const value = { sessionId: "x", projectHash: "0" };
    assertEquals(relocate.line(value, "/work/My App", null), ["projectHash"]);
    assertEquals(value.projectHash, createHash("sha256").update("/work/My App").digest("hex"));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
