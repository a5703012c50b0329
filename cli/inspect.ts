/**
 * `deno task inspect`: shows a session turn by turn, lists sessions, or repairs a damaged
 * session file. A thin shell over src/inspect.ts, src/inspect_render.ts and src/repair.ts.
 *
 * @module
 */
import { TurnlogError } from "../src/errors/mod.ts";
import {
  type InspectOptions,
  inspectSession,
  planFileRepair,
  renderListing,
  type RenderOptions,
  renderRepair,
  renderReport,
  repairSession,
  reportJsonPieces,
} from "../src/inspect/mod.ts";
import { resumeFile } from "../src/resume/mod.ts";
import { parseFlags, parsePositiveInt, UsageError } from "./_args.ts";
import { resumeCommand } from "./_commands.ts";
import { checkHtmlTarget, writeHtmlPage } from "./_html.ts";
import { inspectInStore } from "./_inspect_store.ts";
import { fail } from "./_voice.ts";
import { findSession, listSessions, resolveSessionsRoot } from "../src/store/mod.ts";

const HELP = `Usage: deno task inspect [options] [<id | id prefix | path>]

Shows a session turn by turn: each turn's messages, tool calls paired with their outputs,
synthesized outputs, orphan calls, compaction checkpoints, a table of records per turn,
every problem with its line, and the command that continues the session.
Without an argument (or with --list), lists the sessions, newest first.

Options:
  --list               List sessions (the default without an argument)
  --limit N            Sessions listed (default 25)
  --sessions-dir DIR   Sessions root (default: $TURNLOG_SESSIONS_DIR, else ./sessions)
  --store STORE        Where sessions are kept: postgres://user:password@host:port/db or a
                       sessions folder (default: $TURNLOG_STORE, else the sessions root)
  --export FILE        Write the session to FILE as JSONL, each stored record on a line
                       of its own, exactly as stored
  --json               Print one JSON document instead of text: the turns with their
                       counts and outcomes, the findings, the continue command
  --entries            With --json: also every line of each turn (turns[].entries),
                       a document as large as the session's texts
  --full               Show whole texts instead of shortened ones
  --history            Print the model-visible history the next resume would send (after
                       replay and normalization, before the new message), one JSON item
                       a line; writes nothing
  --html FILE          Write the session as one self-contained HTML page to FILE
                       ("-": stdout): turns, tool calls beside their outputs, the
                       findings, the charts; no script, nothing fetched, opens offline
  --repair             Print what a repair would do (dry run, changes nothing)
  --repair --write     Repair: move bad lines to <file>.quarantine, rewrite the session
                       atomically without them, append the outputs resume would synthesize
                       (session files only: a database keeps whole records)
  -h, --help           Show this help

An argument containing "/" or ending in ".jsonl" is a file path; anything else is a
session id or unique id prefix.

Exit codes: 0 healthy, 1 problems found (or a session in use), 2 usage error or session
not found. With --html: 0 once the page is written, healthy or not.
`;

/** A path argument that names no file. */
class NoSuchFileError extends TurnlogError {
  constructor(path: string, options?: ErrorOptions) {
    super("not_found", `No such session file: ${path}`, options);
    this.name = "NoSuchFileError";
  }
}

const encoder = new TextEncoder();

async function print(stream: typeof Deno.stdout | typeof Deno.stderr, text: string) {
  const bytes = encoder.encode(text);
  try {
    let written = 0;
    while (written < bytes.length) written += await stream.write(bytes.subarray(written));
  } catch (error) {
    // A reader that went away (`| head`) is not an error of ours.
    if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
  }
}

/** Prints text given in pieces, a few at a time, never as one string. */
async function printPieces(pieces: Iterable<string>): Promise<void> {
  let pending = "";
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= 1 << 16) {
      await print(Deno.stdout, pending);
      pending = "";
    }
  }
  await print(Deno.stdout, pending);
}

function useColor(): boolean {
  const noColor = Deno.env.get("NO_COLOR");
  return Deno.stdout.isTerminal() && (noColor === undefined || noColor === "");
}

const isPath = (target: string) =>
  target.includes("/") || target.includes("\\") || target.endsWith(".jsonl");

type Values = ReturnType<typeof parseInspectArgs>["values"];

function parseInspectArgs(args: string[]) {
  if (args.at(-1) === "--html") throw new UsageError('--html needs a file name, or "-" for stdout');
  const parsed = parseFlags(args, {
    list: { type: "boolean" },
    limit: { type: "string" },
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
    help: { type: "boolean", short: "h" },
  });
  const { values, positionals } = parsed;
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
  checkHtmlFlags(values);
  return parsed;
}

