/**
 * The check of each foreign format and the repair plan it leads to, asked of the file's
 * adapter: what the tool's API needs from the history a file holds, checked on the file as
 * its repair would leave its lines.
 *
 * @module
 */
import type { ForeignRepair, SessionValidation } from "./_repair_types.ts";
import type { ForeignFormat } from "./_types.ts";
import { recoverLinePieces } from "./_view.ts";
import { readableBytes } from "../io/mod.ts";
import { adapterFor } from "./registry.ts";

/**
 * Checks the other tool's session file at `path` against what its tool needs (its adapter's
 * `check`): every line readable; every call answered before the next user or assistant
 * message (Claude Code: by a `tool_result` in the very next message) and no result without
 * its call; for Claude Code, a parent chain that reaches its root.
 *
 * @example
 * ```ts ignore
 * const verdict = await validateSessionFile("rollout.jsonl", "codex");
 * for (const finding of verdict.findings) console.log(finding.message);
 * ```
 */
export async function validateSessionFile(
  path: string,
  format: ForeignFormat,
): Promise<SessionValidation> {
  const adapter = adapterFor(format);
  const { size } = await Deno.stat(path);
  const findings = await adapter.check(path, readableBytes(path, size));
  return { format, path, valid: findings.length === 0, findings };
}

/**
 * Works out the repair of the other tool's session file at `path` as it is now (its adapter's
 * `planRepair`): the lines that move to the sidecar, change, or are written, each exactly.
 * Reads only.
 */
export async function planForeignRepair(
  path: string,
  format: ForeignFormat,
): Promise<ForeignRepair & { sizeBytes: number }> {
  const adapter = adapterFor(format);
  const { size } = await Deno.stat(path);
  const readable = readableBytes(path, size);
  return { ...(await adapter.planRepair(path, readable)), sizeBytes: readable };
}

/**
 * The records a bad line of a format still holds, each a whole line of the format: objects
 * glued together, an object behind or before NUL padding, or the objects after a torn
 * fragment. Empty when there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recoverPieces } from "./mod.ts";
 * const glued = '{"type":"user","uuid":"a"}{"type":"user","uuid":"b"}';
 * assert.equal(recoverPieces("claude-code", glued).length, 2);
 * assert.equal(recoverPieces("claude-code", "\u0000\u0000").length, 0);
 * ```
 */
export function recoverPieces(
  format: ForeignFormat,
  text: string,
): { type: string; text: string }[] {
  return recoverLinePieces(adapterFor(format).lines, text);
}
