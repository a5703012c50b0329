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

function blocksOf(value: Json): Json[] {
  const message = value.message;
  if (typeof message !== "object" || message === null || Array.isArray(message)) return [];
  const content = (message as Json).content;
  return Array.isArray(content)
    ? content.filter((block): block is Json => typeof block === "object" && block !== null)
    : [];
}

/** Claude Code's rules (see the module). */
export const claudeCodeResume: FormatResume = {
  head: () => false,
  calls(value) {
    if (value.type !== "assistant" && value.type !== "user") return { opens: NONE, answers: NONE };
    let opens: string[] | undefined;
    let answers: string[] | undefined;
    for (const block of blocksOf(value)) {
      if (block.type === "tool_use" && typeof block.id === "string") {
        (opens ??= []).push(block.id);
      } else if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
        (answers ??= []).push(block.tool_use_id);
      }
    }
    return { opens: opens ?? NONE, answers: answers ?? NONE };
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
