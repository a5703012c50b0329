/**
 * `deno task inspect`: shows a session turn by turn (turnlog's own, or another tool's file
 * read through its format's adapter), lists sessions, or repairs a damaged turnlog session file. A thin shell
 * over src/inspect, src/formats and src/resume.
 *
 * @module
 */
import {
  errorKind,
  errorMessage,
  HomeUnsetError,
  outcomeOf,
  TurnlogError,
} from "../src/errors/mod.ts";
import type {
  ForeignListing,
  ForeignSource,
  SessionAdapter,
  ToolStart,
} from "../src/formats/mod.ts";
import type { InspectOptions, RenderOptions } from "../src/inspect/mod.ts";
// A listing of a home answered from the catalog loads no reader: what it needs is imported
// from the files that hold it, not from the faces (the readers, the inspector and the store
// are imported where a session is read).
import { renderForeignListing } from "../src/inspect/_render_listing.ts";
import { toolStartFor } from "../src/formats/_tool_starts.ts";
import { catalogListing } from "../src/catalog/_listing.ts";
import { isPostgresUrl, resolveStoreSpec, storeFromEnvironment } from "../src/store/_spec.ts";
import {
  impliedSessionsRoot,
  resolveSessionsRoot,
  SESSIONS_DIR_ENV,
} from "../src/store/_layout.ts";
import { isPath, parseFlags, parsePositiveInt, UsageError } from "./_args.ts";
import {
  DEFAULT_SESSIONS_WORDS,
  importCommand,
  restoreThenResumeCommand,
  resumeCommand,
  TASK,
} from "./_commands.ts";
import { HOME_FLAGS, homeAdapter, homeFlagsHelp, oneRootAtMost } from "./_homes.ts";
import { archivedRootOf, findArchivedSession } from "./_archived.ts";
import { openCatalog, updateCatalogOf } from "./_catalog.ts";
import {
  colorFor,
  endsWhenDone,
  printPieces,
  runAsProcess,
  type Sink,
  stderr,
  stderrSink,
  stdoutSink,
  syncWriterTo,
} from "./_output.ts";
import {
  ensurePermissions,
  grantedAll,
  type Need,
  needsOwnCode,
  needsToRead,
  needsToWrite,
} from "./_permissions.ts";
import { hintFor } from "./_voice.ts";
import { shellQuote, visible, visibleJson, wrapWords } from "../src/text/mod.ts";
import { dirname, resolve } from "../src/_path.ts";
import {
  archiveLayoutModule,
  formatsModule,
  htmlModule,
  importModule,
  inspectModule,
  repairModule,
  resumeModule,
  runtimeModule,
  siteModule,
  storeModule,
} from "./_late_modules.ts";
import { late } from "../src/_late.ts";

/** A store's own views (`--export`, a database's sessions), loaded when a store decides. */
const storeViews = () =>
  late<typeof import("./_inspect_store.ts")>("./_inspect_store.ts", import.meta.url);

/**
 * The help text (the registry is loaded for the tools' words only when it is asked for); asked
 * with --repair (`repair --help`), its usage line is the repair command's.
 */
