/**
 * The policy a continued session runs under when the user names none on this run: the one it
 * recorded, unless that is looser than the default and the session did not start here (it was
 * imported from another tool, or recorded in another folder: another machine's, or one that is
 * gone). Then the default: another tool's or another place's trust does not carry over.
 *
 * @module
 */
import type { ApprovalMode, Policy, SessionMeta } from "../record/mod.ts";

/** How much each approval mode asks: a higher rank asks more. */
const STRICTNESS: Record<ApprovalMode, number> = { auto: 0, "ask-changes": 1, "ask-all": 2 };

/** The recorded policy held back, and why. */
export interface HeldPolicy {
  /** The policy the session recorded, looser than the one the run gets. */
  recorded: Policy;
  /** Why it does not carry over, in words for a person. */
  reason: string;
}

/**
 * The policy of a continued session's run and, when the recorded one was held back, why.
 * `workspace` is the folder the run's tools work in.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { policyForContinued } from "./mod.ts";
 * const meta = { cwd: "/elsewhere", importedFrom: undefined };
 * const ask = { approval: "ask-changes" } as const;
 * const held = policyForContinued({ approval: "auto" }, meta, { workspace: "/here", fallback: ask });
 * assert.deepEqual(held.policy, ask);
 * assert.deepEqual(held.held?.recorded, { approval: "auto" });
 * ```
 */
export function policyForContinued(
  recorded: Policy,
  meta: Pick<SessionMeta, "cwd" | "importedFrom">,
  options: { workspace: string; fallback: Policy },
): { policy: Policy; held?: HeldPolicy } {
  const { workspace, fallback } = options;
  if (STRICTNESS[recorded.approval] >= STRICTNESS[fallback.approval]) return { policy: recorded };
  const reason = meta.importedFrom !== undefined
    ? `the session was imported from another tool's file (${meta.importedFrom.path})`
    : meta.cwd !== workspace
    ? `the session was recorded in ${meta.cwd}, not in this workspace`
    : undefined;
  return reason === undefined
    ? { policy: recorded }
    : { policy: fallback, held: { recorded, reason } };
}
