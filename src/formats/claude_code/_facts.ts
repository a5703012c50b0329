/**
 * The facts only a Claude Code transcript has, as its reader fills them in
 * `ForeignFacts.formatFacts`.
 *
 * @module
 */
import type { ApprovalMode } from "../../record/mod.ts";
import type { ForeignFacts } from "../_types.ts";

/**
 * A model swap: Claude Code resumed a session whose model was retired and told so in a
 * `system` line (`subtype: "informational"`, `modelRestriction`, 2.1.332).
 */
export interface ClaudeModelSwap {
  /** The `system` line. */
  line: number;
  /** The model the session asked for. */
  requestedModel: string | null;
  /** The model Claude Code used instead. */
  effectiveModel: string | null;
  /** The line's `level` (`warning`). */
  level: string | null;
  /** What Claude Code said, for a person. */
  content: string | null;
}

/** The last `cost-state` line's totals (Claude Code's own reckoning of the session's cost). */
export interface ClaudeCost {
  /** The line. */
  line: number;
  /** `totalCostUSD`. */
  totalCostUSD: number | null;
  /** Each model's `costUSD` (`modelUsage`). */
  models: Record<string, number>;
  /** `hasUnknownModelCost`: a model Claude Code has no price for. */
  unknownModelCost: boolean;
}

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
  /** Where Claude Code used another model than the session's (a retired one), in order. */
  modelSwaps: ClaudeModelSwap[];
  /** The session's cost as Claude Code last wrote it (`cost-state`), or null. */
  cost: ClaudeCost | null;
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
