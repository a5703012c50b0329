/**
 * `deno task import`: continues another tool's conversation (any format of the registry) in
 * turnlog, as a new session; and brings a turnlog session file into a store
 * (`--store postgres://...`) as the same session. A thin shell over src/import and src/store.
 *
 * @module
 */
import { errorKind } from "../src/errors/mod.ts";
import {
  ADAPTERS,
  detectAdapter,
  fileNounOf,
  fileNounsInWords,
  foreignSource,
  foreignToolsInWords,
  rootsInWords,
} from "../src/formats/mod.ts";
import { type ImportedSession, importSession, locateForeignSession } from "../src/import/mod.ts";
import {
  importTurnlogFile,
  openStore,
  type SessionStore,
  storeFromEnvironment,
} from "../src/store/mod.ts";
import { formatNumber, plural, visible, visibleJson, wrapWords } from "../src/text/mod.ts";
import { isPath, parseFlags, UsageError } from "./_args.ts";
import { DEFAULT_SESSIONS_WORDS, resumeCommand, TASK } from "./_commands.ts";
import { HOME_FLAGS, homeAdapter, homeFlagsHelp, oneRootAtMost } from "./_homes.ts";
import { runAsProcess, stderr, stdout } from "./_output.ts";
import { findArchivedSession } from "./_archived.ts";
import { EXIT_CODES_HELP, fail, hintFor } from "./_voice.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} import [options] <path | id | id prefix>

${
  wrapWords(
    `Continues another tool's conversation in turnlog. Reads ${fileNounsInWords()} (never
writes it) and writes a NEW turnlog session (a new id) holding the conversation's history as
the model saw it last, normalized: every tool call followed by its output (a call the file
left without one gets a synthesized error output). Its session_meta records where it came
from. Prints the new id and the command that continues it:`,
    92,
  )
}
  ${TASK} resume --session <id prefix> "..."

Options:
${
  homeFlagsHelp((adapter) =>
    `find the id in ${adapter.shortTool}'s sessions (${adapter.home.described})`
  )
}
${
  wrapWords(
    `${rootsInWords()}: where the id is found; a turnlog sessions root: where the new session goes`,
    92,
    "  --sessions-dir DIR   ",
    " ".repeat(23),
  )
}
  --to DIR             the turnlog sessions root the new session goes to (default:
                       $TURNLOG_SESSIONS_DIR, else ${DEFAULT_SESSIONS_WORDS})
  --store STORE        the store the session goes to instead: postgres://user:password@
                       host:port/db (a database many machines share) or a sessions folder
                       (default: $TURNLOG_STORE). With a store named, a turnlog session
                       file is brought in as the same session: its id and every record
  --json               print what was written as one JSON object
  -h, --help           this help

An argument containing "/" or ending in ".jsonl" is a file path; anything else is an id or
unique id prefix, looked for in every tool's home unless a flag names one. A file that is not
another tool's session, or holds no conversation, is not imported (exit 2).

