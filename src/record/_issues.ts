/**
 * Validation issues in words: the one way turnlog tells what a schema rejected.
 *
 * @module
 */

/** The issues of a failed validation, as zod reports them. */
export interface ValidationIssues {
  /** Each issue: where in the value (a path of keys) and what is wrong. */
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}

/**
 * The first issue of a failed validation as `path.to.field: what is wrong` (the message alone
 * when the value itself is wrong).
 *
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * import { firstIssue } from "./_issues.ts";
 * assertEquals(firstIssue({ issues: [{ path: ["payload", "callId"], message: "Too small" }] }), "payload.callId: Too small");
 * ```
 */
export function firstIssue(error: ValidationIssues, fallback = "invalid value"): string {
  const issue = error.issues[0];
  if (!issue) return fallback;
  const where = issue.path.map(String).join(".");
  return where ? `${where}: ${issue.message}` : issue.message;
}
