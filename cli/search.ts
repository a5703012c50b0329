/**
 * `deno task search`: finds sessions by what was said in them, across turnlog's store and the
 * other tools' homes. A thin shell over src/search.
 *
 * @module
 */
import { errorMessage, outcomeOf } from "../src/errors/mod.ts";
import {
  catalogFolders,
  hitRecords,
  renderSession,
  type SearchEvent,
  searchSessions,
  searchSources,
  type SessionCommands,
  type SessionDates,
  type SessionSummary,
} from "../src/search/mod.ts";
// The homes and the store's names, not the faces: a search answered from the catalog loads no
// reader and no store.
import { foreignToolsInWords, TOOL_HOMES } from "../src/formats/homes.ts";
import { storeName } from "../src/store/_spec.ts";
import { openCatalog, updateCatalogOf } from "./_catalog.ts";
import { plural, shellQuote } from "../src/text/mod.ts";
import { parseFlags, parsePositiveInt, UsageError } from "./_args.ts";
import {
  DEFAULT_SESSIONS_WORDS,
  restoreThenResumeCommand,
  resumeCommand,
  TASK,
} from "./_commands.ts";
import {
  endsWhenDone,
  runAsProcess,
  stderr as toStderr,
  stdout as toStdout,
  type Write,
} from "./_output.ts";
import { HOME_FLAGS, homeFlagsHelp, homeFlagsSet } from "./_homes.ts";
import { hintFor } from "./_voice.ts";

const HOME_NAMES = TOOL_HOMES.map((home) => `--${home.flag}`).join(", ");

