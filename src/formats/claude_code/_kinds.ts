/**
 * What each line of a Claude Code transcript is, told from its parsed object: its kind as far as
 * the conversation goes, and the label an ignored entry counts it under.
 *
 * @module
 */
import { isObject, type Json, stringOf } from "../_line.ts";

/** Every kind a line can be, as far as the conversation goes (a node keeps its index). */
export const NODE_KINDS = [
  "problem",
  "meta",
  "prompt",
  "tool_result",
  "user_meta",
  "compact_summary",
  "command",
  "local_output",
  "interrupt",
  "assistant",
  "boundary",
  "turn_duration",
  "system",
  "summary",
  "progress",
  "attachment",
  "other",
] as const;

/** What a line is, as far as the conversation goes. */
export type NodeKind = typeof NODE_KINDS[number];

/** The kinds of user lines that go into the conversation's messages. */
export const USER_KINDS: ReadonlySet<NodeKind> = new Set([
  "prompt",
  "tool_result",
  "user_meta",
  "compact_summary",
  "command",
  "local_output",
  "interrupt",
]);

/** Whether a line of this kind is a message of the conversation: a user line or the model's. */
export const isMessageKind = (kind: NodeKind): boolean =>
  kind === "assistant" || USER_KINDS.has(kind);

const LOCAL_OUTPUT =
  /^\s*<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr|bash-input)>/;
const COMMAND = /^\s*<(command-name|command-message)>/;
const INTERRUPT = /^\[Request interrupted by user/;

/** The first text of a user message's content. */
function firstText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") {
      return block.text;
    }
  }
  return undefined;
}

function userKind(value: Json, message: Json): NodeKind {
  if (value.isCompactSummary === true) return "compact_summary";
  const content = message.content;
  if (Array.isArray(content) && content.some((b) => isObject(b) && b.type === "tool_result")) {
    return "tool_result";
  }
  if (value.isMeta === true) return "user_meta";
  const text = firstText(content) ?? "";
  if (INTERRUPT.test(text)) return "interrupt";
  if (LOCAL_OUTPUT.test(text)) return "local_output";
  if (COMMAND.test(text)) return "command";
  return "prompt";
}
/** Lines without a uuid whose facts the reader takes (titles, the permission mode). */
const ABSORBED: ReadonlySet<string> = new Set([
  "summary",
  "last-prompt",
  "permission-mode",
  "custom-title",
  // 2.1.328: the session's cost as Claude Code reckons it, kept in the facts (`cost`).
  "cost-state",
]);

/**
 * Claude Code's own bookkeeping, known by name and counted as ignored under it: nothing of the
 * conversation. 2.1.328 adds the request log (`api-request`, its `api-request-shape` and
 * `api-request-blob`s), `atis-latch`, `tools-used` and `mode` (its `cost-state` is read into
 * the facts). Any other type is counted as `unknown:<type>`.
 */
const BOOKKEEPING: ReadonlySet<string> = new Set([
  "file-history-snapshot",
  "queue-operation",
  "atis-latch",
  "api-request-shape",
  "api-request-blob",
  "api-request",
  "tools-used",
  "mode",
]);

/** The kind of a line that has been parsed, from its `type` and `message` read once. */
export function classify(value: Json, type: string, message: Json | undefined): NodeKind {
  if (type === "user" && message) return userKind(value, message);
  if (type === "assistant" && message) return "assistant";
  if (typeof value.uuid !== "string") return "meta";
  switch (type) {
    case "system": {
      const subtype = stringOf(value.subtype);
      if (subtype === "compact_boundary") return "boundary";
      return subtype === "turn_duration" ? "turn_duration" : "system";
    }
    case "summary":
      return "summary";
    case "progress":
      return "progress";
    case "attachment":
      return "attachment";
    default:
      return "other";
  }
}

/**
 * The label of a `system` line that says Claude Code used another model than the session's:
 * an entry of its place, not counted as ignored (the facts' `modelSwaps` hold what it says).
 */
export const MODEL_SWAP = "model_swap";

/** The label an ignored entry counts a line of `kind` under, or undefined when it has none. */
export function labelOf(kind: NodeKind, type: string, value: Json): string | undefined {
  switch (kind) {
    case "meta":
      if (ABSORBED.has(type)) return undefined;
      return BOOKKEEPING.has(type) ? type : `unknown:${type || "line"}`;
    case "system": {
      // 2.1.332: the model a resume swapped in for a retired one (shown, not ignored).
      if (isObject(value.modelRestriction)) return MODEL_SWAP;
      const subtype = stringOf(value.subtype);
      return subtype ? `system:${subtype}` : "system";
    }
    case "progress":
    case "attachment":
      return kind;
    case "other":
      return type || "unknown_line";
    default:
      return undefined;
  }
}