${EXIT_CODES_HELP}`;

function parseImportArgs(argv: string[]) {
  const { values, positionals } = parseFlags(argv, {
    ...HOME_FLAGS,
    "sessions-dir": { type: "string" },
    to: { type: "string" },
    store: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return { values, target: undefined };
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "Name the session to import: a file path, an id or an id prefix"
        : `Expected one session, got ${positionals.length}: ${positionals.join(" ")}`,
    );
  }
  oneRootAtMost(values);
  if (values.to !== undefined && values.store !== undefined) {
    throw new UsageError("--to and --store do not go together: --store takes a folder too");
  }
  return { values, target: positionals[0]! };
}

type Values = ReturnType<typeof parseImportArgs>["values"];

/** The source file and the turnlog root the new session goes to. */
async function plan(target: string, values: Values): Promise<{ path: string; root?: string }> {
  const dir = values["sessions-dir"];
  const home = homeAdapter(values)?.name;
  const source = await foreignSource({ sessionsDir: dir, home });
  // A folder that holds no other tool's sessions is where the new one goes.
  const toDir = values.to ?? (source === undefined ? dir : undefined);
  if (values.to !== undefined && dir !== undefined && source === undefined) {
    throw new UsageError(
      `--sessions-dir ${dir} holds no ${foreignToolsInWords()} sessions; with --to, name one`,
    );
  }
  const root = toDir === undefined ? {} : { root: toDir };
  if (isPath(target)) return { path: target, ...root };
  try {
    const located = await locateForeignSession(target, { sessionsDir: source?.root, home });
    return { path: located.path, ...root };
  } catch (error) {
    // A session its home has no more may be in the archive (not for a folder named).
    if (errorKind(error) !== "not_found" || dir !== undefined) throw error;
    const archived = await findArchivedSession(target, home);
    if (archived === undefined || archived.adapter.own) throw error;
    stderr(
      `turnlog import: ${target} is only in the archive (its file is gone): importing its archived copy\n`,
    );
    return { path: archived.path, ...root };
  }
}

async function describe(imported: ImportedSession, store: SessionStore): Promise<string> {
  const { source } = imported;
  const prefix = await store.shortestUniquePrefix(imported.sessionId);
  const facts = [
    plural(imported.items, "history item"),
    plural(imported.calls, "tool call"),
    imported.synthesized > 0 ? `${plural(imported.synthesized, "output")} synthesized` : "",
    imported.dropped > 0 ? `${plural(imported.dropped, "orphan output")} left out` : "",
    imported.problems > 0 ? `${plural(imported.problems, "bad line")} passed over` : "",
  ].filter(Boolean);
  return [
    `Imported the ${fileNounOf(source.format)} ${visible(source.path)}`,
    `  ${source.sessionId ? `session ${visible(source.sessionId)}: ` : ""}${facts.join(", ")}`,
    `  (the file was only read)`,
    `New turnlog session ${visible(imported.sessionId)}`,
    `  ${visible(imported.path)}`,
    ...imported.skipped.map((problem) => `Passed over ${visible(problem.message)}`),
    `Continue it: ${resumeCommand({ prefix, root: imported.root })}`,
    "",
  ].join("\n");
}

/** A turnlog session file brought into `store` as the same session. */
async function importTurnlog(path: string, store: SessionStore): Promise<string> {
  const { location, records } = await importTurnlogFile(store, path);
  const prefix = await store.shortestUniquePrefix(location.id);
  return `Imported session ${visible(location.id)} (${formatNumber(records)} records) into ${
    visible(store.name)
  }\n` +
    `Continue it: ${resumeCommand({ prefix, root: store.name })}\n`;
}

/** Runs the command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values, target } = parseImportArgs(argv);
  if (target === undefined) {
    stdout(HELP + "\n");
    return 0;
  }
  const { path, root } = await plan(target, values);
  const store = await openStore({ store: values.store, sessionsDir: root });
  try {
    // A turnlog file moves between stores when one is named; else it needs no import.
    const named = values.store !== undefined || root !== undefined ||
      storeFromEnvironment() !== undefined;
    // Told once from the head: the import reads the file through the adapter told here.
    const detected = await detectAdapter(path);
    const adapter = "adapter" in detected ? detected.adapter : undefined;
    if (named && adapter?.own) {
      stdout(await importTurnlog(path, store));
      return 0;
    }
    const imported = await importSession(path, { store, adapter });
    stdout(
      values.json ? visibleJson(imported, 2) + "\n" : await describe(imported, store),
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** What to do next when an import fails: where to look for the sessions, or at the file. */
function hint(error: unknown, argv: string[]): string | undefined {
  let target: string | undefined;
  try {
    target = parseImportArgs(argv).target;
  } catch {
    target = undefined;
  }
  switch (errorKind(error)) {
    case "not_found":
      return `List the sessions: ${TASK} inspect ${
        [...ADAPTERS.map((adapter) => `--${adapter.flag}`), "--sessions-dir DIR"].join(" or ")
      }`;
    case "session_file":
      return target === undefined ? undefined : `Look at it: ${TASK} inspect ${target}`;
    default:
      return hintFor("import", error);
  }
}

/** The command as the shell runs it (`turnlog import`): an error is printed, never thrown. */
export async function cli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    return fail("import", error, hint(error, argv));
  }
}

if (import.meta.main) await runAsProcess(cli);
