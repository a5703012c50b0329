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

/** One rollout a fork's inherited history was read from. */
export interface CodexHistorySource {
  /** The thread it is the rollout of. */
  threadId: string;
  /** Its path. */
  path: string;
  /** Its lines read into the history. */
  lines: number;
}

/**
 * A fork's inherited history (`history_base` of its `session_meta`, Codex 0.169 and later in
 * paginated mode): the thread, where its history ends, and where it was read from.
 */
export interface CodexInheritedHistory {
  /** The thread `history_base` names. */
  threadId: string;
  /** The history is that thread's records with an ordinal below this (null: not said). */
  endOrdinalExclusive: number | null;
  /** ... and its rollout's bytes before this (null: not said). */
  endByteOffset: number | null;
  /** The rollouts read, oldest ancestor first. */
  sources: CodexHistorySource[];
  /**
   * Why some of the history could not be read (a rollout not in the home, a cycle), for a
   * person; null when it was all read. What the fork itself holds is read either way.
   */
  missing: string | null;
}

/** Facts only a Codex rollout has. */
export interface CodexFacts {
  /** `session_meta.originator` (the Codex client). */
  originator: string | null;
  /** `session_meta.source` (`cli`, `vscode`, `exec`, a subagent's origin as JSON). */
  source: string | null;
  /** The session this one was forked from. */
  forkedFromId: string | null;
  /** The history a paginated fork starts from, read from its parent's rollout; null: none. */
  inherited: CodexInheritedHistory | null;
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
