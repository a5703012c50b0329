/**
 * The validator of each foreign format and the repair plan it leads to: what Codex or the
 * Anthropic API needs from the history a file holds, checked on the file as its repair would
 * leave its lines.
 *
 * @module
 */
import { analyzeClaude, claudeFindings } from "./claude_code/_check.ts";
import { planClaudeRepair } from "./claude_code/_repair.ts";
import { analyzeCodex, codexFindings } from "./codex/_check.ts";
import { planCodexRepair } from "./codex/_repair.ts";
import type { ForeignRepair, SessionValidation } from "./_repair_types.ts";
import type { ForeignFormat } from "./_types.ts";

/**
 * Checks the Codex rollout or Claude Code transcript at `path` against what its tool needs:
 * every line readable; every call answered before the next user or assistant message (Claude
 * Code: by a `tool_result` in the very next message) and no result without its call; for
 * Claude Code, a parent chain that reaches its root.
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
  const { size } = await Deno.stat(path);
  const findings = format === "codex"
    ? codexFindings(path, await analyzeCodex(path, size))
    : claudeFindings(path, await analyzeClaude(path, size));
  return { format, path, valid: findings.length === 0, findings };
}

/**
 * Works out the repair of the Codex rollout or Claude Code transcript at `path` as it is now:
 * the lines that move to the sidecar, change, or are written, each exactly. Reads only.
 */
export async function planForeignRepair(
  path: string,
  format: ForeignFormat,
): Promise<ForeignRepair & { sizeBytes: number }> {
  const { size } = await Deno.stat(path);
  const plan = format === "codex"
    ? await planCodexRepair(path, size)
    : await planClaudeRepair(path, size);
  return { ...plan, sizeBytes: size };
}
