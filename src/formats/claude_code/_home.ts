/**
 * Claude Code's words, flag and home, and its search profile (the walk of its sessions from names alone): what the
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
const CLAUDE_HOME = {
  what: "Claude Code's home",
  variables: ["CLAUDE_CONFIG_DIR", "HOME"],
} as const;

/** Claude Code's projects root: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function claudeProjectsRoot(env: Env = Deno.env): string {
  return join(
    env.get("CLAUDE_CONFIG_DIR") || join(homeDir(env, CLAUDE_HOME), ".claude"),
    "projects",
  );
}

/**
 * Whether Claude Code's listing shows a session the walk found: not a subagent's transcript
 * whose session is gone (the walk makes it a session of its own), not an empty file.
 */
export function claudeListed(id: string, sizeBytes: number): boolean {
  return !id.startsWith("agent-") && sizeBytes > 0;
}

/** Claude Code's words, flag and home (its adapter's own). */
export const claudeCodeWords: ToolWords<"claude-code"> = {
  name: "claude-code",
  tool: "Claude Code",
  shortTool: "Claude Code",
  fileNoun: "Claude Code transcript",
  flag: "claude",
  home: {
    variables: CLAUDE_HOME.variables,
    root: claudeProjectsRoot,
    inside: "projects",
    described: "$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects",
  },
};

/**
 * Claude Code's start: its words, what its listing leaves out, and its search profile and its
 * walk (a module of its own) loaded when asked, out of Deno's sight at start (src/_late.ts).
 */
export const claudeCodeStart: ToolStart<"claude-code"> = {
  ...claudeCodeWords,
  listed: claudeListed,
  loadSearch: async () =>
    (await late<typeof import("./_search.ts")>("./_search.ts", import.meta.url)).claudeCodeSearch,
  loadWalk: async () =>
    (await late<typeof import("./_walk.ts")>("./_walk.ts", import.meta.url)).claudeCodeWalk,
};
