/**
 * What the summary call of a compaction reads: its instructions and the history rendered as
 * one bounded text.
 *
 * @module
 */
import type { MessageItem, ResponseItem } from "../record/mod.ts";
import { clipMiddle } from "../text/mod.ts";

/** The default size of the history rendering the summary call reads, in characters. */
export const DEFAULT_RENDER_MAX_CHARS = 40_000;

/** The most characters of one tool output in the rendering. */
export const DEFAULT_RENDER_TOOL_OUTPUT_CHARS = 1_500;

/** The most characters of one message (or a call's arguments) in the rendering. */
export const DEFAULT_RENDER_ITEM_CHARS = 6_000;

/**
 * The instructions of the summary call: it sees no tools, only the rendered history, and
 * answers with the summary that will stand for the conversation.
 */
export const SUMMARY_INSTRUCTIONS = [
  "You are compacting the context of a coding agent's conversation. The conversation so far",
  "is given below (older parts may be omitted or clipped). Write a summary that lets the agent",
  "continue the work without the original messages. Use exactly these sections, each a list",
  'of short "- " items ("- none" when empty):',
  "",
  "Goal:",
  "Decisions:",
  "Files touched:",
  "Work done:",
  "Work left:",
  "Errors:",
  "",
  "Keep file paths, commands, identifiers and error messages verbatim. Carry forward what an",
  "earlier summary in the conversation says. Do not call tools; answer with the summary only.",
].join("\n");

/** Options of {@linkcode renderHistoryForSummary}. */
export interface SummaryRenderOptions {
  /** The most characters of the whole rendering. */
  maxChars?: number;
  /** The most characters of one tool output. */
  maxToolOutputChars?: number;
  /** The most characters of one message, summary or call's arguments. */
  maxItemChars?: number;
}

function renderItem(item: ResponseItem, options: Required<SummaryRenderOptions>): string {
  switch (item.type) {
    case "message":
      return `[${item.role}]\n${clipMiddle(item.content, options.maxItemChars)}`;
    case "compaction_summary":
      return `[summary of an earlier part]\n${clipMiddle(item.content, options.maxItemChars)}`;
    case "function_call":
      return `[tool call ${item.name} ${item.callId}]\n${
        clipMiddle(item.arguments, options.maxItemChars)
      }`;
    case "function_call_output":
      return `[tool output ${item.toolName} ${item.callId}${item.isError ? ", error" : ""}]\n${
        clipMiddle(item.output, options.maxToolOutputChars)
      }`;
  }
}

/**
 * The history as one bounded text for the summary call. The leading system message is left
 * out (the compacted history keeps it anyway). Every item is clipped (tool outputs hardest);
 * an earlier summary and the first user message are always in (they hold the goal), then the
 * newest items fill the rest of `maxChars`, and a line says how many older items were left
 * out. The result exceeds `maxChars` by at most the omission lines (a few dozen characters).
 *
 * @example
 * ```ts
 * import { renderHistoryForSummary } from "./_compaction.ts";
 * const text = renderHistoryForSummary([
 *   { type: "message", role: "user", content: "fix the bug" },
 *   { type: "function_call_output", callId: "c1", toolName: "read_file", output: "x".repeat(9000), isError: false },
 * ], { maxChars: 4000 });
 * console.assert(text.length <= 4100 && text.includes("fix the bug"));
 * ```
 */
export function renderHistoryForSummary(
  history: readonly ResponseItem[],
  options: SummaryRenderOptions = {},
): string {
  const resolved: Required<SummaryRenderOptions> = {
    maxChars: options.maxChars ?? DEFAULT_RENDER_MAX_CHARS,
    maxToolOutputChars: options.maxToolOutputChars ?? DEFAULT_RENDER_TOOL_OUTPUT_CHARS,
    maxItemChars: options.maxItemChars ?? DEFAULT_RENDER_ITEM_CHARS,
  };
  const items = history[0]?.type === "message" && history[0].role === "system"
    ? history.slice(1)
    : [...history];
  const separator = "\n\n";
  // Pinned items get at most half the budget, so the newest items always have room.
  const pinned = new Set<number>();
  const firstSummary = items.findIndex((item) => item.type === "compaction_summary");
  const firstUser = items.findIndex((item) => item.type === "message" && item.role === "user");
  for (const index of [firstSummary, firstUser]) if (index >= 0) pinned.add(index);
  const pinnedBudget = Math.floor(resolved.maxChars / 2);
  const rendered = new Map<number, string>();
  let used = 0;
  for (const index of [...pinned].sort((a, b) => a - b)) {
    const room = Math.max(0, Math.floor(pinnedBudget / pinned.size) - separator.length);
    const text = clipMiddle(renderItem(items[index]!, resolved), room);
    rendered.set(index, text);
    used += text.length + separator.length;
  }
  for (let index = items.length - 1; index >= 0; index--) {
    if (pinned.has(index)) continue;
    const text = renderItem(items[index]!, resolved);
    const cost = text.length + separator.length;
    if (used + cost > resolved.maxChars) {
      // The newest item always gets in, clipped to what is left.
      if (index === items.length - 1) {
        rendered.set(index, clipMiddle(text, Math.max(0, resolved.maxChars - used)));
      }
      break;
    }
    rendered.set(index, text);
    used += cost;
  }
  const parts: string[] = [];
  let omitted = 0;
  for (let index = 0; index < items.length; index++) {
    const text = rendered.get(index);
    if (text === undefined) {
      omitted++;
      continue;
    }
    if (omitted > 0) {
      parts.push(`[${omitted} earlier item${omitted === 1 ? "" : "s"} omitted]`);
      omitted = 0;
    }
    parts.push(text);
  }
  return parts.join(separator);
}

/** How a compaction summary starts when it is sent to the model as a user message. */
export const SUMMARY_PREFIX = "Summary of the earlier conversation:\n";

/** The first line of the summary call's user message; the rendered history follows it. */
export const TRANSCRIPT_HEADING = "The conversation to summarize:";

/**
 * The messages of the summary call: the instructions, then the rendered history as one user
 * message. Send them without tools.
 */
export function summaryRequestItems(
  history: readonly ResponseItem[],
  options: SummaryRenderOptions = {},
): MessageItem[] {
  return [
    { type: "message", role: "system", content: SUMMARY_INSTRUCTIONS },
    {
      type: "message",
      role: "user",
      content: `${TRANSCRIPT_HEADING}\n\n${renderHistoryForSummary(history, options)}`,
    },
  ];
}
