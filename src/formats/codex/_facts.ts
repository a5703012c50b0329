/**
 * The facts only a Codex rollout has, as its reader fills them in `ForeignFacts.formatFacts`.
 *
 * @module
 */
import type { ApprovalMode } from "../../record/mod.ts";
import type { ForeignFacts } from "../_types.ts";

/** A `thread_rolled_back` event of a Codex rollout. */
export interface CodexRollback {
  /** The event's line. */
  line: number;
  /** Turns the user rolled back. */
  turns: number;
}

/** Facts only a Codex rollout has. */
export interface CodexFacts {
  /** `session_meta.originator` (the Codex client). */
  originator: string | null;
  /** `session_meta.source` (`cli`, `vscode`, `exec`, a subagent's origin as JSON). */
  source: string | null;
  /** The session this one was forked from. */
  forkedFromId: string | null;
  /** The sandbox policy's type, from the latest `turn_context`. */
  sandbox: string | null;
  /** What marked the turns: task events, turn ids of `turn_context`, `user_message` events. */
  turnMarkers: "task_events" | "turn_context" | "user_message" | "none";
  /** Every `thread_rolled_back` event (the rolled-back turns stay in the records). */
  rollbacks: CodexRollback[];
}

/** A rollout's Codex-only facts, or null for another format's facts. */
export function codexFactsOf(facts: ForeignFacts): CodexFacts | null {
  return facts.format === "codex" ? facts.formatFacts as CodexFacts | null : null;
}

/**
 * Codex's `approval_policy` in turnlog's terms: `never` and `on-failure` run without asking
 * (`auto`), `on-request` asks before changes outside the sandbox (`ask-changes`), `untrusted`
 * asks for anything not known to be safe (`ask-all`).
 */
export function mapCodexApproval(policy: string | undefined): ApprovalMode {
  switch (policy) {
    case "never":
    case "on-failure":
      return "auto";
    case "untrusted":
    case "unless-trusted":
      return "ask-all";
    default:
      return "ask-changes";
  }
}
