/**
 * Codex CLI's words, flag and home, and its search profile (the walk of its sessions from names alone): what the
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
const CODEX_HOME = { what: "Codex's home", variables: ["CODEX_HOME", "HOME"] } as const;

/** Codex's sessions root: `$CODEX_HOME/sessions`, else `~/.codex/sessions`. */
export function codexSessionsRoot(env: Env = Deno.env): string {
  return join(env.get("CODEX_HOME") || join(homeDir(env, CODEX_HOME), ".codex"), "sessions");
}

/** Codex CLI's words, flag and home (its adapter's own). */
export const codexWords: ToolWords<"codex"> = {
  name: "codex",
  tool: "Codex CLI",
  shortTool: "Codex",
  fileNoun: "Codex CLI rollout",
  flag: "codex",
  home: {
    variables: CODEX_HOME.variables,
    root: codexSessionsRoot,
    inside: "sessions",
    described: "$CODEX_HOME/sessions, else ~/.codex/sessions",
  },
};

/**
 * Codex's start: its words and its search profile loaded
 * when asked, out of Deno's sight at start (src/_late.ts).
 */
export const codexStart: ToolStart<"codex"> = {
  ...codexWords,
  loadSearch: async () =>
    (await late<typeof import("./_search.ts")>("./_search.ts", import.meta.url)).codexSearch,
  // Its walk is its search profile's module's.
  loadWalk: async () => (await codexStart.loadSearch()).walk,
};
