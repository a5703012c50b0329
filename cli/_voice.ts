/**
 * One voice to the user: every command speaks as `turnlog <command>: <message>`, then one
 * hint line saying what to do next, in the form the user can run here (`./denow task ...`).
 * The exit code comes from the one table of error kinds.
 *
 * @module
 */
import {
  AmbiguousSessionError,
  ERROR_OUTCOMES,
  type ErrorKind,
  errorKind,
  errorMessage,
  HomeUnsetError,
} from "../src/errors/mod.ts";
import { TASK } from "./_commands.ts";
import { visible } from "../src/text/mod.ts";
import { stderr } from "./_output.ts";

/** The commands, as `turnlog <command>:` names them. */
export type Command =
  | "resume"
  | "inspect"
  | "serve"
  | "import"
  | "export"
  | "search"
  | "archive"
  | "restore"
  | "doctor"
  | "usage";

/** What to do next about each kind of error. */
const HINTS: Partial<Record<ErrorKind, (command: Command) => string>> = {
  usage: (command) => `Run ${TASK} ${command} --help for the options.`,
  not_found: (command) =>
    command === "restore"
      ? `List the archived sessions: ${TASK} restore --list`
      : `List the sessions: ${TASK} inspect --list`,
  ambiguous: () => "Give more of the id: enough characters to tell the sessions above apart.",
  in_use: (command) =>
    command === "archive"
      ? "Another archive run is under way: wait for it to end, then run this again."
      : "Another run has the session: wait for it to end, or continue another session.",
  session_file: (command) =>
    command === "restore"
      ? "Move that file away first, or restore into another home with --home DIR."
      : `Look at the file: ${TASK} inspect <path>; --repair shows how to fix it.`,
  workspace: () => "Give an existing folder with --workspace.",
  model: () =>
    "Check OPENAI_API_KEY and OPENAI_BASE_URL, or use the embedded model: --model scripted",
  store: () =>
    "Check that the database is up and the URL (--store or TURNLOG_STORE) is postgres://user:password@host:port/database.",
};

/** The hint line for an error: its own (`HomeUnsetError`'s), else its kind's, if any. */
export function hintFor(command: Command, error: unknown): string | undefined {
  if (error instanceof HomeUnsetError) return error.hint;
  if (error instanceof AmbiguousSessionError && error.sameId) {
    return "Give the path of the one you mean (listed above) in place of the id.";
  }
  return HINTS[errorKind(error)]?.(command);
}

/** Prints `turnlog <command>: <message>` and the hint; returns the exit code for the error. */
export function fail(command: Command, error: unknown, hint = hintFor(command, error)): number {
  stderr(`turnlog ${command}: ${visible(errorMessage(error))}\n`);
  if (hint !== undefined) stderr(`${hint}\n`);
  return ERROR_OUTCOMES[errorKind(error)].exitCode;
}

/** The exit codes, for `--help`. */
export const EXIT_CODES_HELP =
  "Exit codes: 0 done; 1 failed (the run failed, the session is in use, problems found);\n" +
  "2 the command cannot work as given (usage, unknown or ambiguous session, unusable file\n" +
  "or workspace); 130 cancelled (Ctrl-C).";
