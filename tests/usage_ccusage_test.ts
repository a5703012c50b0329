/**
 * `usage daily --json` against ccusage 20.0.24 (pinned, installed from npm like the real tools:
 * `./denow task real-clients --install`) on the shared corpus of real Claude Code and Codex
 * files: the same tokens per day and model, in two time zones. The homes are made at test time
 * in temporary folders (Claude Code's projects linked, Codex's rollouts copied under the names
 * Codex gives them: ccusage follows no link to a file); nothing of the corpus is copied into the
 * repository.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals } from "./_assert.ts";
import { CORPUS, CORPUS_MISSING } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { CCUSAGE, installedRealClient } from "../testing/real_clients/install.ts";

/** Deno's cache, for a `deno run` under another HOME (its npm packages are there). */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno");
const USAGE = fileURLToPath(new URL("../cli/usage.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const ccusage = installedRealClient(CCUSAGE);
const MISSING = CORPUS_MISSING ?? (typeof ccusage === "string" ? ccusage : undefined);

/** Tokens of one day and model, as both tools name them. */
type DayModel = Record<string, number>;

async function output(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<unknown> {
  const ran = await new Deno.Command(command, {
    args,
    env: { NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(ran.stderr);
  assertEquals(ran.code, 0, err);
  return JSON.parse(new TextDecoder().decode(ran.stdout));
}

/** `usage daily --json` of a home, keyed `<date> <model>`. */
async function ours(flag: string, env: Record<string, string>): Promise<Map<string, DayModel>> {
  const json = await output(
    Deno.execPath(),
    [
      "run",
      `--config=${CONFIG}`,
      "--allow-read",
      "--allow-env",
      "--allow-write",
      USAGE,
      "daily",
      "--json",
      "--breakdown",
      flag,
    ],
    { ...env, DENO_DIR },
  ) as { daily: { date: string; modelBreakdowns: (DayModel & { modelName: string })[] }[] };
  const days = new Map<string, DayModel>();
  for (const day of json.daily) {
    for (const part of day.modelBreakdowns) {
      days.set(`${day.date} ${part.modelName}`, {
        inputTokens: part.inputTokens!,
        outputTokens: part.outputTokens!,
        cacheCreationTokens: part.cacheCreationTokens!,
        cacheReadTokens: part.cacheReadTokens!,
        ...(flag === "--codex" ? { reasoningOutputTokens: part.reasoningOutputTokens! } : {}),
      });
    }
  }
  return days;
}

/** `ccusage claude daily --json --offline`, keyed `<date> <model>`. */
async function ccusageClaude(env: Record<string, string>): Promise<Map<string, DayModel>> {
  if (typeof ccusage === "string") throw new Error(ccusage);
  const json = await output(ccusage.bin, ["claude", "daily", "--json", "--offline"], env) as {
    daily: { date: string; modelBreakdowns: (DayModel & { modelName: string })[] }[];
  };
  const days = new Map<string, DayModel>();
  for (const day of json.daily) {
    for (const part of day.modelBreakdowns) {
      days.set(`${day.date} ${part.modelName}`, {
        inputTokens: part.inputTokens!,
        outputTokens: part.outputTokens!,
        cacheCreationTokens: part.cacheCreationTokens!,
        cacheReadTokens: part.cacheReadTokens!,
      });
    }
  }
  return days;
}

/** `ccusage codex daily --json --offline`, keyed `<date> <model>`. */
async function ccusageCodex(env: Record<string, string>): Promise<Map<string, DayModel>> {
  if (typeof ccusage === "string") throw new Error(ccusage);
  const json = await output(ccusage.bin, ["codex", "daily", "--json", "--offline"], env) as {
    daily: { date: string; models: Record<string, DayModel> }[];
  };
  const days = new Map<string, DayModel>();
  for (const day of json.daily) {
    for (const [model, part] of Object.entries(day.models)) {
      days.set(`${day.date} ${model}`, {
        inputTokens: part.inputTokens!,
        outputTokens: part.outputTokens!,
        cacheCreationTokens: part.cacheCreationTokens!,
        cacheReadTokens: part.cacheReadTokens!,
        reasoningOutputTokens: part.reasoningOutputTokens!,
      });
    }
  }
  return days;
}

/** A Claude Code home whose projects are the corpus's (a link: read in place). */
async function claudeHome(base: string): Promise<string> {
  const home = join(base, "claude");
  await Deno.mkdir(home);
  await Deno.symlink(join(CORPUS, "claude", "projects"), join(home, "projects"));
  return home;
}

/**
 * A Codex home holding the corpus's rollouts, each copied to where Codex writes it:
 * `sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`, from its `session_meta`.
 */
async function codexHome(base: string): Promise<string> {
  const home = join(base, "codex");
  for await (const entry of Deno.readDir(join(CORPUS, "codex"))) {
    if (!entry.name.endsWith(".jsonl")) continue;
    const text = await Deno.readTextFile(join(CORPUS, "codex", entry.name));
    const meta = JSON.parse(text.slice(0, text.indexOf("\n"))).payload;
    const stamp = (meta.timestamp as string).slice(0, 19).replaceAll(":", "-");
    const [day] = stamp.split("T");
    const folder = join(home, "sessions", ...day!.split("-"));
    await Deno.mkdir(folder, { recursive: true });
    await Deno.writeTextFile(join(folder, `rollout-${stamp}-${meta.id}.jsonl`), text);
  }
  return home;
}

for (const tz of ["UTC", "Asia/Kolkata"]) {
  Deno.test({
    ...needing(
      `usage daily --json: the same tokens per day and model as ccusage claude daily on the corpus (TZ=${tz})`,
      MISSING,
    ),
    async fn() {
      const base = await Deno.makeTempDir({ prefix: "turnlog-usage-ccusage-" });
      try {
        const env = {
          TZ: tz,
          CLAUDE_CONFIG_DIR: await claudeHome(base),
          HOME: base,
          TURNLOG_CATALOG: join(base, "catalog.sqlite"),
        };
        const theirs = await ccusageClaude(env);
        assertEquals(theirs.size > 10, true, "ccusage found the corpus");
        assertEquals(await ours("--claude", env), theirs, "cold: the catalog built");
        assertEquals(await ours("--claude", env), theirs, "warm: the folded count kept");
      } finally {
        await Deno.remove(base, { recursive: true });
      }
    },
  });

  Deno.test({
    ...needing(
      `usage daily --json: the same tokens per day and model as ccusage codex daily on the corpus (TZ=${tz})`,
      MISSING,
    ),
    async fn() {
      const base = await Deno.makeTempDir({ prefix: "turnlog-usage-ccusage-" });
      try {
        const env = {
          TZ: tz,
          CODEX_HOME: await codexHome(base),
          HOME: base,
          TURNLOG_CATALOG: join(base, "catalog.sqlite"),
        };
        const theirs = await ccusageCodex(env);
        assertEquals(theirs.size >= 2, true, "ccusage found the corpus");
        assertEquals(await ours("--codex", env), theirs, "cold: the catalog built");
        assertEquals(await ours("--codex", env), theirs, "warm: the folded count kept");
      } finally {
        await Deno.remove(base, { recursive: true });
      }
    },
  });
}

Deno.test({
  ...needing(
    "usage daily --json leaves out a .jsonl in CODEX_HOME/sessions that Codex did not name rollout-*, which ccusage codex daily counts: only Codex's own rollouts are its sessions",
    MISSING,
  ),
  async fn() {
    const base = await Deno.makeTempDir({ prefix: "turnlog-usage-ccusage-" });
    try {
      const home = join(base, "codex");
      const folder = join(home, "sessions", "2026", "06", "05");
      await Deno.mkdir(folder, { recursive: true });
      // The file as the corpus has it, under a name Codex never gives a rollout.
      await Deno.copyFile(
        join(CORPUS, "codex", "agent-history-session-01.jsonl"),
        join(folder, "agent-history-session-01.jsonl"),
      );
      const env = {
        TZ: "UTC",
        CODEX_HOME: home,
        HOME: base,
        TURNLOG_CATALOG: join(base, "catalog.sqlite"),
      };
      const theirs = await ccusageCodex(env);
      assertEquals([...theirs.keys()], ["2026-06-05 gpt-5.5"]);
      assertEquals((await ours("--codex", env)).size, 0);
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
