/**
 * `turnlog usage` (`./denow task usage`): tokens and cost per day, month, session, project or
 * model, across turnlog's store and the other tools' homes, as the tools count them. A thin
 * shell over src/usage.
 *
 * @module
 */
import { errorMessage, outcomeOf } from "../src/errors/mod.ts";
import { foreignToolsInWords } from "../src/formats/mod.ts";
import { searchSources } from "../src/search/mod.ts";
import {
  collectCatalogUsage,
  collectUsage,
  parseDay,
  PRICE_TABLE,
  renderUsage,
  USAGE_REPORT_KINDS,
  usageJson,
  usageReport,
  type UsageReportKind,
} from "../src/usage/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { DEFAULT_SESSIONS_WORDS, TASK } from "./_commands.ts";
import { runAsProcess, stderr as toStderr, stdout as toStdout, type Write } from "./_output.ts";
import { HOME_FLAGS, homeFlagsHelp, homeFlagsSet } from "./_homes.ts";
import { hintFor } from "./_voice.ts";
import { NO_CATALOG_HELP, openCatalog } from "./_catalog.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} usage [daily|monthly|session|project|model] [options]

Tokens and their cost per day (the default), month, session, project or model, across
turnlog's store and the ${foreignToolsInWords("and")} homes, or only the places the options
name. Tokens are counted as each tool counts them: a Claude Code response written over
several lines once (by message id and request id), Codex's token_count events as Codex totals
them, Gemini's tokens once per message; a subagent's tokens count with its session. Input is
the prompt tokens not read from a cache nor written to one; days are the local time zone's
(TZ), as ccusage groups them.

Costs come from the price table ${PRICE_TABLE} (offline, pinned), or from the
tool's own figure where it wrote one (Claude Code's cost-state); the report says which. A model
with no price is shown as unpriced, never as $0, and listed once at the end.

Options:
${homeFlagsHelp((adapter) => `${adapter.shortTool}'s sessions: ${adapter.home.described}`)}
  --sessions-dir DIR   A folder of sessions: turnlog's, a ${foreignToolsInWords()} root or home
                       (may be given more than once)
  --store STORE        turnlog's store folder (default: $TURNLOG_STORE, else
                       $TURNLOG_SESSIONS_DIR, else ${DEFAULT_SESSIONS_WORDS})
  --since DAY          Only responses on or after DAY (20260223 or 2026-02-23, local time)
  --until DAY          Only responses on or before DAY
  --project TEXT       Only sessions whose working directory holds TEXT
  --breakdown          Each row's models apart
${NO_CATALOG_HELP}
  --json               The report as JSON, with ccusage's field names: {daily|monthly|sessions|
                       projects|models: [{date|month|sessionId|project|model, inputTokens,
                       outputTokens, cacheCreationTokens, cacheReadTokens,
                       reasoningOutputTokens, totalTokens, totalCost, modelsUsed,
                       modelBreakdowns?, unpricedModels, costSources, ...}], totals,
                       unpricedModels, priceTable}
  -h, --help           Show this help

Without the home flags, --sessions-dir or --store, every place is read. The catalog keeps
each file's usage: a later run reads only the files that changed. A file that cannot be
read is skipped with one line on stderr saying so.

Exit codes: 0 done (also when nothing was used); 2 the command cannot work as given (usage, a
folder that is not there).
`;

/** Where the command writes. */
export interface UsageIo {
  out: Write;
  err: Write;
}

function dayFlag(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const day = parseDay(text);
  if (day === undefined) {
    throw new UsageError(`Invalid --${name} "${text}": expected a day like 20260223 or 2026-02-23`);
  }
  return day;
}

function kindOf(positionals: string[]): UsageReportKind {
  if (positionals.length > 1) {
    throw new UsageError(`One report at a time: got ${positionals.join(" ")}`);
  }
  const kind = positionals[0] ?? "daily";
  const known = USAGE_REPORT_KINDS.find((k) => k === kind);
  if (known === undefined) {
    throw new UsageError(`No report "${kind}": ${USAGE_REPORT_KINDS.join(", ")}`);
  }
  return known;
}

async function main(args: string[], io: UsageIo): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    ...HOME_FLAGS,
    "sessions-dir": { type: "string", multiple: true },
    store: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    project: { type: "string" },
    breakdown: { type: "boolean" },
    json: { type: "boolean" },
    "no-catalog": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.out(HELP);
    return 0;
  }
  const kind = kindOf(positionals);
  const since = dayFlag("since", values.since);
  const until = dayFlag("until", values.until);
  const sources = await searchSources({
    homes: homeFlagsSet(values),
    sessionsDirs: values["sessions-dir"],
    store: values.store,
  });
  // The catalog keeps each file's usage: a warm run reads only what changed.
  const catalog = openCatalog("usage", values["no-catalog"]);
  let collected;
  try {
    collected = catalog === undefined
      ? await collectUsage({ sources, fold: true })
      : await collectCatalogUsage(catalog, sources);
  } finally {
    catalog?.close();
  }
  for (const skip of collected.skipped) io.err(`turnlog usage: ${skip.path}: ${skip.reason}\n`);
  const report = usageReport(collected.rows, kind, {
    since,
    until,
    project: values.project,
    breakdown: values.breakdown === true,
  });
  if (values.json) {
    const about = { priceTable: PRICE_TABLE, toolCosts: collected.toolCosts };
    io.out(`${JSON.stringify(usageJson(report, about), null, 2)}\n`);
  } else {
    io.out(renderUsage(report, {
      toolCosts: collected.toolCosts.length,
      toolCostSources: collected.toolCostSources,
    }));
  }
  return 0;
}

/**
 * Runs the command as the shell does: output to `io.out`, an error as one message and a hint
 * to `io.err` (never a stack trace); returns the exit code.
 */
export async function run(
  args: string[],
  io: UsageIo = { out: toStdout, err: toStderr },
): Promise<number> {
  try {
    return await main(args, io);
  } catch (error) {
    const hint = hintFor("usage", error);
    io.err(`turnlog usage: ${errorMessage(error)}\n${hint === undefined ? "" : `${hint}\n`}`);
    return outcomeOf(error).exitCode;
  }
}

/** The command as a shell (or the `turnlog` command) runs it; returns the exit code. */
export function cli(args: string[]): Promise<number> {
  return run(args);
}

if (import.meta.main) await runAsProcess(cli);
