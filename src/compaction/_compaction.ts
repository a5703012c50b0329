/**
 * Context compaction's pure parts: when to compact, what the summary call reads, the
 * replacement history, and the checkpoint record that stores it. The runtime owns the model
 * call and the append; nothing here does I/O.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import {
  CHECKPOINT_VERSION,
  type CompactionCheckpoint,
  CompactionCheckpointSchema,
  type MessageItem,
  type ResponseItem,
  type Usage,
} from "../record/mod.ts";

/**
 * Context windows (in tokens) of known model families, matched by the longest name prefix.
 * Only the threshold is derived from them; an exact figure is not needed.
 */
export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "gpt-5": 400_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3.5-turbo": 16_385,
  "o1": 200_000,
  "o3": 200_000,
  "o4-mini": 200_000,
};

/**
 * The context window assumed for a model the table does not know (a local model, the
 * embedded one): small, because compacting too early loses detail while compacting too late
 * fails the request.
 */
export const DEFAULT_CONTEXT_WINDOW = 32_000;

/**
 * The share of the context window at which a history is compacted. The check runs after a
 * round, and the next round can add a large tool output before the next check: a quarter
 * of the window is that headroom.
 */
export const THRESHOLD_FRACTION = 0.75;

/** Fewer removed items than this is not worth a summary call (the summary adds one item). */
export const MIN_REMOVED_ITEMS = 2;

/** The default token budget of the user messages a compaction keeps. */
export const DEFAULT_USER_BUDGET_TOKENS = 5_000;

/** The default size of the history rendering the summary call reads, in characters. */
export const DEFAULT_RENDER_MAX_CHARS = 40_000;

/** The most characters of one tool output in the rendering. */
export const DEFAULT_RENDER_TOOL_OUTPUT_CHARS = 1_500;

/** The most characters of one message (or a call's arguments) in the rendering. */
export const DEFAULT_RENDER_ITEM_CHARS = 6_000;

/**
 * A token estimate of a text: a quarter of its characters, the usual figure for English and
 * code with OpenAI's tokenizers (the embedded model counts the same way).
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The compaction threshold a model gets by default: {@linkcode THRESHOLD_FRACTION} of its window. */
export function defaultCompactThreshold(model: string): number {
  return Math.floor((knownContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW) * THRESHOLD_FRACTION);
}

