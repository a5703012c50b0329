/**
 * `usage daily --json` against ccusage 20.0.24 on homes the real tools wrote: the pinned Claude
 * Code and Codex CLI run a session with a tool call and resume it against the embedded model,
 * then both count the home. The same tokens per day and model, and the tool's own totals
 * (Claude Code's `cost-state`, Codex's last `token_count`) agree with `usage`'s.
 */
import { join } from "node:path";
import { assert, assertEquals } from "../_assert.ts";
import { needing } from "../_needs.ts";
import { ccusage, ccusageDaily, usageDaily } from "../_ccusage.ts";
import {
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

const claude = installedRealClient(CLAUDE_CODE);
const codex = installedRealClient(CODEX);
const why = (...found: (RealClient | string)[]) =>
  found.find((one): one is string => typeof one === "string");

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
    const days = await ccusageDaily("claude", env);
    assert(days.size > 0, "ccusage counted the home");
    const mine = await usageDaily("claude", env);
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
    const days = await ccusageDaily("codex", env);
    assert(days.size > 0, "ccusage counted the home");
    const mine = await usageDaily("codex", env);
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
    const mine = await usageDaily("claude", { HOME: home.home, TZ: "UTC" });
    assertEquals(mine.out.toolCosts.length, 1);
    const state = JSON.parse(costs.at(-1)!);
    const models = Object.entries(state.modelUsage as Record<string, { costUSD: number }>);
    const mineCost = mine.out.totals.totalCost ?? 0;
    const theirs = models.reduce((sum, [, used]) => sum + used.costUSD, 0);
    assertEquals(Math.round(mineCost * 1e9), Math.round(theirs * 1e9));
  },
});
