/**
 * Issue 39, item 12: HOME unset (cron, systemd, some CI). No home is ever taken to be the
 * current folder (a repository that carries `.claude/projects` is not the user's sessions):
 * the commands say HOME is unset and name the variables that set each home, and the installed
 * command's refusal says what to set, not that a database is down.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals, assertThrows } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { HomeUnsetError } from "../src/errors/mod.ts";
import { ADAPTERS } from "../src/formats/mod.ts";
import { searchSources } from "../src/search/mod.ts";
import { browseHomes } from "../src/server/mod.ts";
import { userSessionsRoot } from "../src/store/mod.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { claudeBasic } from "../testing/formats/claude_fixtures.ts";

const TURNLOG = fileURLToPath(new URL("../cli/turnlog.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const noHome = { get: (_name: string): string | undefined => undefined };

Deno.test("FormatAdapter.home.root() with HOME unset throws HomeUnsetError naming the home's variables", () => {
  for (const adapter of ADAPTERS) {
    const error = assertThrows(() => adapter.home.root(noHome), HomeUnsetError);
    assertEquals(error.variables, adapter.home.variables);
    assertEquals(
      error.message.endsWith(`: set ${adapter.home.variables.join(" or ")}`),
      true,
      error.message,
    );
  }
  const empty = { get: (name: string) => (name === "HOME" ? "" : undefined) };
  assertThrows(() => ADAPTERS[0]!.home.root(empty), HomeUnsetError);
});

Deno.test("FormatAdapter.home.root() with HOME unset still finds a home its own variable names", () => {
  const own: Record<string, string> = {
    CODEX_HOME: "/x/.codex",
    CLAUDE_CONFIG_DIR: "/x/.claude",
    GEMINI_CLI_HOME: "/x",
  };
  for (const adapter of ADAPTERS) {
    const variable = adapter.home.variables[0]!;
    const root = adapter.home.root({ get: (name) => (name === variable ? own[name] : undefined) });
    assertEquals(root.startsWith("/x/"), true, root);
  }
});

Deno.test("searchSources() and browseHomes() with HOME unset name every home's variables", async () => {
  const message = "HOME is unset, so nothing names Codex's, Claude Code's and Gemini's homes " +
    "(the current folder is not used instead): set CODEX_HOME, CLAUDE_CONFIG_DIR, " +
    "GEMINI_CLI_HOME or HOME";
  assertEquals(assertThrows(() => browseHomes(noHome), HomeUnsetError).message, message);
  const error = await searchSources({ env: noHome }).then(() => undefined, (e) => e);
  assertEquals(error instanceof HomeUnsetError ? error.message : error, message);
});

Deno.test("userSessionsRoot() with neither XDG_DATA_HOME nor HOME: a HomeUnsetError, not a store's", () => {
  const error = assertThrows(() => userSessionsRoot({}), HomeUnsetError);
  assertEquals(error.message.endsWith(": set TURNLOG_SESSIONS_DIR, XDG_DATA_HOME or HOME"), true);
  assertEquals(error.kind, "usage");
});

/** Runs the `turnlog` command in `cwd` with exactly `env` (no HOME unless given). */
async function turnlog(args: string[], cwd: string, env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `--config=${CONFIG}`, "-A", TURNLOG, ...args],
    cwd,
    env: {
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      DENO_DIR: Deno.env.get("DENO_DIR") ??
        join(Deno.env.get("HOME") ?? "", ".cache", "deno"),
      ...env,
    },
    clearEnv: true,
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

Deno.test("turnlog inspect --claude with HOME unset in a folder carrying .claude/projects: refused, the folder unread", async () => {
  await using dir = await tempDir();
  // A repository that carries a Claude Code home of its own.
  const project = join(dir.path, ".claude", "projects", "-repo");
  await Deno.mkdir(project, { recursive: true });
  await Deno.writeTextFile(join(project, `${CLAUDE_SESSION_ID}.jsonl`), claudeBasic());
  const ran = await turnlog(["inspect", "--claude"], dir.path);
  assertEquals(ran.code, 2);
  assertEquals(ran.stdout, "");
  assertEquals(
    ran.stderr,
    "turnlog inspect: HOME is unset, so nothing names Claude Code's home (the current folder " +
      "is not used instead): set CLAUDE_CONFIG_DIR or HOME\n" +
      "Set CLAUDE_CONFIG_DIR or HOME (a cron job or a systemd unit may run without HOME).\n",
  );
  const named = await turnlog(["inspect", "--claude"], dir.path, {
    CLAUDE_CONFIG_DIR: join(dir.path, ".claude"),
  });
  assertEquals(named.code, 0, named.stderr);
  assertEquals(named.stdout.includes(CLAUDE_SESSION_ID.slice(0, 8)), true, named.stdout);
});

Deno.test("turnlog search with HOME unset: refused, naming each home's variable", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, ".codex", "sessions"), { recursive: true });
  const ran = await turnlog(["search", "hello"], dir.path);
  assertEquals(ran.code, 2);
  assertEquals(
    ran.stderr.split("\n")[0],
    "turnlog search: HOME is unset, so nothing names Codex's, Claude Code's and Gemini's homes " +
      "(the current folder is not used instead): set CODEX_HOME, CLAUDE_CONFIG_DIR, " +
      "GEMINI_CLI_HOME or HOME",
  );
});

Deno.test("the installed turnlog with HOME unset says what to set, and nothing of a database", async () => {
  await using dir = await tempDir();
  const ran = await turnlog(["inspect", "--list"], dir.path, { TURNLOG_INSTALLED: "turnlog" });
  assertEquals(ran.code, 2);
  assertEquals(
    ran.stderr,
    "turnlog inspect: HOME is unset, so nothing names turnlog's sessions (the current folder " +
      "is not used instead): set TURNLOG_SESSIONS_DIR, XDG_DATA_HOME or HOME\n" +
      "Set TURNLOG_SESSIONS_DIR, XDG_DATA_HOME or HOME (a cron job or a systemd unit may run " +
      "without HOME).\n",
  );
});