/** How the text views render. */
function renderOptions(values: Values): RenderOptions {
  const full = values.full === true;
  return {
    color: useColor(),
    ...(full ? { textChars: Number.MAX_SAFE_INTEGER, textLines: Number.MAX_SAFE_INTEGER } : {}),
  };
}

async function list(values: Values, root: string): Promise<number> {
  if (values.repair) throw new UsageError("--repair needs a session: an id, a prefix or a path");
  for (const flag of ["html", "history"] as const) {
    if (values[flag] !== undefined) {
      throw new UsageError(`--${flag} needs a session: an id, a prefix or a path`);
    }
  }
  const limit = parsePositiveInt("limit", values.limit) ?? 25;
  const listing = await listSessions(root, { limit });
  await print(
    Deno.stdout,
    values.json
      ? JSON.stringify(listing, null, 2) + "\n"
      : renderListing(listing, renderOptions(values)),
  );
  return 0;
}

/** The session file an argument names, and the store it continues from. */
async function locate(
  target: string,
  values: Values,
): Promise<{ path: string; root: string | undefined }> {
  const explicitRoot = values["sessions-dir"];
  if (!isPath(target)) {
    const root = resolveSessionsRoot(explicitRoot);
    return { path: (await findSession(root, target)).path, root };
  }
  await Deno.stat(target).catch((error) => {
    throw error instanceof Deno.errors.NotFound ? new NoSuchFileError(target) : error;
  });
  return { path: target, root: explicitRoot };
}

/** `--history`: the model-visible history the next resume would send, one JSON item a line. */
async function history(path: string): Promise<number> {
  const resumed = await resumeFile(path);
  await printPieces(resumed.history.map((item) => JSON.stringify(item) + "\n"));
  return 0;
}

async function repair(path: string, options: InspectOptions, values: Values): Promise<number> {
  const render = renderOptions(values);
  if (values.write) {
    const { plan, after } = await repairSession(path, options);
    const written = plan.refused === null;
    await print(
      Deno.stdout,
      values.json
        ? JSON.stringify({ written, plan, after }, null, 2) + "\n"
        : renderRepair(plan, { ...render, written, after }),
    );
    return after.healthy ? 0 : 1;
  }
  const report = await inspectSession(path, options);
  const plan = await planFileRepair(report);
  await print(
    Deno.stdout,
    values.json
      ? JSON.stringify({ written: false, plan }, null, 2) + "\n"
      : renderRepair(plan, { ...render, written: false }),
  );
  return report.healthy ? 0 : 1;
}

async function report(path: string, options: InspectOptions, values: Values): Promise<number> {
  // The text view shows every line; the JSON document carries them only when asked, so
  // `--json` of a large session stays small in memory.
  const entries = !values.json || values.entries === true;
  const report = await inspectSession(path, { ...options, entries });
  if (values.json) {
    await printPieces(reportJsonPieces(report));
    await print(Deno.stdout, "\n");
  } else {
    await print(Deno.stdout, renderReport(report, renderOptions(values)));
  }
  return report.healthy ? 0 : 1;
}

/** Runs the command; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseInspectArgs(args);
  if (values.help) {
    await print(Deno.stdout, HELP);
    return 0;
  }
  const target = positionals[0];
  const inStore = await inspectInStore(values, target);
  if (inStore !== undefined) return inStore;
  if (target === undefined || values.list) {
    if (target !== undefined) throw new UsageError("--list takes no session argument");
    return await list(values, resolveSessionsRoot(values["sessions-dir"]));
  }
  const { path, root } = await locate(target, values);
  const full = values.full === true;
  const options: InspectOptions = {
    root,
    commandFor: resumeCommand,
    ...(full ? { textLimit: Number.MAX_SAFE_INTEGER } : {}),
  };
  if (values.history) return await history(path);
  if (values.html !== undefined) {
    await checkHtmlTarget(values.html, path);
    const report = await inspectSession(path, { ...options, entries: true });
    await writeHtmlPage(report, values.html, { full });
    return 0;
  }
  if (values.repair) return await repair(path, options, values);
  return await report(path, options, values);
}

/** `--html` goes with a session and `--full` only. */
function checkHtmlFlags(values: Record<string, string | boolean | undefined>): void {
  if (values.html === undefined) return;
  for (const flag of ["json", "entries", "repair", "list"]) {
    if (values[flag]) throw new UsageError(`--html does not go with --${flag}`);
  }
  if (values.html === "") throw new UsageError('--html needs a file name, or "-" for stdout');
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    code = error instanceof UsageError
      ? fail("inspect", error, "Run with --help for usage.")
      : fail("inspect", error);
  }
  Deno.exit(code);
}