async function help(repair = false): Promise<string> {
  const { ADAPTERS, inWords, rootsInWords } = await formatsModule();
  const usage = repair
    ? `Usage: ${TASK} repair [--write] <id | id prefix | path>  (inspect --repair; options below)`
    : `Usage: ${TASK} inspect [options] [<id | id prefix | path>]`;
  return `${usage}

Shows a session turn by turn: each turn's messages, tool calls paired with their outputs,
synthesized outputs, orphan calls, compaction checkpoints, a table of records per turn,
every problem with its line, and the command that continues the session.
Without an argument (or with --list), lists the sessions, newest first.
${
    wrapWords(
      `Reads turnlog's own files, ${inWords(ADAPTERS.map((a) => `${a.fileNoun}s`), "and")} (the
format is told from the file's first lines); other tools' files are only written by --repair
--write.`,
      92,
    )
  }

Options:
  --list               List sessions (the default without an argument)
  --last               The newest session
  --limit N            Sessions listed (default 25)
  --no-catalog         List another tool's home from its files, not from the catalog (with
                       each session's turns and verdict); TURNLOG_CATALOG moves the catalog
${
    wrapWords(
      `Sessions root (default: $TURNLOG_SESSIONS_DIR, else ${DEFAULT_SESSIONS_WORDS}); ${rootsInWords()} works too`,
      92,
      "  --sessions-dir DIR   ",
      " ".repeat(23),
    )
  }
${homeFlagsHelp((adapter) => `${adapter.shortTool}'s sessions: ${adapter.home.described}`)}
  --store STORE        Where sessions are kept: postgres://user:password@host:port/db or a
                       sessions folder (default: $TURNLOG_STORE, else the sessions root)
  --export FILE        Write the session to FILE as JSONL, each stored record on a line of
                       its own, exactly as stored
  --json               Print one JSON document instead of text: the turns with their
                       counts and outcomes, the findings, the continue command
  --entries            With --json: also every line of each turn (turns[].entries),
                       a document as large as the session's texts
  --full               Show whole texts instead of shortened ones
  --history            Print the model-visible history the next resume would send (after
                       replay and normalization, before the new message), one JSON item
                       a line; writes nothing
  --html FILE          Write the session as one self-contained HTML page to FILE
                       ("-": stdout): the conversation to read (thinking, tool calls
                       and subagents folded), and one link away every line with the
                       findings and charts; no script, nothing fetched, opens offline
  --html --all DIR     Write a static site of every session in DIR (a Claude Code projects
                       folder, a Codex sessions folder, a Gemini tmp folder or a turnlog
                       sessions folder): index.html by project and date, a page per
                       session and subagent, relative links (opens from file://)
  --out SITE           Where --html --all writes the site (default: ./turnlog-site; an
                       older site there is replaced whole, never the folder read)
  --repair             Print what a repair would do (dry run, changes nothing)
  --repair --write     Repair: move bad lines to <file>.quarantine, rewrite the session
                       atomically without them, append the outputs resume would synthesize
                       (a database keeps whole records, with nothing to repair).
                       Another tool's file is repaired in its own shapes: each call without a result gets one saying it was
                       interrupted, a result without its call leaves the branch; every
                       line taken out or changed is kept in <file>.quarantine (close the
                       tool first: a file that changes meanwhile is left as it was)
  -h, --help           Show this help

An argument containing "/" or ending in ".jsonl" is a file path; anything else is a
session id or unique id prefix, looked for in turnlog's store, then (no folder or store
named) in the other tools' homes.

Exit codes: 0 healthy; 1 problems found (or a session in use); 2 the command cannot work
as given (usage, unknown or ambiguous session, unreadable file). With --html: 0 once the
page is written, healthy or not.
`;
}

/** A path argument that names no file. */
class NoSuchFileError extends TurnlogError {
  constructor(path: string, options?: ErrorOptions) {
    super("not_found", `No such session file: ${path}`, options);
    this.name = "NoSuchFileError";
  }
}

type Values = ReturnType<typeof parseInspectArgs>["values"];

/** What a mode handler works with: the flags and where it writes. */
interface Command {
  values: Values;
  out: Sink;
}

/** Whether the arguments ask for the static site (`--html --all DIR`). */
function asksForSite(args: string[]): boolean {
  return args.some((arg) => arg === "--all" || arg.startsWith("--all="));
}

function parseInspectArgs(args: string[]) {
  // `--html --all DIR`: `--html` names no file then, the site goes to --out.
  const site = asksForSite(args);
  const html = args.includes("--html");
  if (site) args = args.filter((arg) => arg !== "--html");
  else if (args.at(-1) === "--html") {
    throw new UsageError('--html needs a file name, or "-" for stdout');
  }
  const parsed = parseFlags(args, {
    list: { type: "boolean" },
    last: { type: "boolean" },
    limit: { type: "string" },
    "no-catalog": { type: "boolean" },
    "sessions-dir": { type: "string" },
    store: { type: "string" },
    export: { type: "string" },
    json: { type: "boolean" },
    entries: { type: "boolean" },
    full: { type: "boolean" },
    history: { type: "boolean" },
    repair: { type: "boolean" },
    write: { type: "boolean" },
    html: { type: "string" },
    all: { type: "string" },
    out: { type: "string" },
    ...HOME_FLAGS,
    help: { type: "boolean", short: "h" },
  });
  const { values, positionals } = parsed;
  if (site) checkSiteFlags(html, values, positionals);
  else if (values.out !== undefined) throw new UsageError("--out only goes with --html --all DIR");
  if (positionals.length > 1) {
    throw new UsageError(
      `Expected one session, got ${positionals.length}: ${positionals.join(" ")}`,
    );
  }
  if (values.write && !values.repair) throw new UsageError("--write only goes with --repair");
  if (values.entries && (!values.json || values.repair)) {
    throw new UsageError("--entries only goes with --json, without --repair");
  }
  if (values.history) {
    for (const flag of ["json", "entries", "repair", "list", "full"] as const) {
      if (values[flag]) throw new UsageError(`--history does not go with --${flag}`);
    }
  }
  if (values.last && (positionals.length > 0 || values.list)) {
    throw new UsageError("--last names the session: give no id, path or --list with it");
  }
  checkHtmlFlags(values);
  oneRootAtMost(values);
  return parsed;
}

/** Another tool's root the flags name (its home flag, or a folder of its sessions), if any. */
async function foreignSourceOf(values: Values): Promise<ForeignSource | undefined> {
  // A home flag names its root from the environment alone; a folder is told by the registry.
  const home = homeAdapter(values);
  if (home !== undefined) return { format: home.name, root: home.home.root(Deno.env) };
  if (values["sessions-dir"] === undefined) return undefined;
  const { foreignSource } = await formatsModule();
  return await foreignSource({ sessionsDir: values["sessions-dir"] });
}

/** The flags that name a foreign root again, for the commands a listing suggests. */
function sourceFlags(values: Values): string | undefined {
  const dir = values["sessions-dir"];
  return dir === undefined ? undefined : `--sessions-dir ${shellQuote(dir)}`;
}

/** How the text views render: colours only on a terminal, never into a captured sink. */
function renderOptions({ values, out }: Command): RenderOptions {
  const full = values.full === true;
  return {
    color: colorFor(out),
    command: TASK,
    ...(full ? { textChars: Number.MAX_SAFE_INTEGER, textLines: Number.MAX_SAFE_INTEGER } : {}),
  };
}

async function list(cmd: Command): Promise<number> {
  const { values, out } = cmd;
  if (values.repair) throw new UsageError("--repair needs a session: an id, a prefix or a path");
  for (const flag of ["html", "history"] as const) {
    if (values[flag] !== undefined) {
      throw new UsageError(`--${flag} needs a session: an id, a prefix or a path`);
    }
  }
  const limit = parsePositiveInt("limit", values.limit) ?? 25;
  const source = await foreignSourceOf(values);
  if (source) {
    using catalog = openCatalog("inspect", values["no-catalog"]);
    const listingOf = async (from: ForeignSource): Promise<ForeignListing> => {
      if (catalog === undefined) {
        const { listForeignSessions } = await formatsModule();
        return await listForeignSessions(from, { limit });
      }
      await updateCatalogOf("inspect", catalog, [from]);
      // The sessions the tool's listing has, as the catalog knows them: the update's walk
      // found them, less those the tool's listing leaves out.
      const { listed } = toolStartFor(from.format);
      const sessions = catalog.listing(from).filter((session) =>
        listed?.(session.id, session.sizeBytes) ?? true
      );
      return catalogListing(from.format, from.root, sessions, limit);
    };
    const listing = await listingOf(source);
    const flags = sourceFlags(values);
    await out(
      values.json
        ? visibleJson(listing, 2) + "\n"
        : renderForeignListing(listing, { ...renderOptions(cmd), ...(flags ? { flags } : {}) }),
    );
    const root = await archivedListed(cmd, source.format);
    if (root !== undefined) {
      const archived = await listingOf({ format: source.format, root });
      const flags = `--sessions-dir ${shellQuote(root)}`;
      if (archived.sessions.length > 0) {
        await out(`\nOnly in the archive (their files are gone; ${TASK} restore <id>):\n`);
        await out(renderForeignListing(archived, { ...renderOptions(cmd), flags }));
      }
    }
    // The listing is written and the catalog closed as this block ends: nothing of it runs on.
    endsWhenDone();
    return 0;
  }
  const { listSessions } = await storeModule();
  const { renderListing } = await inspectModule();
  const { turnlogAdapter } = await formatsModule();
  const listing = await listSessions(resolveSessionsRoot(values["sessions-dir"]), { limit });
  await out(
    values.json ? visibleJson(listing, 2) + "\n" : renderListing(listing, renderOptions(cmd)),
  );
  const root = await archivedListed(cmd, turnlogAdapter.name);
  if (root !== undefined) {
    const archived = await listSessions(root, { limit });
    if (archived.sessions.length > 0) {
      await out(`\nOnly in the archive (their files are gone; ${TASK} restore <id>):\n`);
      await out(renderListing(archived, renderOptions(cmd)));
    }
  }
  return 0;
}

/**
 * The root of the sessions of `format` only in the archive, for a text listing of the home
 * (not of a folder named with --sessions-dir, nor in JSON), or undefined.
 */
function archivedListed({ values }: Command, format: string): Promise<string | undefined> {
  if (values.json || values["sessions-dir"] !== undefined) return Promise.resolve(undefined);
  return archivedRootOf(format);
}

/**
 * An id turnlog's store does not have, looked for in every tool's home as `export` and
 * `import` look (no folder or store named); the store's error when no home has it either.
 */
async function inAnyHome(target: string, missed: unknown, values: Values) {
  if (errorKind(missed) !== "not_found" || values["sessions-dir"] !== undefined || values.store) {
    throw missed;
  }
  const { locateForeignSession } = await importModule();
  const { adapterFor, foreignToolsInWords } = await formatsModule();
  const found = await locateForeignSession(target).catch((error) => {
    if (errorKind(error) !== "not_found" && !(error instanceof HomeUnsetError)) throw error;
    const homes = `${foreignToolsInWords("or", true)} homes`;
    throw new TurnlogError("not_found", `${errorMessage(missed)}, nor in ${homes}`);
  });
  return { path: found.path, root: undefined, adapter: adapterFor(found.source.format) };
}

/** The session file an argument names, and the store it continues from. */
async function locate(
  target: string,
  values: Values,
): Promise<{ path: string; root: string | undefined; adapter?: SessionAdapter }> {
  const explicitRoot = values["sessions-dir"];
  if (!isPath(target)) {
    const { adapterFor, findForeignSession } = await formatsModule();
    const { findSession } = await storeModule();
    const source = await foreignSourceOf(values);
    try {
      if (source) {
        // The adapter that found the file travels with it: the file is not detected again.
        const path = (await findForeignSession(source, target)).path;
        return { path, root: undefined, adapter: adapterFor(source.format) };
      }
      const root = resolveSessionsRoot(explicitRoot);
      return await findSession(root, target).then(
        ({ path }) => ({ path, root }),
        (error) => inAnyHome(target, error, values),
      );
    } catch (error) {
      // A session its home has no more may be in the archive (not for a folder named).
      if (errorKind(error) !== "not_found" || explicitRoot !== undefined) throw error;
      const archived = await findArchivedSession(target, source?.format);
      if (archived === undefined) throw error;
      stderr(
        `turnlog inspect: ${target} is only in the archive (its file is gone): ${TASK} restore ${target} puts it back\n`,
      );
      const { adapter } = archived;
      return { path: archived.path, root: adapter.own ? archived.root : undefined, adapter };
    }
  }
  await Deno.stat(target).catch((error) => {
    throw error instanceof Deno.errors.NotFound ? new NoSuchFileError(target) : error;
  });
  return { path: target, root: explicitRoot };
}

/**
 * `--history`: the model-visible history the next resume would send, one JSON item a line, as
 * it is sent: a call id repeated from an earlier call as the runtime renames it (`<id>~2`).
 */
async function history(path: string, out: Sink): Promise<number> {
  // Imported here, as repair is: the views that do not resume or repair do not load them.
  const { resumeFile } = await resumeModule();
  const { uniqueCallIds } = await runtimeModule();
  const resumed = await resumeFile(path);
  await printPieces(out, uniqueCallIds(resumed.history).map((item) => visibleJson(item) + "\n"));
  return 0;
}

async function repair(path: string, options: InspectOptions, cmd: Command): Promise<number> {
  const { values, out } = cmd;
  const render = renderOptions(cmd);
  const { planFileRepair, renderRepair, repairSession } = await repairModule();
  const { inspectSession } = await inspectModule();
  const { adapterOfFile } = await formatsModule();
  // Told once (or known from the finding): the repair, its plan and its view share it.
  const adapter = options.adapter ?? await adapterOfFile(path);
  if (values.write) {
    const { plan, after, validation } = await repairSession(path, { ...options, adapter });
    const written = plan.refused === null;
    await out(
      values.json
        ? visibleJson({ written, plan, after, validation }, 2) + "\n"
        : renderRepair(plan, { ...render, written, after, validation, adapter }),
    );
    return after.healthy ? 0 : 1;
  }
  const report = await inspectSession(path, { ...options, adapter });
  const plan = await planFileRepair(report, { adapter });
  await out(
    values.json
      ? visibleJson({ written: false, plan }, 2) + "\n"
      : renderRepair(plan, { ...render, written: false, adapter }),
  );
  return report.healthy ? 0 : 1;
}

async function report(path: string, options: InspectOptions, cmd: Command): Promise<number> {
  const { values, out } = cmd;
  const { inspectSession, reportJsonPieces, writeReportText } = await inspectModule();
  if (!values.json) {
    // Turn by turn as the file is read: the view of a large session stays small in memory.
    const writer = syncWriterTo(out);
    const report = await writeReportText(path, {
      ...options,
      render: renderOptions(cmd),
      write: writer.write,
    });
    await writer.done();
    return report.healthy ? 0 : 1;
  }
  // The JSON document carries every line only when asked, so it stays small in memory too.
  const report = await inspectSession(path, { ...options, entries: values.entries === true });
  await printPieces(out, reportJsonPieces(report));
  await out("\n");
  return report.healthy ? 0 : 1;
}

/** `--html --all DIR`: the static site of every session in DIR, written to --out. */
async function site(dir: string, values: Values): Promise<number> {
  // Imported here, as the page is: the other views do not load the charts and markdown.
  const { DEFAULT_SITE_DIR, progressLine, siteWords, writeSite } = await siteModule();
  const target = values.out ?? DEFAULT_SITE_DIR;
  const written = await writeSite(dir, {
    out: target,
    full: values.full === true,
    ...(Deno.stderr.isTerminal() ? { progress: progressLine } : {}),
  });
  stderr(`${siteWords(target, written)}\n`);
  return 0;
}

/** The id of the newest session (turnlog's store, or another tool's root), for `--last`. */
async function newestSession(values: Values): Promise<string> {
  const source = await foreignSourceOf(values);
  if (source) {
    const { listForeignSessions } = await formatsModule();
    const newest = (await listForeignSessions(source, { limit: 1 })).sessions[0];
    if (newest) return newest.id;
    throw new TurnlogError("not_found", `No session in ${source.root} (--last)`);
  }
  const root = resolveSessionsRoot(values["sessions-dir"]);
  const { walkSessions } = await storeModule();
  for await (const location of walkSessions(root)) return location.id;
  throw new TurnlogError("not_found", `No session in ${root} (--last)`);
}

/**
 * Runs `inspect` where a store decides it: `--export`, or a database named by `--store` or
 * `TURNLOG_STORE` (a path still names a file); returns the exit code, or undefined when the
 * files flow runs instead (with `--sessions-dir` set to the folder `--store` or
 * `TURNLOG_STORE` names). Told from the names alone: a listing of a home loads none of the
 * store's views.
 */
async function inspectInStore(
  values: Values,
  target: string | undefined,
  out: Sink,
): Promise<number | undefined> {
  if (values.export === undefined) {
    const spec = resolveStoreSpec({ store: values.store, sessionsDir: values["sessions-dir"] });
    if (!isPostgresUrl(spec)) {
      const named = values.store !== undefined || storeFromEnvironment() !== undefined;
      if (named && values["sessions-dir"] === undefined) values["sessions-dir"] = spec;
      return undefined;
    }
    if (target !== undefined && isPath(target)) return undefined;
  }
  return await (await storeViews()).inspectInStore(values, target, out);
}

/** Runs the command, writing to `out` (stdout by default); returns the exit code. */
export async function main(args: string[], out: Sink = stdoutSink): Promise<number> {
  const { values, positionals } = parseInspectArgs(args);
  const cmd: Command = { values, out };
  if (values.help) {
    await out(await help(values.repair === true));
    return 0;
  }
  if (values.all !== undefined) return await site(values.all, values);
  const inStore = await inspectInStore(values, positionals[0], out);
  if (inStore !== undefined) return inStore;
  const target = values.last ? await newestSession(values) : positionals[0];
  if (target === undefined || values.list) {
    if (target !== undefined) throw new UsageError("--list takes no session argument");
    return await list(cmd);
  }
  const { path, root, adapter } = await locate(target, values);
  const { inArchiveView } = await archiveLayoutModule();
  const { inspectSession, inspectSubagents } = await inspectModule();
  const full = values.full === true;
  const options: InspectOptions = {
    root,
    adapter,
    // A session read from the archive's view is continued once restored, never in the view.
    commandFor: inArchiveView(path)
      ? (point) => restoreThenResumeCommand(point.prefix)
      : resumeCommand,
    importCommandFor: importCommand,
    ...(full ? { textLimit: Number.MAX_SAFE_INTEGER } : {}),
  };
  if (values.history) return await history(path, out);
  if (values.html !== undefined) {
    // Imported here: the page's charts and Markdown (Plot, d3, marked) would cost every other
    // view about 0.1 s and 30 MB to load.
    const { checkHtmlTarget, SESSION_PAGE_INSPECTION, writeHtmlPage } = await htmlModule();
    await checkHtmlTarget(values.html, path);
    const report = await inspectSession(path, { ...options, ...SESSION_PAGE_INSPECTION });
    const subagents = await inspectSubagents(report, SESSION_PAGE_INSPECTION);
    await writeHtmlPage(report, values.html, { full, subagents });
    return 0;
  }
  if (values.repair) return await repair(path, options, cmd);
  return await report(path, options, cmd);
}

/** `--html --all DIR` goes with `--out` and `--full` only, and needs `--html`. */
function checkSiteFlags(
  html: boolean,
  values: Record<string, string | boolean | undefined>,
  positionals: string[],
): void {
  if (!html || values.html !== undefined) {
    throw new UsageError("--all goes with --html alone: inspect --html --all DIR [--out SITE]");
  }
  if (values.all === "") throw new UsageError("--all needs a folder of sessions");
  if (positionals.length > 0) {
    throw new UsageError(`--html --all takes no session argument: ${positionals.join(" ")}`);
  }
  for (const flag of Object.keys(values)) {
    if (!["all", "out", "full", "help"].includes(flag) && values[flag] !== undefined) {
      throw new UsageError(`--html --all does not go with --${flag}`);
    }
  }
}

/** `--html` goes with a session and `--full` only. */
function checkHtmlFlags(values: Record<string, string | boolean | undefined>): void {
  if (values.html === undefined) return;
  for (const flag of ["json", "entries", "repair", "list"]) {
    if (values[flag]) throw new UsageError(`--html does not go with --${flag}`);
  }
  if (values.html === "") throw new UsageError('--html needs a file name, or "-" for stdout');
}

/**
 * What reading the session needs: the sessions folder (or the file and its store) and, without
 * `--sessions-dir`, the variable that may name another folder.
 */
function inspectNeeds(args: string[]): Need[] {
  let parsed;
  try {
    parsed = parseInspectArgs(args);
  } catch {
    return []; // main says what is wrong with the arguments
  }
  const { values, positionals: [target] } = parsed;
  if (values.help) return [];
  if (values.all !== undefined) {
    // The site is written beside --out (a temporary folder renamed into place).
    const out = resolve(values.out ?? "turnlog-site");
    return [...needsToRead([values.all], []), ...needsToWrite([dirname(out)])];
  }
  const dir = values["sessions-dir"];
  if (target !== undefined && isPath(target)) {
    // Another tool's file is read with what lies beside it (Claude Code's subagents); a
    // repair writes beside it too (the sidecar, its temp file).
    const write = values.repair && values.write ? needsToWrite([dirname(target)]) : [];
    return [...needsToRead([dir ?? impliedSessionsRoot(target) ?? dirname(target)], []), ...write];
  }
  const home = homeAdapter(values);
  if (home) return homeNeeds(home, values.repair === true && values.write);
  const store = values.store;
  const variables = dir === undefined && store === undefined ? [SESSIONS_DIR_ENV] : [];
  const folder = dir ?? (store !== undefined && !isPostgresUrl(store) ? store : "sessions");
  return needsToRead([folder], variables);
}

/** The root of a home, or none when nothing names it (HOME unset: the command says so). */
function homeRoot(home: ToolStart): string[] {
  try {
    return [home.home.root(Deno.env)];
  } catch (error) {
    if (error instanceof HomeUnsetError) return [];
    throw error;
  }
}

/**
 * What a home flag (`--codex`, `--claude`) needs: the variables that name the home, then the
 * home (to write in too, for a repair).
 */
function homeNeeds(adapter: ToolStart, write = false): Need[] {
  const variables = [...adapter.home.variables];
  const known = variables.every((variable) =>
    Deno.permissions.querySync({ name: "env", variable }).state === "granted"
  );
  // The folder is known once the variables may be read; Deno asks for it then. With HOME
  // unset there is none: the command says so.
  const root = known ? homeRoot(adapter) : [];
  return [...needsToRead([root].flat(), variables), ...(write ? needsToWrite([root].flat()) : [])];
}

/**
 * Runs the command as the shell does: its output to `io.out`, an error as one message to
 * `io.err` (never a stack trace); returns the exit code.
 */
export async function run(
  args: string[],
  io: { out: Sink; err: Sink } = { out: stdoutSink, err: stderrSink },
): Promise<number> {
  try {
    return await main(args, io.out);
  } catch (error) {
    // Loaded for the words of a failure alone: a command that worked never needs them.
    const { FileChangedError } = await storeModule();
    const { foreignToolsInWords } = await formatsModule();
    const hint = error instanceof FileChangedError
      ? `Close ${foreignToolsInWords()} on that session first, then repair again: ${TASK} inspect ${
        shellQuote(error.path)
      } --repair --write`
      : errorKind(error) === "not_found"
      ? notFoundHint(args)
      : hintFor("inspect", error);
    await io.err(
      `turnlog inspect: ${visible(errorMessage(error))}\n${hint === undefined ? "" : `${hint}\n`}`,
    );
    return outcomeOf(error).exitCode;
  }
}

/**
 * Where to look after a failed lookup: the listing of the same sessions the lookup searched
 * (`--codex` lists Codex's home, `--sessions-dir DIR` that folder), not turnlog's own.
 */
function notFoundHint(args: string[]): string {
  let flags: string[] = [];
  try {
    const { values } = parseInspectArgs(args);
    const home = homeAdapter(values);
    const dir = values["sessions-dir"];
    if (home !== undefined) flags = [`--${home.flag}`];
    else if (dir !== undefined) flags = ["--sessions-dir", shellQuote(dir)];
  } catch {
    // Flags that do not parse named no other sessions: turnlog's own listing.
  }
  return `List the sessions: ${TASK} inspect ${[...flags, "--list"].join(" ")}`;
}

/** The command as the shell runs it (`turnlog inspect`), asking first for what it must read. */
export async function cli(args: string[]): Promise<number> {
  if (grantedAll()) return await run(args);
  const needs = [...inspectNeeds(args), ...needsOwnCode()];
  const allowed = await ensurePermissions("inspect", needs, args);
  return allowed ? await run(args) : 2;
}

if (import.meta.main) await runAsProcess(cli);