/** The help text (made when asked for: its words and wrapped lines cost every search's start). */
export function help(): string {
  return `Usage: ${TASK} search [options] <word | "a phrase">...

Finds sessions by what was said in them: the user's and the assistant's text, tool call
inputs, tool outputs and compaction summaries (not metadata, progress, hook or snapshot
lines). A line matches when it holds every word and phrase, case-insensitively; a subagent's
lines belong to its session. Searches turnlog's store and the ${foreignToolsInWords("and")}
homes, or only the places the options name.

Shows the sessions by their own start, newest first (those that name none last): each
one's short id, tool, working directory, start (from its records) and first prompt; its hits
with the turn, the line, who said it and the match marked; then the command that opens it
and the one that continues it. The first search builds the catalog's full-text index (on a
terminal it says so, with files and MB): later ones answer from it.

Options:
  --regex PATTERN      Search for a regular expression (case-insensitive, matched in time
                       linear in the line; no lookahead or backreferences) instead of
                       words: every line is then parsed, which is slower (no catalog)
  --no-catalog         Read every file, not the catalog's full-text index (TURNLOG_CATALOG
                       moves the catalog; words shorter than 3 characters alone scan too)
${homeFlagsHelp((adapter) => `${adapter.shortTool}'s sessions: ${adapter.home.described}`)}
  --sessions-dir DIR   A folder of sessions: turnlog's, a ${foreignToolsInWords()} root or home
                       (may be given more than once)
  --store STORE        turnlog's store: a sessions folder or postgres://user:password@
                       host:port/db (default: $TURNLOG_STORE, else $TURNLOG_SESSIONS_DIR,
                       else ${DEFAULT_SESSIONS_WORDS})
  --limit N            Sessions shown at most (default 20)
  --since DATE         Only sessions whose last date is on or after DATE (2026-02-23, or an
                       ISO time), by the dates their records name (the catalog's), not
                       their files' times (with --no-catalog or --regex: their last write)
  --until DATE         Only sessions that started on or before DATE (a day: its end)
  --project TEXT       Only sessions whose working directory holds TEXT
  --json               One JSON record per hit, a line each: {path, line, turn, role,
                       sessionId, format, snippet, marks, session, open, continue, ...}
  -h, --help           Show this help

Without ${HOME_NAMES}, --sessions-dir or --store, every place is searched. A file that
cannot be read, or a line that is not JSON, is skipped with one line on stderr saying so.

Exit codes: 0 sessions found; 1 none found; 2 the command cannot work as given (usage, a
folder that is not there).
`;
}

function parseSearchArgs(args: string[]) {
  const { values, positionals } = parseFlags(args, {
    regex: { type: "string" },
    "no-catalog": { type: "boolean" },
    ...HOME_FLAGS,
    "sessions-dir": { type: "string", multiple: true },
    store: { type: "string" },
    limit: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    project: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return { values, positionals, since: undefined, until: undefined, limit: 20 };
  if (values.regex !== undefined && positionals.length > 0) {
    throw new UsageError("--regex takes the pattern: give no words with it");
  }
  if (values.regex === undefined && positionals.length === 0) {
    throw new UsageError(`Nothing to search for: give a word, e.g. ${TASK} search tokenizer`);
  }
  const since = values.since === undefined ? undefined : parseDate("since", values.since);
  const until = values.until === undefined ? undefined : parseDate("until", values.until);
  const limit = parsePositiveInt("limit", values.limit) ?? 20;
  return { values, positionals, since, until, limit };
}

/** A date or an ISO time; a day given alone is its start for --since and its end for --until. */
function parseDate(flag: "since" | "until", text: string): Date {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const time = flag === "since" ? "T00:00:00Z" : "T23:59:59.999Z";
  const date = new Date(day ? `${text}${time}` : text);
  if (Number.isNaN(date.getTime())) {
    throw new UsageError(`Invalid --${flag} "${text}": expected a date like 2026-02-23`);
  }
  return date;
}

/** The commands that open and continue a session, with the flags that name its source. */
export function commandsFor(session: SessionSummary): SessionCommands {
  const flags = session.source.flags.map(shellQuote);
  const open = [TASK, "inspect", ...flags, session.shortId].join(" ");
  // A turnlog session only in the archive is restored first: resumed in the archive's view, it
  // would be appended to a cache.
  const next = session.continuedBy !== "resume"
    ? [TASK, "import", ...flags, session.shortId].join(" ")
    : session.source.archived
    ? restoreThenResumeCommand(session.shortId)
    : resumeCommand({ prefix: session.shortId, root: storeName(session.source.root) });
  return { open, continue: next };
}

function describe(terms: string[], regex: string | undefined): string {
  return regex === undefined
    ? terms.map((term) => JSON.stringify(term)).join(" and ")
    : `the pattern ${JSON.stringify(regex)}`;
}

/** Where the command writes. */
export interface SearchIo {
  out: Write;
  err: Write;
  /** Colour the text view. @default {false} */
  color?: boolean;
}

/** Prints one event; returns the hits it printed. */
function printEvent(event: SearchEvent, json: boolean, io: SearchIo): number {
  if (event.kind === "skipped") {
    const where = event.line === null ? event.path : `${event.path}:${event.line}`;
    io.err(`turnlog search: ${where}: ${event.reason}\n`);
    return 0;
  }
  if (event.kind === "limit") return 0;
  const commands = commandsFor(event.session);
  io.out(
    json
      ? hitRecords(event.session, event.hits, commands)
      : renderSession(event.session, event.hits, commands, { color: io.color === true }),
  );
  return event.hits.length;
}

/** Runs the command, writing to `io`; returns the exit code. */
export async function main(args: string[], io: SearchIo): Promise<number> {
  const { values, positionals, since, until, limit } = parseSearchArgs(args);
  if (values.help) {
    io.out(help());
    return 0;
  }
  const sources = await searchSources({
    homes: homeFlagsSet(values),
    sessionsDirs: values["sessions-dir"],
    store: values.store,
  });
  const query = values.regex === undefined ? { terms: positionals } : { regex: values.regex };
  // The catalog answers words; a pattern, or --no-catalog, reads every file.
  using catalog = openCatalog("search", values["no-catalog"] || values.regex !== undefined);
  let dates: Map<string, SessionDates> | undefined;
  if (catalog !== undefined) {
    const folders = catalogFolders(sources);
    await updateCatalogOf("search", catalog, folders, { text: true });
    // --since and --until by the sessions' own dates, as the catalog holds them.
    if (since !== undefined || until !== undefined) {
      dates = new Map(catalog.sessions(folders).map((s) => [s.path, s]));
    }
  }
  let sessions = 0;
  let hits = 0;
  let more = false;
  const options = {
    sources,
    limit,
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    ...(dates ? { dates: (path: string) => dates.get(path) } : {}),
    // The update walked the homes: the search takes its sessions, not a walk of its own.
    ...(catalog ? await catalog.searchOptions() : {}),
  };
  const project = values.project === undefined ? {} : { project: values.project };
  for await (const event of searchSessions(query, { ...options, ...project })) {
    if (event.kind === "session") sessions++;
    if (event.kind === "limit") more = true;
    hits += printEvent(event, values.json === true, io);
  }
  const what = describe(positionals, values.regex);
  if (sessions === 0) {
    io.err(`turnlog search: No session holds ${what}\n`);
    return 1;
  }
  if (!values.json) {
    const tail = more ? ` (the newest ${limit}: --limit for more)` : "";
    io.out(`${plural(sessions, "session")}, ${plural(hits, "hit")} of ${what}${tail}\n`);
  }
  return 0;
}

/**
 * Runs the command as the shell does: output to `io.out`, an error as one message and a hint
 * to `io.err` (never a stack trace); returns the exit code.
 */
export async function run(
  args: string[],
  io: SearchIo = { out: toStdout, err: toStderr, color: useColor() },
): Promise<number> {
  try {
    return await main(args, io);
  } catch (error) {
    const hint = hintFor("search", error);
    io.err(`turnlog search: ${errorMessage(error)}\n${hint === undefined ? "" : `${hint}\n`}`);
    return outcomeOf(error).exitCode;
  }
}

/** Colour on a terminal, never with NO_COLOR set. */
function useColor(): boolean {
  return Deno.stdout.isTerminal() && !Deno.noColor;
}

/** The command as a shell (or the `turnlog` command) runs it; returns the exit code. */
export async function cli(args: string[]): Promise<number> {
  const code = await run(args);
  // Its hits are written and its catalog closed: nothing of it runs on.
  endsWhenDone();
  return code;
}

if (import.meta.main) await runAsProcess(cli);
