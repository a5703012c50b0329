/**
 * `deno task inspect`: shows a session turn by turn, lists sessions, or repairs a damaged
 * session file. A thin shell over src/inspect.ts, src/inspect_render.ts and src/repair.ts.
 *
 * @module
 */
import { TurnlogError } from "../src/errors/mod.ts";
import { inspectSession, NotAFileError, reportJsonPieces } from "../src/inspect/mod.ts";
import { renderListing, renderRepair, renderReport } from "../src/inspect/mod.ts";
import { planFileRepair, repairSession } from "../src/inspect/mod.ts";
import { InvalidSessionIdError } from "../src/record/mod.ts";
import { parseFlags, parsePositiveInt, UsageError } from "./_args.ts";
import { resumeCommand } from "./_commands.ts";
import { checkHtmlTarget, writeHtmlPage } from "./_html.ts";
import {
  AmbiguousSessionError,
  findSession,
  listSessions,
  resolveSessionsRoot,
  SessionInUseError,
  SessionNotFoundError,
} from "../src/store/mod.ts";

const HELP = `Usage: deno task inspect [options] [<id | id prefix | path>]

Shows a session turn by turn: each turn's messages, tool calls paired with their outputs,
synthesized outputs, orphan calls, compaction checkpoints, a table of records per turn,
every problem with its line, and the command that continues the session.
Without an argument (or with --list), lists the sessions, newest first.

Options:
  --list               List sessions (the default without an argument)
  --limit N            Sessions listed (default 25)
  --sessions-dir DIR   Sessions root (default: $TURNLOG_SESSIONS_DIR, else ./sessions)
  --json               Print one JSON document instead of text: the turns with their
                       counts and outcomes, the findings, the continue command
  --entries            With --json: also every line of each turn (turns[].entries),
                       a document as large as the session's texts
  --full               Show whole texts instead of shortened ones
  --html FILE          Write the session as one self-contained HTML page to FILE
                       ("-": stdout): turns, tool calls beside their outputs, the
                       findings, the charts; no script, nothing fetched, opens offline
  --repair             Print what a repair would do (dry run, changes nothing)
  --repair --write     Repair: move bad lines to <file>.quarantine, rewrite the session
                       atomically without them, append the outputs resume would synthesize
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

/** Runs the command; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  if (args.at(-1) === "--html") throw new UsageError('--html needs a file name, or "-" for stdout');
  const { values, positionals } = parseFlags(args, {
    list: { type: "boolean" },
    limit: { type: "string" },
    "sessions-dir": { type: "string" },
    json: { type: "boolean" },
    entries: { type: "boolean" },
    full: { type: "boolean" },
    repair: { type: "boolean" },
    write: { type: "boolean" },
    html: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    await print(Deno.stdout, HELP);
    return 0;
  }
  if (positionals.length > 1) {
    throw new UsageError(
      `Expected one session, got ${positionals.length}: ${positionals.join(" ")}`,
    );
  }
  if (values.write && !values.repair) throw new UsageError("--write only goes with --repair");
  if (values.entries && (!values.json || values.repair)) {
    throw new UsageError("--entries only goes with --json, without --repair");
  }
  checkHtmlFlags(values);
  const target = positionals[0];
  const explicitRoot = values["sessions-dir"];
  const root = resolveSessionsRoot(explicitRoot);
  const color = useColor();
  const full = values.full === true;
  const render = {
    color,
    ...(full ? { textChars: Number.MAX_SAFE_INTEGER, textLines: Number.MAX_SAFE_INTEGER } : {}),
  };

  if (target === undefined || values.list) {
    if (values.repair) throw new UsageError("--repair needs a session: an id, a prefix or a path");
    if (values.html !== undefined) {
      throw new UsageError("--html needs a session: an id, a prefix or a path");
    }
    if (target !== undefined) throw new UsageError("--list takes no session argument");
    const limit = parsePositiveInt("limit", values.limit) ?? 25;
    const listing = await listSessions(root, { limit });
    await print(
      Deno.stdout,
      values.json ? JSON.stringify(listing, null, 2) + "\n" : renderListing(listing, render),
    );
    return 0;
  }

  let path: string;
  let storeRoot: string | undefined;
  if (isPath(target)) {
    path = target;
    await Deno.stat(path).catch((error) => {
      throw error instanceof Deno.errors.NotFound ? new NoSuchFileError(path) : error;
    });
    storeRoot = explicitRoot;
  } else {
    path = (await findSession(root, target)).path;
    storeRoot = root;
  }
  const options = {
    root: storeRoot,
    commandFor: resumeCommand,
    ...(full ? { textLimit: Number.MAX_SAFE_INTEGER } : {}),
  };
  // The text view shows every line; the JSON document carries them only when asked, so
  // `--json` of a large session stays small in memory.
  const entries = !values.json || values.entries === true;

  if (values.html !== undefined) {
    await checkHtmlTarget(values.html, path);
    await writeHtmlPage(await inspectSession(path, { ...options, entries: true }), values.html, {
      full,
    });
    return 0;
  }
  if (values.repair && values.write) {
    const { plan, after } = await repairSession(path, options);
    await print(
      Deno.stdout,
      values.json
        ? JSON.stringify({ written: plan.refused === null, plan, after }, null, 2) + "\n"
        : renderRepair(plan, { ...render, written: plan.refused === null, after }),
    );
    return after.healthy ? 0 : 1;
  }
  const report = await inspectSession(path, { ...options, entries: entries && !values.repair });
  if (values.repair) {
    const plan = await planFileRepair(report);
    await print(
      Deno.stdout,
      values.json
        ? JSON.stringify({ written: false, plan }, null, 2) + "\n"
        : renderRepair(plan, { ...render, written: false }),
    );
    return report.healthy ? 0 : 1;
  }
  if (values.json) {
    await printPieces(reportJsonPieces(report));
    await print(Deno.stdout, "\n");
  } else {
    await print(Deno.stdout, renderReport(report, render));
  }
  return report.healthy ? 0 : 1;
}

/** `--html` goes with a session and `--full` only. */
function checkHtmlFlags(values: Record<string, string | boolean | undefined>): void {
  if (values.html === undefined) return;
  for (const flag of ["json", "entries", "repair", "list"]) {
    if (values[flag]) throw new UsageError(`--html does not go with --${flag}`);
  }
  if (values.html === "") throw new UsageError('--html needs a file name, or "-" for stdout');
}

/** The exit code and the message for an error, never a stack trace. */
function explain(error: unknown): { code: number; message: string } {
  if (error instanceof UsageError) {
    return { code: 2, message: `${error.message}\nRun with --help for usage.` };
  }
  if (
    error instanceof SessionNotFoundError || error instanceof AmbiguousSessionError ||
    error instanceof InvalidSessionIdError || error instanceof NotAFileError ||
    error instanceof NoSuchFileError
  ) {
    return { code: 2, message: error.message };
  }
  if (error instanceof SessionInUseError) return { code: 1, message: error.message };
  return { code: 2, message: error instanceof Error ? error.message : String(error) };
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    const { code: exit, message } = explain(error);
    await print(Deno.stderr, `turnlog inspect: ${message}\n`);
    code = exit;
  }
  Deno.exit(code);
}
