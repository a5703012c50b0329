/**
 * `deno task export`: continues a session (turnlog's, Codex's, Claude Code's, Gemini's) in
 * another tool: writes it as a new session of that tool, in the tool's home, and prints the
 * command that resumes it. A thin shell over src/export.
 *
 * @module
 */
import { errorKind } from "../src/errors/mod.ts";
import {
  type ExportedSession,
  exportSession,
  exportTargets,
  TURNLOG_TARGET,
} from "../src/export/mod.ts";
import { adapterByFlag, ADAPTERS, fileNounOf, turnlogAdapter } from "../src/formats/mod.ts";
import { locateForeignSession } from "../src/import/mod.ts";
import { FileStore, SessionNotFoundError } from "../src/store/mod.ts";
import { formatNumber, plural, visible, visibleJson, wrapWords } from "../src/text/mod.ts";
import { isPath, parseFlags, UsageError } from "./_args.ts";
import { TASK } from "./_commands.ts";
import { HOME_FLAGS, homeAdapter, homeFlagsHelp, oneRootAtMost } from "./_homes.ts";
import { runAsProcess, stdout } from "./_output.ts";
import { EXIT_CODES_HELP, fail, hintFor } from "./_voice.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} export [options] <path | id | id prefix> --to ${
  exportTargets().join("|")
}

${
  wrapWords(
    `Continues a session in another tool. Reads the session (never writes it) as its own tool
would resume it, and writes a NEW session of the target tool (a new id) in that tool's home,
laid out as the tool lays it out: every user message, assistant text, tool call and its
result, in order, with their times. What the target cannot carry is listed. Prints the new
file and the command that resumes it (codex resume <id>, claude --resume <id>, gemini
--resume <id>, or turnlog's resume).`,
    92,
  )
}

Options:
  --to TARGET          ${exportTargets().join(", ")}: the tool the session goes to, into its home:
${
  ADAPTERS.filter((adapter) => adapter.write).map((adapter) =>
    `                       ${adapter.flag}: ${adapter.home.described}`
  ).join("\n")
}
                       turnlog: $TURNLOG_SESSIONS_DIR, else ./sessions
${
  homeFlagsHelp((adapter) =>
    `find the id in ${adapter.shortTool}'s sessions (${adapter.home.described})`
  )
}
  --sessions-dir DIR   the turnlog sessions root an id is looked for in first
  --cwd DIR            the project folder of the new session (default: the source's recorded
                       folder when it exists here, else the current folder)
  --json               print what was written as one JSON object
  -h, --help           this help

An argument containing "/" or ending in ".jsonl" is a file path; anything else is an id or
unique id prefix, looked for in turnlog's sessions, then in every tool's home unless a flag
names one. A file with no conversation is not exported (exit 2); nothing is half-written.

${EXIT_CODES_HELP}`;

function parseExportArgs(argv: string[]) {
  const { values, positionals } = parseFlags(argv, {
    ...HOME_FLAGS,
    "sessions-dir": { type: "string" },
    to: { type: "string" },
    cwd: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return { values, source: undefined, to: undefined };
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "Name the session to export: a file path, an id or an id prefix"
        : `Expected one session, got ${positionals.length}: ${positionals.join(" ")}`,
    );
  }
  oneRootAtMost(values);
  if (values.to === undefined) {
    throw new UsageError(`Name the tool it goes to: --to ${exportTargets().join("|")}`);
  }
  return { values, source: positionals[0]!, to: values.to };
}

type Values = ReturnType<typeof parseExportArgs>["values"];

/** The source file: a path as it is, else an id in turnlog's store, then in the tools' homes. */
async function sourcePath(source: string, values: Values): Promise<string> {
  if (isPath(source)) return source;
  const home = homeAdapter(values);
  if (home === undefined) {
    try {
      return (await new FileStore(values["sessions-dir"]).find(source)).path;
    } catch (error) {
      if (!(error instanceof SessionNotFoundError) || values["sessions-dir"] !== undefined) {
        throw error;
      }
    }
  }
  return (await locateForeignSession(source, { home: home?.name })).path;
}

/** The target's file, in words: `Codex CLI rollout`, `turnlog session`. */
function targetNoun(target: string): string {
  return (adapterByFlag(target) ?? turnlogAdapter).fileNoun;
}

function describe(exported: ExportedSession): string {
  const { source, carried } = exported;
  const noun = fileNounOf(source.format);
  const facts = [
    plural(carried.userMessages, "user message"),
    plural(carried.assistantMessages, "assistant message"),
    plural(carried.calls, "tool call"),
    plural(carried.results, "result"),
  ];
  const folder = exported.cwdFrom === "given"
    ? "as given"
    : exported.cwdFrom === "recorded"
    ? "the source's recorded folder"
    : "the current folder: the source's recorded one is not here";
  const lines = [
    `Exported the ${noun} ${visible(source.path)} (only read)`,
    `  ${source.sessionId ? `session ${visible(source.sessionId)}: ` : ""}${facts.join(", ")}`,
    `Project folder: ${visible(exported.cwd)} (${folder})`,
    `New ${targetNoun(exported.target)} ${visible(exported.id)}`,
    `  ${visible(exported.path)}`,
  ];
  if (exported.degraded.length > 0) {
    lines.push("Not carried as it was:");
    for (const d of exported.degraded) {
      lines.push(`  ${visible(d.what)} (${formatNumber(d.count)}): ${visible(d.how)}`);
    }
  }
  for (const problem of exported.skipped) lines.push(`Skipped ${visible(problem.message)}`);
  lines.push(`Resume it: ${visible(exported.resume)}`, "");
  return lines.join("\n");
}

/** The resume command of a turnlog target, as this checkout runs it. */
function withTask(exported: ExportedSession): ExportedSession {
  if (exported.target !== TURNLOG_TARGET) return exported;
  return { ...exported, resume: exported.resume.replace(/^turnlog /, `${TASK} `) };
}

/** Runs the command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values, source, to } = parseExportArgs(argv);
  if (source === undefined || to === undefined) {
    stdout(HELP + "\n");
    return 0;
  }
  const path = await sourcePath(source, values);
  const exported = withTask(await exportSession(path, { to, cwd: values.cwd }));
  if (values.json) {
    const { target, id, cwd, resume, carried, degraded } = exported;
    stdout(
      visibleJson({ target, id, path: exported.path, cwd, resume, carried, degraded }, 2) + "\n",
    );
  } else stdout(describe(exported));
  return 0;
}

/** What to do next when an export fails. */
function hint(error: unknown, argv: string[]): string | undefined {
  let source: string | undefined;
  try {
    source = parseExportArgs(argv).source;
  } catch {
    source = undefined;
  }
  switch (errorKind(error)) {
    case "not_found":
      return `List the sessions: ${TASK} inspect ${
        [...ADAPTERS.map((adapter) => `--${adapter.flag}`), "--list"].join(" or ")
      }`;
    case "session_file":
      return source === undefined ? undefined : `Look at it: ${TASK} inspect ${source}`;
    case "store":
      return `Check that the tool's home is a folder you can write (${
        ADAPTERS.map((adapter) => adapter.home.variables[0]).join(", ")
      }).`;
    case "usage":
      return `Run ${TASK} export --help for the options.`;
    default:
      return hintFor("export", error);
  }
}

/** The command as the shell runs it (`turnlog export`): an error is printed, never thrown. */
export async function cli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    return fail("export", error, hint(error, argv));
  }
}

if (import.meta.main) await runAsProcess(cli);
