/**
 * A Claude Code transcript's line rules for the catalog's continued facts (`FormatResume`):
 * lines link to a parent by `parentUuid`, calls are `tool_use` blocks answered by `tool_result`
 * blocks, and a compaction refuses; a line whose parent is not the last line's (a rewind, a
 * fork) is told by its link.
 *
 * @module
 */
import type { Json } from "../_line.ts";
import type { FormatResume } from "../_resume.ts";

const NONE: readonly string[] = [];
/** A line that opens and answers no call (most lines). */
const NO_CALLS = { opens: NONE, answers: NONE };

/** The content blocks of a line's message (none when it has no array of them). */
function blocksOf(value: Json): readonly unknown[] {
  const message = value.message;
  if (typeof message !== "object" || message === null) return NONE;
  const content = (message as Json).content;
  return Array.isArray(content) ? content : NONE;
}

/** Claude Code's rules (see the module). */
export const claudeCodeResume: FormatResume = {
  head: () => false,
  calls(value) {
    if (value.type !== "assistant" && value.type !== "user") return NO_CALLS;
    let opens: string[] | undefined;
    let answers: string[] | undefined;
    for (const block of blocksOf(value)) {
      if (typeof block !== "object" || block === null) continue;
      const { type, id, tool_use_id: answered } = block as Json;
      if (type === "tool_use" && typeof id === "string") (opens ??= []).push(id);
      else if (type === "tool_result" && typeof answered === "string") {
        (answers ??= []).push(answered);
      }
    }
    return opens === undefined && answers === undefined
      ? NO_CALLS
      : { opens: opens ?? NONE, answers: answers ?? NONE };
  },
  link(value) {
    if (typeof value.uuid !== "string") return null;
    return {
      id: value.uuid,
      parent: typeof value.parentUuid === "string" ? value.parentUuid : null,
    };
  },
  refuses(value) {
    if (value.type === "system" && value.subtype === "compact_boundary") return "a compaction";
    if (value.isCompactSummary === true) return "a compaction's summary";
    if (value.type === "summary") return "a summary line";
    return undefined;
  },
  detach: (value) => ({ ...value, parentUuid: null }),
};
