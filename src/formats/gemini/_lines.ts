/**
 * What a Gemini CLI session file counts as one of its lines: its metadata line, a message
 * record (an `id`), a `$set` or a `$rewindTo`.
 *
 * @module
 */
import type { LineRules } from "../_view.ts";
import { roleOf } from "./_replay.ts";

/** The line rules of Gemini CLI session files, for their check and repair. */
export const GEMINI_LINES: LineRules = {
  notALine(value) {
    return roleOf(value) === "unknown"
      ? { kind: "unknown_type", what: "not a Gemini CLI session record" }
      : undefined;
  },
  // Where a line glued after another starts (read as a pattern: `$` is escaped).
  firstKeys: ["sessionId", "id", "\\$set", "\\$rewindTo"],
};
