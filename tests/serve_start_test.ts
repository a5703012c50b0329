/**
 * What `serve` says of each home when it starts: its sessions are only read, and the home that
 * "Continue in…" writes that tool's new sessions into says so; a folder given with
 * `--sessions-dir` is only read.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { startServe } from "../testing/serve_process.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");

/** The lines of `started` that name a home (a tool's name, a colon, a folder). */
const homeLines = (started: string) =>
  started.split("\n").filter((line) => line.includes("(its sessions only read"));

Deno.test("serve says at start that each home's sessions are only read, and where Continue in writes new ones", async () => {
  await using dir = await tempDir();
  const claude = join(dir.path, "claude");
  const codex = join(dir.path, "codex");
  await Deno.mkdir(join(claude, "projects"), { recursive: true });
  await Deno.mkdir(join(codex, "sessions"), { recursive: true });
  const env = {
    HOME: dir.path,
    CLAUDE_CONFIG_DIR: claude,
    CODEX_HOME: codex,
    GEMINI_CLI_HOME: dir.path,
    TURNLOG_ARCHIVE: join(dir.path, "archive"),
    TURNLOG_CATALOG: join(dir.path, "catalog.sqlite"),
    TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"),
    TURNLOG_STORE: "",
    DENO_DIR,
  };
  {
    await using serve = await startServe(["--model", "scripted", "--claude", "--codex"], { env });
    assertEquals(homeLines(serve.started), [
      `Codex CLI: ${codex}/sessions (its sessions only read; Continue in Codex writes new ones here)`,
      `Claude Code: ${claude}/projects (its sessions only read; Continue in Claude Code writes new ones here)`,
    ]);
  }
  // A copy of a home browsed alone: Continue in writes into the home the environment names.
  const copy = join(dir.path, "copy", "projects");
  await Deno.mkdir(join(copy, "-work-p"), { recursive: true });
  await Deno.writeTextFile(join(copy, "-work-p", "7acd37a8-0000-4000-8000-000000000001.jsonl"), "");
  await using serve = await startServe(["--model", "scripted", "--sessions-dir", copy], { env });
  assertEquals(homeLines(serve.started), [`Claude Code: ${copy} (its sessions only read)`]);
});
