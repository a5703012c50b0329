/**
 * `turnlog usage` (`./denow task usage`): tokens and cost per day, month, session, project or
 * model, across turnlog's store and the other tools' homes, as the tools count them. A thin
 * shell over src/usage. A warm run (nothing changed since the last one with the same places)
 * loads only what answers it from the catalog (`warmUsage`): the readers, the formats'
 * registry and the walk are loaded when something changed.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { late } from "../src/_late.ts";
import { archiveLayoutModule, formatsModule } from "./_late_modules.ts";
import { errorMessage, outcomeOf } from "../src/errors/mod.ts";
import { namedCatalogPath } from "../src/catalog/_named.ts";
import type { CollectedUsage } from "../src/usage/_collect.ts";
import {
  parseDay,
  USAGE_REPORT_KINDS,
  usageJson,
  usageReport,
  type UsageReportKind,
  type UsageReportOptions,
} from "../src/usage/_report.ts";
import { renderUsage } from "../src/usage/_render.ts";
import { PRICE_TABLE } from "../src/usage/_table.ts";
import { type UsageQuestion, warmUsage } from "../src/usage/_warm.ts";
import { runAsProcess, stderr as toStderr, stdout as toStdout, type Write } from "./_output.ts";

/** The help text (the homes' flags from the formats' registry, loaded for it). */
async function helpText(): Promise<string> {
  const { foreignToolsInWords } = await formatsModule();
  const { homeFlagsHelp } = await late<typeof import("./_homes.ts")>(
    "./_homes.ts",
    import.meta.url,
  );
  const { DEFAULT_SESSIONS_WORDS, TASK } = await late<typeof import("./_commands.ts")>(
    "./_commands.ts",
    import.meta.url,
  );
  const { NO_CATALOG_HELP } = await late<typeof import("./_catalog.ts")>(
    "./_catalog.ts",
    import.meta.url,
  );
  return `Usage: ${TASK} usage [daily|monthly|session|project|model] [options]

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
  --store STORE        turnlog's store: a folder or a postgres:// URL, whose sessions are
                       counted each time (default: $TURNLOG_STORE, else
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
each file's usage: a later run reads only the files that changed, and one where no folder or
file under the places changed answers from the count it kept. A file that cannot be read is
skipped with one line on stderr saying so.

Exit codes: 0 done (also when nothing was used); 2 the command cannot work as given (usage, a
folder that is not there).
`;
}

/** Where the command writes. */
export interface UsageIo {
  out: Write;
  err: Write;
}

/** What a report asks beside its places. */
interface Asked {
  kind: UsageReportKind;
  options: UsageReportOptions;
  json: boolean;
}

const REPORT_VALUES = new Set(["--since", "--until", "--project"]);
const PLACE_VALUES = new Set(["--sessions-dir", "--store"]);

/**
 * The arguments read for a warm answer: the report asked, and the places as given (what the
 * count was kept under); undefined for anything a warm answer does not take (help, no catalog,
 * a flag repeated, a value that is not one), which the whole command then reads.
 */
function warmArgs(args: readonly string[]): { asked: Asked; places: string[] } | undefined {
  const places: string[] = [];
  const values = new Map<string, string>();
  const flags = new Set<string>();
  let kind: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("-")) {
      if (kind !== undefined) return undefined;
      kind = arg;
    } else if (REPORT_VALUES.has(arg)) {
      const value = args[++i];
      if (value === undefined || value.startsWith("-") || values.has(arg)) return undefined;
      values.set(arg, value);
    } else if (arg === "--json" || arg === "--breakdown") {
      if (flags.has(arg)) return undefined;
      flags.add(arg);
    } else if (PLACE_VALUES.has(arg)) {
      const value = args[++i];
      if (value === undefined || value.startsWith("-")) return undefined;
      places.push(arg, value);
    } else if (/^--[a-z]+$/.test(arg) && arg !== "--help" && arg !== "--no-catalog") {
      // A home's flag (`--codex`): a count kept under it was counted by the whole command.
      places.push(arg);
    } else return undefined;
  }
  const known = USAGE_REPORT_KINDS.find((k) => k === (kind ?? "daily"));
  const day = (flag: string) => {
    const text = values.get(flag);
    return text === undefined ? undefined : parseDay(text) ?? null;
  };
  const since = day("--since");
  const until = day("--until");
  if (known === undefined || since === null || until === null) return undefined;
  return {
    asked: {
      kind: known,
      options: {
        since,
        until,
        project: values.get("--project"),
        breakdown: flags.has("--breakdown"),
      },
      json: flags.has("--json"),
    },
    places,
  };
}

/** The count kept for the question when nothing changed since, else undefined. */
async function warmCount(question: UsageQuestion): Promise<CollectedUsage | undefined> {
  let path: string;
  try {
    // Named, the catalog is found without node:path (tens of milliseconds of a start).
    path = namedCatalogPath() ??
      (await late<typeof import("../src/catalog/_location.ts")>(
        "../src/catalog/_location.ts",
        import.meta.url,
      )).resolveCatalogPath();
  } catch {
    return undefined;
  }
  try {
    Deno.statSync(path);
  } catch {
    return undefined;
  }
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { timeout: 5000 });
    return warmUsage(db, question);
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

