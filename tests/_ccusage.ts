/**
 * ccusage and `usage` run side by side, for the tests that hold `usage daily --json` to ccusage
 * 20.0.24 (on the corpus, and on homes the real tools wrote): each command run in a clean
 * environment, its JSON read into tokens per `<date> <model>`.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals } from "./_assert.ts";
import { CCUSAGE, installedRealClient, type RealClient } from "../testing/real_clients/install.ts";

/** Deno's cache, for a `deno run` under another HOME (its npm packages are there). */
const DENO_DIR = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno");
const USAGE = fileURLToPath(new URL("../cli/usage.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** ccusage as installed (`./denow task real-clients --install`), or why it is not. */
export const ccusage: RealClient | string = installedRealClient(CCUSAGE);

/** Tokens of one day and model, as both tools name them. */
export type Tokens = Record<string, number>;

/** The token fields both count for every tool. */
const FIELDS = ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens"];

/** The fields compared of a row: the four, and `more` (`reasoningOutputTokens` for Codex). */
const pick = (part: Tokens, more: readonly string[]): Tokens =>
  Object.fromEntries([...FIELDS, ...more].map((field) => [field, part[field] ?? -1]));

/** The fields a tool's rows are compared on besides the four. */
const moreOf = (tool: "claude" | "codex") => tool === "codex" ? ["reasoningOutputTokens"] : [];

/** Runs `command` with `env` alone (and PATH), and parses what it printed as JSON. */
export async function runJson(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<unknown> {
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

/**
 * `ccusage <tool> daily --json --offline` of the homes `env` names, keyed `<date> <model>`
 * (Claude Code's report breaks a day down by model, Codex's names its models).
 */
export async function ccusageDaily(
  tool: "claude" | "codex",
  env: Record<string, string>,
): Promise<Map<string, Tokens>> {
  if (typeof ccusage === "string") throw new Error(ccusage);
  const json = await runJson(ccusage.bin, [tool, "daily", "--json", "--offline"], env) as {
    daily: {
      date: string;
      modelBreakdowns?: (Tokens & { modelName: string })[];
      models?: Record<string, Tokens>;
    }[];
  };
  const days = new Map<string, Tokens>();
  for (const day of json.daily) {
    const parts = tool === "claude"
      ? (day.modelBreakdowns ?? []).map((part) => [part.modelName, part] as const)
      : Object.entries(day.models ?? {});
    for (const [model, part] of parts) days.set(`${day.date} ${model}`, pick(part, moreOf(tool)));
  }
  return days;
}

/** What `usage daily --json` says besides its days: its totals and the tools' own costs. */
export interface UsageOut {
  totals: Record<string, number | null>;
  toolCosts: unknown[];
}

/**
 * `usage daily --json --breakdown --<tool>` of the homes `env` names (its catalog in
 * `TURNLOG_CATALOG`, else beside `HOME`), keyed `<date> <model>`, with its whole JSON.
 */
export async function usageDaily(
  tool: "claude" | "codex",
  env: Record<string, string>,
): Promise<{ days: Map<string, Tokens>; out: UsageOut }> {
  const out = await runJson(Deno.execPath(), [
    "run",
    `--config=${CONFIG}`,
    "--allow-read",
    "--allow-env",
    "--allow-write",
    USAGE,
    "daily",
    "--json",
    "--breakdown",
    `--${tool}`,
  ], {
    TURNLOG_CATALOG: join(env.HOME ?? "/tmp", "turnlog-usage-catalog.sqlite"),
    ...env,
    DENO_DIR,
  }) as { daily: { date: string; modelBreakdowns: (Tokens & { modelName: string })[] }[] };
  const days = new Map<string, Tokens>();
  for (const day of out.daily) {
    for (const part of day.modelBreakdowns) {
      days.set(`${day.date} ${part.modelName}`, pick(part, moreOf(tool)));
    }
  }
  return { days, out: out as unknown as UsageOut };
}
