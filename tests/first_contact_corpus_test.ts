/**
 * What a new user trips on first (issue 40), on real files of the shared corpus: titles, what
 * import carries, whether a turn finished, order, hints and search marks.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { inspect } from "./_cli.ts";
import { CORPUS, CORPUS_MISSING } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { importSession } from "../src/import/mod.ts";
import { collectRecords } from "../src/history/mod.ts";

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
