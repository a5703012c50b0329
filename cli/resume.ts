/**
 * `deno task resume`: start a session with a message, or continue one (`--session`, `--last`);
 * with no arguments at all, a self-explaining demo of a crash mid-tool and its repair.
 *
 * @module
 */
import { parseResumeArgs, UsageError } from "./_args.ts";
import { runDemo } from "./_demo.ts";
import { EXIT, runCliTurn } from "./_turn.ts";

/** The help text. */
export const HELP = `Usage: ./denow task resume [options] "message"
       ./denow task resume                     (no arguments: the demo)

Starts a session with the message, or continues one, and runs one turn of the agent:
the model may call tools on the workspace (list_dir, read_file, search_text,
write_file, slow_task) until it answers. Every record is appended to the session file.

Options:
  -s, --session <id>     continue this session (full id or unique prefix)
      --last             continue the newest session
      --sessions-dir <d> sessions root (default: $TURNLOG_SESSIONS_DIR, else ./sessions)
      --model <name>     model name; "scripted" = the embedded deterministic model
                         (default: $OPENAI_MODEL, else gpt-4.1-mini with a key; the
                         embedded model when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set)
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

Environment: OPENAI_API_KEY, OPENAI_BASE_URL (any OpenAI-compatible server), OPENAI_MODEL,
TURNLOG_SESSIONS_DIR, NO_COLOR.
Exit codes: 0 done, 1 the run failed, 2 bad arguments or session, 130 cancelled (Ctrl-C).`;

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) return await runDemo();
  let args;
  try {
    args = parseResumeArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\nRun ./denow task resume --help for the options.`);
    return EXIT.usage;
  }
  if (args.help) {
    console.log(HELP);
    return EXIT.ok;
  }
  return (await runCliTurn(args)).exitCode;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(EXIT.failed);
  }
}