/** The window of the table's longest prefix of `model` (a provider prefix `x/` ignored). */
function knownContextWindow(model: string): number | undefined {
  const name = model.toLowerCase().replace(/^[a-z0-9_-]+\//, "");
  let best: string | undefined;
  for (const prefix of Object.keys(MODEL_CONTEXT_WINDOWS)) {
    if (name.startsWith(prefix) && (best === undefined || prefix.length > best.length)) {
      best = prefix;
    }
  }
  return best === undefined ? undefined : MODEL_CONTEXT_WINDOWS[best];
}

/** A compaction threshold a user gave that is not a positive whole number of tokens. */
export class InvalidThresholdError extends TurnlogError {
  constructor(value: unknown, options?: ErrorOptions) {
    super(
      "usage",
      `Invalid compaction threshold ${
        JSON.stringify(value)
      }: expected a positive whole number of tokens`,
      options,
    );
    this.name = "InvalidThresholdError";
  }
}

/** The threshold a run uses and where it came from. */
export interface ResolvedThreshold {
  tokens: number;
  source: "override" | "model" | "default";
}

/**
 * The threshold a run uses: the override (`--compact-threshold`) when given, else the
 * model's default. A string override (a CLI flag's text) is parsed.
 *
 * @throws {InvalidThresholdError} for an override that is not a positive integer
 *
 * @example
 * ```ts
 * import { resolveCompactThreshold } from "./_compaction.ts";
 * console.assert(resolveCompactThreshold({ model: "gpt-4o" }).tokens === 96_000);
 * console.assert(resolveCompactThreshold({ model: "gpt-4o", override: "500" }).tokens === 500);
 * ```
 */
export function resolveCompactThreshold(
  options: { model: string; override?: number | string | undefined },
): ResolvedThreshold {
  const { model, override } = options;
  if (override !== undefined) {
    const tokens = typeof override === "string" && /^\s*\d+\s*$/.test(override)
      ? Number(override)
      : override;
    if (typeof tokens !== "number" || !Number.isSafeInteger(tokens) || tokens <= 0) {
      throw new InvalidThresholdError(override);
    }
    return { tokens, source: "override" };
  }
  const source = knownContextWindow(model) === undefined ? "default" : "model";
  return { tokens: defaultCompactThreshold(model), source };
}

/** Whether to compact now, and why. */
export type CompactionDecision =
  & {
    /** The tokens compared: the last round's total (its input plus its output). */
    tokens: number;
    threshold: number;
    /** One sentence for an event or a log line. */
    message: string;
  }
  & (
    | { compact: true; reason: "token_threshold" }
    | { compact: false; reason: "no_usage" | "below_threshold" | "too_little_history" }
  );

/** Options of {@linkcode shouldCompact}. */
export interface ShouldCompactOptions {
  /** The usage the model reported for the last round, or its total tokens. */
  usage: Usage | number | undefined;
  /** Compact at or above this many tokens. */
  threshold: number;
  /** The history the next request would send. */
  history: readonly ResponseItem[];
  /** The budget {@linkcode compactHistory} will use, to tell what it would remove. */
  userBudgetTokens?: number;
  /** Compact only when at least this many items would go; default {@linkcode MIN_REMOVED_ITEMS}. */
  minRemovedItems?: number;
}

/**
 * Decides whether a history should be compacted. Checked after every model round and at the
 * start of a resumed turn. The tokens compared are the last round's total: its input plus
 * its output is about what the next request sends. Below the threshold nothing happens; above
 * it, a history whose compaction would remove fewer than `minRemovedItems` items is left
 * alone too (a summary call would cost more than it saves).
 *
 * @example
 * ```ts
 * import { shouldCompact } from "./_compaction.ts";
 * const decision = shouldCompact({ usage: 100, threshold: 8000, history: [] });
 * console.assert(!decision.compact && decision.reason === "below_threshold");
 * ```
 */
export function shouldCompact(options: ShouldCompactOptions): CompactionDecision {
  const { usage, threshold, history } = options;
  const tokens = usage === undefined ? 0 : typeof usage === "number" ? usage : usage.totalTokens;
  if (usage === undefined) {
    return {
      compact: false,
      reason: "no_usage",
      tokens,
      threshold,
      message: "The model reported no token usage; nothing to compare with the threshold",
    };
  }
  if (tokens < threshold) {
    return {
      compact: false,
      reason: "below_threshold",
      tokens,
      threshold,
      message: `${tokens} tokens is below the compaction threshold of ${threshold}`,
    };
  }
  const removable = planKept(history, options.userBudgetTokens).removedItemCount;
  const minimum = options.minRemovedItems ?? MIN_REMOVED_ITEMS;
  if (removable < minimum) {
    return {
      compact: false,
      reason: "too_little_history",
      tokens,
      threshold,
      message: `${tokens} tokens reaches the threshold of ${threshold}, but compaction would ` +
        `remove only ${removable} of ${history.length} items (at least ${minimum} needed)`,
    };
  }
  return {
    compact: true,
    reason: "token_threshold",
    tokens,
    threshold,
    message: `${tokens} tokens reaches the compaction threshold of ${threshold}; ` +
      `${removable} of ${history.length} items can go`,
  };
}

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
export interface RenderOptions {
  /** The most characters of the whole rendering. */
  maxChars?: number;
  /** The most characters of one tool output. */
  maxToolOutputChars?: number;
  /** The most characters of one message, summary or call's arguments. */
  maxItemChars?: number;
}

/** Clips a text to `max` characters, keeping its head and tail and saying how much went. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => `\n[... ${cut} characters clipped ...]\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil(room * 0.6);
  const tail = room - head;
  return text.slice(0, head) + marker(text.length - room) + (tail > 0 ? text.slice(-tail) : "");
}

function renderItem(item: ResponseItem, options: Required<RenderOptions>): string {
  switch (item.type) {
    case "message":
      return `[${item.role}]\n${clipText(item.content, options.maxItemChars)}`;
    case "compaction_summary":
      return `[summary of an earlier part]\n${clipText(item.content, options.maxItemChars)}`;
    case "function_call":
      return `[tool call ${item.name} ${item.callId}]\n${
        clipText(item.arguments, options.maxItemChars)
      }`;
    case "function_call_output":
      return `[tool output ${item.toolName} ${item.callId}${item.isError ? ", error" : ""}]\n${
        clipText(item.output, options.maxToolOutputChars)
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
  options: RenderOptions = {},
): string {
  const resolved: Required<RenderOptions> = {
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
    const text = clipText(renderItem(items[index]!, resolved), room);
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
        rendered.set(index, clipText(text, Math.max(0, resolved.maxChars - used)));
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
  options: RenderOptions = {},
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

/** What {@linkcode compactHistory} returns. */
export interface CompactedHistory {
  /** The new model-visible history: system message, summary, recent user messages. */
  replacementHistory: ResponseItem[];
  /** Items of the old history that are gone. */
  removedItemCount: number;
  /** Items of the old history that stay (the summary is new, so it is not counted). */
  keptItemCount: number;
}

/** Options of {@linkcode compactHistory}. */
export interface CompactOptions {
  /**
   * Token budget (estimated, {@linkcode estimateTokens}) of the user messages kept; the
   * newest one is kept even when it alone is over it.
   */
  userBudgetTokens?: number;
}

function planKept(
  history: readonly ResponseItem[],
  userBudgetTokens = DEFAULT_USER_BUDGET_TOKENS,
): { system: MessageItem | undefined; users: MessageItem[]; removedItemCount: number } {
  const first = history[0];
  const system = first?.type === "message" && first.role === "system" ? first : undefined;
  const users: MessageItem[] = [];
  let spent = 0;
  for (let index = history.length - 1; index >= (system ? 1 : 0); index--) {
    const item = history[index]!;
    if (item.type !== "message" || item.role !== "user") continue;
    const cost = estimateTokens(item.content);
    if (users.length > 0 && spent + cost > userBudgetTokens) break;
    users.unshift(item);
    spent += cost;
  }
  const kept = users.length + (system ? 1 : 0);
  return { system, users, removedItemCount: history.length - kept };
}

/**
 * The compaction transform. The new history is the leading system message (if the history
 * starts with one), one `compaction_summary` item holding `summary`, and the most recent user
 * messages whose estimated tokens fit `userBudgetTokens` (a contiguous run ending with the
 * newest, which is kept even over budget). Assistant messages, earlier summaries and every tool
 * item go, so no call can be left without its output.
 *
 * @example
 * ```ts
 * import { compactHistory } from "./_compaction.ts";
 * const { replacementHistory, removedItemCount } = compactHistory([
 *   { type: "message", role: "system", content: "sys" },
 *   { type: "message", role: "user", content: "read a.txt" },
 *   { type: "function_call", callId: "c1", name: "read_file", arguments: "{}" },
 * ], "Goal:\n- read a.txt");
 * console.assert(replacementHistory.length === 3 && removedItemCount === 1);
 * ```
 */
export function compactHistory(
  history: readonly ResponseItem[],
  summary: string,
  options: CompactOptions = {},
): CompactedHistory {
  const { system, users, removedItemCount } = planKept(history, options.userBudgetTokens);
  const replacementHistory: ResponseItem[] = [
    ...(system ? [system] : []),
    { type: "compaction_summary", content: summary },
    ...users,
  ];
  return {
    replacementHistory,
    removedItemCount,
    keptItemCount: history.length - removedItemCount,
  };
}

/**
 * The payload of the checkpoint record a compaction appends (wrap it with
 * `responseItemRecord`). It carries the replacement history itself and
 * {@linkcode CHECKPOINT_VERSION}, so replay never re-runs the transform: changing the
 * transform or its budget later does not change how an old session replays. Append only this
 * record; the summary item is inside it.
 *
 * @throws {Error} (a zod error) when the parts do not make a valid checkpoint, which is a bug
 */
export function makeCheckpoint(
  compacted: CompactedHistory,
  details: { reason: string; tokensBefore: number; recordsBefore?: number },
): CompactionCheckpoint {
  return CompactionCheckpointSchema.parse({
    type: "compaction_checkpoint",
    version: CHECKPOINT_VERSION,
    reason: details.reason,
    tokensBefore: details.tokensBefore,
    removedItemCount: compacted.removedItemCount,
    keptItemCount: compacted.keptItemCount,
    ...(details.recordsBefore === undefined ? {} : { recordsBefore: details.recordsBefore }),
    replacementHistory: compacted.replacementHistory,
  });
}
