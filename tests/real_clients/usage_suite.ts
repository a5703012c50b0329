/**
 * `usage daily --json` against ccusage 20.0.24 on homes the real tools wrote: the pinned Claude
 * Code and Codex CLI run a session with a tool call and resume it against the embedded model,
 * then both count the home. The same tokens per day and model, and the tool's own totals
 * (Claude Code's `cost-state`, Codex's last `token_count`) agree with `usage`'s.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "../_assert.ts";
import { needing } from "../_needs.ts";
import {
  CCUSAGE,
  CLAUDE_CODE,
  CODEX,
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

/** Deno's cache, for a `deno run` under another HOME (its npm packages are there). */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno");
const USAGE = fileURLToPath(new URL("../../cli/usage.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
const ccusage = installedRealClient(CCUSAGE);
const claude = installedRealClient(CLAUDE_CODE);
const codex = installedRealClient(CODEX);
const why = (...found: (RealClient | string)[]) =>
  found.find((one): one is string => typeof one === "string");

type Tokens = Record<string, number>;

async function json(command: string, args: string[], env: Record<string, string>) {
  const ran = await new Deno.Command(command, {
    args,
    env: { NO_COLOR: "1", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assertEquals(ran.code, 0, new TextDecoder().decode(ran.stderr));
  return JSON.parse(new TextDecoder().decode(ran.stdout));
}

const FIELDS = ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens"];
const pick = (part: Tokens, more: string[] = []): Tokens =>
  Object.fromEntries([...FIELDS, ...more].map((field) => [field, part[field] ?? -1]));

/** `usage daily --json --breakdown <flag>`, keyed `<date> <model>`. */
async function ours(flag: string, env: Record<string, string>, more: string[] = []) {
  const out = await json(Deno.execPath(), [
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
  ], {
    TURNLOG_CATALOG: join(env.HOME ?? "/tmp", "turnlog-usage-catalog.sqlite"),
    ...env,
    DENO_DIR,
  });
  const days = new Map<string, Tokens>();
  for (const day of out.daily) {
    for (const part of day.modelBreakdowns) {
      days.set(`${day.date} ${part.modelName}`, pick(part, more));
    }
  }
  return { days, out };
}

Deno.test({
  ...needing(
    "usage daily --json: the same tokens per day and model as ccusage claude daily on a home the real Claude Code wrote",
    why(ccusage, claude),
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using home = await ClaudeHome.open(claude as RealClient);
    const first = await home.run("run `echo one`");
    assertEquals(first.code, 0, first.stderr);
    const again = await home.run("say done", { resume: first.sessionId });
    assertEquals(again.code, 0, again.stderr);
    const env = { HOME: home.home, TZ: "UTC" };
    const theirs = await json((ccusage as RealClient).bin, [
      "claude",
      "daily",
      "--json",
      "--offline",
    ], env);
    const days = new Map<string, Tokens>();
    for (const day of theirs.daily) {
      for (const part of day.modelBreakdowns) days.set(`${day.date} ${part.modelName}`, pick(part));
    }
    assert(days.size > 0, "ccusage counted the home");
    const mine = await ours("--claude", env);
    assertEquals(mine.days, days);
  },
});

Deno.test({
  ...needing(
    "usage daily --json: the same tokens per day and model as ccusage codex daily on a home the real Codex wrote, adding up to Codex's own total",
    why(ccusage, codex),
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using api = await startCodexApi();
    await using home = await makeCodexHome(codex as RealClient, api);
    const ran = await codexExec(home, "run `echo hi`");
    assertEquals(ran.code, 0, ran.stderr);
    const resumed = await codexResume(home, ran.threadId!, "say done");
    assertEquals(resumed.code, 0, resumed.stderr);
    const env = { CODEX_HOME: home.home, HOME: home.base, TZ: "UTC" };
    const theirs = await json((ccusage as RealClient).bin, [
      "codex",
      "daily",
      "--json",
      "--offline",
    ], env);
    const days = new Map<string, Tokens>();
    for (const day of theirs.daily) {
      for (const [model, part] of Object.entries(day.models as Record<string, Tokens>)) {
        days.set(`${day.date} ${model}`, pick(part, ["reasoningOutputTokens"]));
      }
    }
    assert(days.size > 0, "ccusage counted the home");
    const mine = await ours("--codex", env, ["reasoningOutputTokens"]);
    assertEquals(mine.days, days);
    // Codex's own total: the last token_count's total_token_usage of the rollout.
    const records = await rolloutRecords(await rolloutPath(home, ran.threadId!));
    const counts = records.filter((r) =>
      (r.payload as { type?: string } | undefined)?.type === "token_count" &&
      (r.payload as { info?: unknown }).info
    );
    const total = (counts.at(-1)!.payload as {
      info: { total_token_usage: { total_tokens: number } };
    }).info.total_token_usage.total_tokens;
    assertEquals(mine.out.totals.totalTokens, total);
  },
});

Deno.test({
  ...needing(
    "usage --json: Claude Code's cost-state is the session's cost where the real Claude Code wrote one",
    why(claude),
  ),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using home = await ClaudeHome.open(claude as RealClient);
    const run = await home.run("say one");
    assertEquals(run.code, 0, run.stderr);
    const text = await Deno.readTextFile(join(home.projectDir, `${run.sessionId}.jsonl`));
    const costs = text.split("\n").filter((line) => line.includes('"cost-state"'));
    assert(costs.length > 0, "Claude Code wrote its cost-state");
    const mine = await ours("--claude", { HOME: home.home, TZ: "UTC" });
    assertEquals(mine.out.toolCosts.length, 1);
    const state = JSON.parse(costs.at(-1)!);
    const models = Object.entries(state.modelUsage as Record<string, { costUSD: number }>);
    const mineCost = mine.out.totals.totalCost ?? 0;
    const theirs = models.reduce((sum, [, used]) => sum + used.costUSD, 0);
    assertEquals(Math.round(mineCost * 1e9), Math.round(theirs * 1e9));
  },
});
