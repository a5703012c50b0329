/**
 * Sessions only in the archive, as the commands show them once their files are gone: `serve`
 * lists them and heads their pages "only in the archive", `import <id>` finds one without
 * `--sessions-dir`, and a turnlog session read from the archive's view is continued by
 * restoring it first, never by resuming it in the view (a cache).
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { archiveSessions, archiveSources } from "../src/archive/mod.ts";
import { CLAUDE_HOME_IDS, writeClaudeHome } from "../testing/formats/homes.ts";
import { startServe } from "../testing/serve_process.ts";
import { TASK } from "../cli/_commands.ts";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { attributes, parsePage, texts } from "./_html_helpers.ts";
import { NO_USER_HOMES } from "../testing/user_env.ts";

const EXAMPLE_REL =
  "2026/01/15/2026-01-15T09-00-00-000Z-019bc0e2-1280-705c-b071-0a2ebd22e0b2.jsonl";
const EXAMPLE = fileURLToPath(new URL(`../sessions/${EXAMPLE_REL}`, import.meta.url));
const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Deno's cache as this process has it: the commands run with another HOME. */
const DENO_DIR = Deno.env.get("DENO_DIR") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");

/** A Claude Code home and a turnlog store, archived, under a HOME of their own. */
async function archivedHome() {
  const dir = await Deno.makeTempDir({ prefix: "turnlog-archive-view-" });
  const claude = await writeClaudeHome(join(dir, ".claude"));
  const store = join(dir, "store");
  const storeFile = join(store, ...EXAMPLE_REL.split("/"));
  await Deno.mkdir(join(storeFile, ".."), { recursive: true });
  await Deno.copyFile(EXAMPLE, storeFile);
  const env = { get: (name: string) => (name === "HOME" ? dir : undefined) };
  const to = join(dir, "archive");
  await archiveSessions({ to, sources: archiveSources({ env, store }) });
  return {
    dir,
    claude,
    store,
    storeFile,
    to,
    /** The environment of the commands run here. */
    env: {
      ...NO_USER_HOMES,
      HOME: dir,
      NO_COLOR: "1",
      TURNLOG_ARCHIVE: to,
      TURNLOG_SESSIONS_DIR: store,
      TURNLOG_STORE: "",
      DENO_DIR,
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

async function runCli(
  command: "import" | "inspect" | "search" | "restore" | "resume",
  args: string[],
  env: Record<string, string>,
) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "cli", `${command}.ts`), ...args],
    env,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function sha256(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

/** Every file under a folder, recursively. */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...await filesUnder(path));
    else found.push(path);
  }
  return found.sort();
}

Deno.test("serve lists a session whose file is gone as only in the archive, and its page says so", async () => {
  await using h = await archivedHome();
  await Deno.remove(h.claude.compaction);
  await using serve = await startServe([], { env: h.env });
  const list = parsePage(await (await fetch(`${serve.base}/`)).text());
  const gone = CLAUDE_HOME_IDS.compaction;
  const toolOf = (id: string) => texts(list, `li[data-session-id="${id}"] .tool`);
  assertEquals(toolOf(gone), ["Claude Code (only in the archive)"]);
  assertEquals(toolOf(h.claude.sessionId), ["Claude Code"]);
  assert(
    texts(list, "*").some((text) => text?.includes(`${h.to}/view/claude-code`)),
    "the view is named among the places",
  );

  const page = await fetch(`${serve.base}/sessions/${gone}`);
  assertStrictEquals(page.status, 200);
  const doc = parsePage(await page.text());
  assertEquals(texts(doc, "header#session .note"), [
    `Only in the archive: the Claude Code transcript of this session is gone; this is its archived copy (restore ${gone} puts it back).`,
  ]);
  assertEquals(attributes(doc, "header#session", "data-session-id"), [gone]);
  const present = parsePage(
    await (await fetch(`${serve.base}/sessions/${h.claude.sessionId}`)).text(),
  );
  assertEquals(texts(present, "header#session .note"), []);

  const found = await (await fetch(`${serve.base}/search?q=${encodeURIComponent("Step two")}`))
    .text();
  assertMatch(found, /Claude Code \(only in the archive\)/);
});

