/**
 * What a Claude Code transcript counts as one of its lines: any JSON object (its reader passes
 * over the types it does not know), linked to its parent by `uuid` and `parentUuid`.
 *
 * @module
 */
import type { LineRules } from "../_view.ts";

/** The line rules of Claude Code transcripts, for their check and repair. */
export const CLAUDE_LINES: LineRules = {
  notALine: () => undefined,
  links: true,
  firstKeys: ["parentUuid", "type", "uuid", "leafUuid", "sessionId", "timestamp"],
};
