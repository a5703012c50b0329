/**
 * Gemini CLI's words, flag and home, and its search profile (the walk of its sessions from names alone): what the
 * commands that answer from the catalog need of the format, without its reader (its adapter
 * spreads the words; `src/formats/homes.ts` lists the homes).
 *
 * @module
 */
import { join } from "../../_path.ts";
import type { ToolStart, ToolWords } from "../_adapter.ts";
import { type Env, homeDir } from "../_home_dir.ts";
import { late } from "../../_late.ts";

/** Whose home the root is in, and the variables that name it (first its own). */
const GEMINI_HOME = { what: "Gemini CLI's home", variables: ["GEMINI_CLI_HOME", "HOME"] } as const;

/** Gemini CLI's sessions root: `$GEMINI_CLI_HOME/.gemini/tmp`, else `~/.gemini/tmp`. */
export function geminiSessionsRoot(env: Env = Deno.env): string {
  return join(env.get("GEMINI_CLI_HOME") || homeDir(env, GEMINI_HOME), ".gemini", "tmp");
}

/** Gemini CLI's words, flag and home (its adapter's own). */
export const geminiWords: ToolWords<"gemini"> = {
  name: "gemini",
  tool: "Gemini CLI",
  shortTool: "Gemini",
  fileNoun: "Gemini CLI session",
  flag: "gemini",
  home: {
    variables: GEMINI_HOME.variables,
    root: geminiSessionsRoot,
    inside: "tmp",
    described: "$GEMINI_CLI_HOME/.gemini/tmp, else ~/.gemini/tmp",
  },
};

/**
 * Gemini CLI's start: its words and its search profile loaded
 * when asked, out of Deno's sight at start (src/_late.ts).
 */
export const geminiStart: ToolStart<"gemini"> = {
  ...geminiWords,
  loadSearch: async () =>
    (await late<typeof import("./_search.ts")>("./_search.ts", import.meta.url)).geminiSearch,
  // Its walk is its search profile's module's.
  loadWalk: async () => (await geminiStart.loadSearch()).walk,
};