Deno.test("import <id> finds a session only in the archive, says so, and leaves the view as it was", async () => {
  await using h = await archivedHome();
  const original = await sha256(h.claude.compaction);
  await Deno.remove(h.claude.compaction);
  const gone = CLAUDE_HOME_IDS.compaction;
  const imported = await runCli("import", [gone.slice(0, 8)], h.env);
  assertEquals(imported.code, 0, imported.stderr);
  assertEquals(
    imported.stderr,
    `turnlog import: ${
      gone.slice(0, 8)
    } is only in the archive (its file is gone): importing its archived copy\n`,
  );
  const view = join(h.to, "view", "claude-code");
  const viewFile = (await filesUnder(view)).find((path) => path.endsWith(`${gone}.jsonl`))!;
  // The archived copy was only read.
  assertEquals(await sha256(viewFile), original);
  const first = imported.stdout.split("\n")[0];
  assertEquals(first, `Imported the Claude Code transcript ${viewFile}`);
  // The new session is in the store beside the one that was there.
  const made = (await filesUnder(h.store)).filter((path) => path !== h.storeFile);
  assertEquals(made.length, 1);
  assertMatch(imported.stdout, new RegExp(`\\nContinue it: .*resume --session `));

  // Without the archive's copy, the id is not found, as before.
  const unknown = await runCli("import", ["deadbeef"], h.env);
  assertEquals(unknown.code, 2);
  assertMatch(unknown.stderr, /^turnlog import: .*"deadbeef"/);
  assert(!unknown.stderr.includes("only in the archive"), unknown.stderr);
});

Deno.test("restoreThenResumeCommand() is the continue command of a turnlog session read from the archive's view", async () => {
  await using h = await archivedHome();
  const before = await sha256(h.storeFile);
  await Deno.remove(h.storeFile);
  const continueLine =
    `${TASK} restore 019bc0e2 && ${TASK} resume --session 019bc0e2 "<your message>"`;

  const opened = await runCli("inspect", ["019bc0e2"], h.env);
  assertEquals(opened.code, 0, opened.stderr);
  assert(
    opened.stdout.includes(`\nContinue this session:\n  ${continueLine}\n`),
    opened.stdout,
  );
  // Named by the view's folder, or by its file: the same.
  const view = join(h.to, "view", "turnlog");
  const byDir = await runCli("inspect", ["--sessions-dir", view, "019bc0e2"], h.env);
  assert(byDir.stdout.includes(`\n  ${continueLine}\n`), byDir.stdout);
  const asJson = await runCli("inspect", ["--json", join(view, ...EXAMPLE_REL.split("/"))], h.env);
  assertEquals(JSON.parse(asJson.stdout).continueCommand, continueLine);

  const found = await runCli("search", ["notes.txt"], h.env);
  assertEquals(found.code, 0, found.stderr);
  assert(found.stdout.includes(`  continue: ${continueLine}\n`), found.stdout);
  assert(!found.stdout.includes(view + " --session"), "no resume in the view");

  // A resume in the view itself is refused: the turn would be appended to a cache.
  const viewFile = join(view, ...EXAMPLE_REL.split("/"));
  const inView = await runCli(
    "resume",
    ["--sessions-dir", view, "--session", "019bc0e2", "--model", "scripted", "list the files"],
    h.env,
  );
  assertEquals(inView.code, 2);
  assertEquals(
    inView.stderr.split("\n")[0],
    `turnlog resume: ${view} is the archive's view of the sessions only in the archive, a cache: put the session back first: ${TASK} restore 019bc0e2`,
  );
  assertEquals(await sha256(viewFile), before);

  // The command's first half puts the file back byte for byte; the second then finds it there.
  const restored = await runCli("restore", ["019bc0e2"], h.env);
  assertEquals(restored.code, 0, restored.stderr);
  assertEquals(await sha256(h.storeFile), before);
  const after = await runCli("inspect", ["019bc0e2"], h.env);
  assertEquals(after.stderr, "");
  assert(
    after.stdout.includes(`\nContinue this session:\n  ${TASK} resume --session 019bc0e2 `),
    after.stdout,
  );
});
