/**
 * How long Claude Code keeps its transcripts: at startup it deletes those last written more
 * than `cleanupPeriodDays` days ago (30 when its `settings.json` says nothing).
 *
 * @module
 */
import { dirname, join } from "../../_path.ts";
import type { FormatRetention } from "../_adapter.ts";

/** Claude Code's own default `cleanupPeriodDays`. */
export const CLAUDE_CLEANUP_DAYS = 30;

/**
 * The retention of the Claude Code home whose projects folder is `root`: `cleanupPeriodDays`
 * of the `settings.json` beside it, else the default.
 */
export async function claudeRetention(root: string): Promise<FormatRetention> {
  const settings = join(dirname(root), "settings.json");
  try {
    const parsed = JSON.parse(await Deno.readTextFile(settings));
    const days = parsed?.cleanupPeriodDays;
    if (typeof days === "number" && Number.isFinite(days) && days >= 0) {
      return { days, source: `cleanupPeriodDays in ${settings}` };
    }
  } catch {
    // No settings file, or one that is not JSON: Claude Code's default applies.
  }
  return { days: CLAUDE_CLEANUP_DAYS, source: "Claude Code's default (no cleanupPeriodDays)" };
}
