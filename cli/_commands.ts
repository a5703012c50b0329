/**
 * The commands turnlog prints for a person to run next, written the way they run here
 * (`turnlog ...` once installed, `./denow task ...` in a checkout), with only the flags the
 * defaults do not already give.
 *
 * @module
 */
// The store's names alone, not its face: every command's start loads no store.
import { installedCommand } from "../src/store/_layout.ts";
import { isDefaultStore, isPostgresUrl, resolveStoreSpec } from "../src/store/_spec.ts";
import { shellQuote } from "../src/text/mod.ts";

/** How a command is run in a checkout. */
export const CHECKOUT_TASK = "./denow task";

/** How a person runs a command here: `turnlog` when installed, else `./denow task`. */
export const TASK = installedCommand() ?? CHECKOUT_TASK;

/**
 * The sessions root used without flags, in words for `--help`: the user's data folder once
 * installed (see `resolveSessionsRoot`), `./sessions` in a checkout.
 */
export const DEFAULT_SESSIONS_WORDS: string = installedCommand()
  ? "~/.local/share/turnlog/sessions"
  : "./sessions";

/**
 * A page of the docs, for a checkout's help and messages (`docs/serving.md`); empty once
 * installed: the package ships docs/install.md alone.
 */
export function docsPage(path: string, text = `(${path})`): string {
  return installedCommand() ? "" : text;
}

/** What a continue command needs. */
export interface ResumeCommandOptions {
  /** The shortest unique id prefix of the session. */
  prefix: string;
  /** The store that holds it: a sessions folder, or a database's URL without its password. */
  root: string;
  /** The workspace folder, when not the current one. */
  workspace?: string | undefined;
  /** The session's approval policy, when it is not the default (shown, so it is not a surprise). */
  policy?: string | undefined;
  /** The message placeholder. */
  message?: string;
}

/**
 * The command that continues a session: `./denow task resume --session <prefix> "..."`, with
 * `--sessions-dir` (a folder) or `--store` (a database, its password left out) when the store
 * is not the one used without flags.
 */
export function resumeCommand(options: ResumeCommandOptions): string {
  const flags: string[] = [];
  if (!isDefaultStore(options.root)) {
    flags.push(isPostgresUrl(options.root) ? "--store" : "--sessions-dir", options.root);
  }
  if (options.workspace !== undefined) flags.push("--workspace", options.workspace);
  if (options.policy !== undefined) flags.push("--policy", options.policy);
  flags.push("--session", options.prefix);
  const message = options.message ?? "<your message>";
  return `${TASK} resume ${flags.map(shellQuote).join(" ")} ${JSON.stringify(message)}`;
}

/** The command that continues another tool's session in turnlog: `./denow task import <path>`. */
export function importCommand(path: string): string {
  return `${TASK} import ${shellQuote(path)}`;
}

/**
 * The command that continues a turnlog session only in the archive: restored into the store
 * first, then resumed there. Resuming it where it is read from (the archive's view) would
 * append to a cache, lost at the next refresh.
 */
export function restoreThenResumeCommand(prefix: string): string {
  const resume = resumeCommand({ prefix, root: resolveStoreSpec() });
  return `${TASK} restore ${shellQuote(prefix)} && ${resume}`;
}