function answer(collected: CollectedUsage, asked: Asked, io: UsageIo): number {
  for (const skip of collected.skipped) io.err(`turnlog usage: ${skip.path}: ${skip.reason}\n`);
  const report = usageReport(collected.rows, asked.kind, asked.options);
  if (asked.json) {
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

/** Runs `work` noting each environment variable it reads, and their values after. */
async function readingEnv<T>(work: () => Promise<T>): Promise<[T, Record<string, string | null>]> {
  const names = new Set<string>();
  const env = Deno.env;
  const { get, has } = env;
  env.get = (name: string) => (names.add(name), get.call(env, name));
  env.has = (name: string) => (names.add(name), has.call(env, name));
  let result: T;
  try {
    result = await work();
  } finally {
    env.get = get;
    env.has = has;
  }
  const values: Record<string, string | null> = {};
  for (const name of [...names].sort()) values[name] = get.call(env, name) ?? null;
  return [result, values];
}

async function main(args: string[], io: UsageIo): Promise<number> {
  const warm = warmArgs(args);
  const question = warm && { places: warm.places, cwd: Deno.cwd() };
  const kept = question && await warmCount(question);
  if (kept !== undefined && warm !== undefined) return answer(kept, warm.asked, io);
  return await wholeCommand(args, io, question);
}

/** The command as a whole: the places found, the catalog brought up to date, the report. */
async function wholeCommand(
  args: string[],
  io: UsageIo,
  question: UsageQuestion | undefined,
): Promise<number> {
  const { parseFlags, UsageError } = await late<typeof import("./_args.ts")>(
    "./_args.ts",
    import.meta.url,
  );
  const { HOME_FLAGS, homeFlagsSet } = await late<typeof import("./_homes.ts")>(
    "./_homes.ts",
    import.meta.url,
  );
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
    io.out(await helpText());
    return 0;
  }
  const dayFlag = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const day = parseDay(text);
    if (day === undefined) {
      throw new UsageError(
        `Invalid --${name} "${text}": expected a day like 20260223 or 2026-02-23`,
      );
    }
    return day;
  };
  if (positionals.length > 1) {
    throw new UsageError(`One report at a time: got ${positionals.join(" ")}`);
  }
  const kind = USAGE_REPORT_KINDS.find((k) => k === (positionals[0] ?? "daily"));
  if (kind === undefined) {
    throw new UsageError(`No report "${positionals[0]}": ${USAGE_REPORT_KINDS.join(", ")}`);
  }
  const since = dayFlag("since", values.since);
  const until = dayFlag("until", values.until);
  const { searchSources } = await late<typeof import("../src/search/mod.ts")>(
    "../src/search/mod.ts",
    import.meta.url,
  );
  const named = {
    homes: homeFlagsSet(values),
    sessionsDirs: values["sessions-dir"],
    store: values.store,
  };
  // The variables the places are found from are noted: a warm run asks them again.
  const [[sources, paths], env] = await readingEnv(async () =>
    [await searchSources(named), await toldFrom(named)] as const
  );
  // The catalog keeps each file's usage: a warm run reads only what changed.
  const { openCatalog } = await late<typeof import("./_catalog.ts")>(
    "./_catalog.ts",
    import.meta.url,
  );
  const { collectCatalogUsage, collectUsage } = await late<typeof import("../src/usage/mod.ts")>(
    "../src/usage/mod.ts",
    import.meta.url,
  );
  const catalog = openCatalog("usage", values["no-catalog"]);
  let collected;
  try {
    collected = catalog === undefined
      ? await collectUsage({ sources, fold: true })
      : await collectCatalogUsage(catalog, sources, {
        question: question && { question, env, paths },
      });
  } finally {
    catalog?.close();
  }
  return answer(collected, {
    kind,
    options: { since, until, project: values.project, breakdown: values.breakdown === true },
    json: values.json === true,
  }, io);
}

/**
 * The paths the places were told from beyond their roots: each named folder (what it holds
 * tells its format), and with nothing named the archive's index (sessions only in the archive
 * are among the places once it is there).
 */
async function toldFrom(
  named: { homes: string[]; sessionsDirs: string[] | undefined; store: string | undefined },
): Promise<string[]> {
  const dirs = named.sessionsDirs ?? [];
  if (named.homes.length > 0 || dirs.length > 0 || named.store !== undefined) return dirs;
  const { archiveLayout, resolveArchiveRoot } = await archiveLayoutModule();
  try {
    return [archiveLayout(resolveArchiveRoot()).index];
  } catch {
    // No archive can be found (no HOME): none is among the places.
    return [];
  }
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
    const { hintFor } = await late<typeof import("./_voice.ts")>("./_voice.ts", import.meta.url);
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
