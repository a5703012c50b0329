/**
 * The facts only a Claude Code transcript has, as its reader fills them in
 * `ForeignFacts.formatFacts`.
 *
 * @module
 */
import type { ApprovalMode } from "../../record/mod.ts";
import type { ForeignFacts } from "../_types.ts";

/** Facts only a Claude Code transcript has. */
export interface ClaudeCodeFacts {
  /** The line the active branch was walked back from. */
  leafLine: number | null;
  /** Where the walk back met a line it had already passed (a cycle), or null. */
  cycleLine: number | null;
  /** The active branch's root line when its `parentUuid` names no line of the file. */
  danglingParentLine: number | null;
  /**
   * Lines passed over because another line has their `uuid`: a resume's replay of a line (the
   * first copy counts) or a line re-parented later (the last copy counts).
   */
  supersededLines: number;
  /** Lines on no active branch and in no reported fork (progress and hook lines off the branch). */
  sideLines: number;
  /** What closed the turns: `turn_duration` lines, or a final answer (`end_turn`). */
  turnEnds: "turn_duration" | "final_answer";
  /** The file's own agent id, when it is a subagent's transcript. */
  agentId: string | null;
  /** The session a subagent's transcript belongs to. */
  parentSessionId: string | null;
  /** Compactions: `compact_boundary` lines on the active branch. */
  compactions: number;
  /**
   * Compactions whose `logicalParentUuid` names no line of the file: the conversation before
   * each (from `continuesLine` back) is read as the session's earlier turns, in file order.
   */
  boundaryJoins: { line: number; continuesLine: number }[];
}

/** A transcript's Claude Code-only facts, or null for another format's facts. */
export function claudeCodeFactsOf(facts: ForeignFacts): ClaudeCodeFacts | null {
  return facts.format === "claude-code" ? facts.formatFacts as ClaudeCodeFacts | null : null;
}

/**
 * Claude Code's `permissionMode` in turnlog's terms: `bypassPermissions` (and `dontAsk`) never
 * ask, `plan` lets nothing change without asking, `default` and `acceptEdits` ask before
 * commands and changes.
 */
export function mapClaudePermission(mode: string | undefined): ApprovalMode {
  switch (mode) {
    case "bypassPermissions":
    case "dontAsk":
      return "auto";
    case "plan":
      return "ask-all";
    default:
      return "ask-changes";
  }
}
