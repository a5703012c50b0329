/**
 * `deno task resume`: start a session with a message, or continue one (`--session`, `--last`,
 * `--fork`);
 * with no arguments at all, a self-explaining demo of a crash mid-tool and its repair.
 *
 * @module
 */
import { parseResumeArgs, type ResumeArgs, UsageError } from "./_args.ts";
import { inArchiveView } from "../src/archive/mod.ts";
import { resolveStoreSpec } from "../src/store/mod.ts";
import { runDemo } from "./_demo.ts";
import { runAsProcess, stdout } from "./_output.ts";
import { EXIT, runCliTurn } from "./_turn.ts";
import { EXIT_CODES_HELP, fail } from "./_voice.ts";
import { DEFAULT_SESSIONS_WORDS, TASK } from "./_commands.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} resume [options] "message"
       ${TASK} resume   (no arguments: the demo)

Starts a session with the message, or continues one, and runs one turn of the agent:
the model may call tools on the workspace (list_dir, read_file, search_text,
write_file, slow_task) until it answers. Every record is appended to the session's store.

Options:
  -s, --session <id>     continue this session (full id or unique prefix)
      --last             continue the newest session
      --fork <id>        continue a copy of this session; the original stays untouched
      --at-turn <n>      with --fork: keep only the turns before turn n
      --sessions-dir <d> sessions root (default: $TURNLOG_SESSIONS_DIR, else ${DEFAULT_SESSIONS_WORDS})
      --store <s>        where sessions are kept: postgres://user:password@host:port/db
                         (a database many machines share) or a sessions folder
                         (default: $TURNLOG_STORE, else the sessions root)
      --model <name>     the model; "scripted" = the embedded deterministic model, the
                         default when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set
                         (with a key: $OPENAI_MODEL, else gpt-4.1-mini)
      --wire-api <api>   responses (default) or chat; a resumed session keeps its own
      --policy <p>       auto (never ask) | ask-changes (ask before write_file; default)
                         | ask-all (ask for every tool); a resumed session keeps its
                         recorded policy unless this flag is given
      --workspace <dir>  the folder the tools work in (default: the current directory)
      --max-rounds <n>   model rounds before the turn stops (default 8)
      --compact-threshold <tokens>
                         compact the history when a round reports this many tokens
                         (default: 75% of the model's context window; 24000 when unknown)
      --json             print the turn's events as JSON lines
  -h, --help             this help

The embedded model understands (case does not matter):
  list the files [in src]          list_dir
  read notes.txt [and a.md]        read_file, one call per path
  search for TODO [in src]         search_text (a quoted text keeps its spaces)
  write hello to out.txt           write_file; also: write out.txt with "hello"
  run a slow task for 5 seconds    slow_task
  continue                         re-runs a call a crash interrupted
  what did I ask?                  the earlier messages
Anything else gets a plain answer that says how many messages it has seen.

Environment: OPENAI_API_KEY, OPENAI_BASE_URL (any OpenAI-compatible server), OPENAI_MODEL,
TURNLOG_STORE, TURNLOG_SESSIONS_DIR, NO_COLOR.
${EXIT_CODES_HELP}`;

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) return await runDemo();
  let args;
  try {
    args = parseResumeArgs(argv);
  } catch (error) {
    return fail("resume", error);
  }
  if (args.help) {
    stdout(HELP + "\n");
    return EXIT.ok;
  }
  try {
    refuseArchiveView(args);
  } catch (error) {
    return fail("resume", error);
  }
  return (await runCliTurn(args)).exitCode;
}

/**
 * The archive's view is a cache of the sessions only in the archive: a turn appended there
 * would be lost when the view is next made again, so a session is put back before it goes on.
 */
function refuseArchiveView(args: ResumeArgs): void {
  const store = resolveStoreSpec({ store: args.store, sessionsDir: args.sessionsDir });
  if (!inArchiveView(store)) return;
  const session = args.session ?? args.fork ?? "<id>";
  throw new UsageError(
    `${store} is the archive's view of the sessions only in the archive, a cache: put the ` +
      `session back first: ${TASK} restore ${session}`,
  );
}

/** The command as the shell runs it (`turnlog resume`): an error is printed, never thrown. */
export async function cli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    return fail("resume", error);
  }
}

if (import.meta.main) await runAsProcess(cli);
