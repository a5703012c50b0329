/**
 * The judge of an export: the conversation a request carries (Responses, Messages or Gemini,
 * told by its body), in one wire-neutral list of user texts, assistant texts, calls and results
 * in request order, each tool's injected context left out; and whether a target's request
 * carries every item of the source's, in order.
 *
 * @module
 */

import { SUMMARY_PREFIX } from "../../src/compaction/mod.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One thing a request carries. */
export type SentItem =
  | { kind: "user" | "assistant"; text: string }
  | { kind: "call"; name: string; args: unknown }
  | { kind: "result"; text: string };

/** Context a tool injects into user messages: a block wrapped whole in one tag, AGENTS.md. */
const INJECTED = /^\s*<([a-z_-]+)>[\s\S]*<\/\1>\s*$/;

function injected(text: string): boolean {
  return INJECTED.test(text) || text.startsWith("# AGENTS.md") ||
    text.trimStart().startsWith("<system-reminder>") ||
    text.trimStart().startsWith("<session_context>");
}

function parsed(args: unknown): unknown {
  if (typeof args !== "string") return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : JSON.stringify(content);
  return content.map((part: Json) => typeof part?.text === "string" ? part.text : "").join("");
}

function responsesItems(body: Json): SentItem[] {
  const items: SentItem[] = [];
  const input = typeof body.input === "string"
    ? [{ type: "message", role: "user", content: body.input }]
    : body.input ?? [];
  for (const item of input) {
    if (item.type === "message" && (item.role === "user" || item.role === "assistant")) {
      const parts = typeof item.content === "string" ? [{ text: item.content }] : item.content;
      for (const part of parts) {
        if (typeof part.text === "string") items.push({ kind: item.role, text: part.text });
      }
    } else if (item.type === "function_call" || item.type === "custom_tool_call") {
      const args = item.type === "function_call" ? item.arguments : item.input;
      items.push({ kind: "call", name: item.name, args: parsed(args) });
    } else if (
      item.type === "function_call_output" || item.type === "custom_tool_call_output"
    ) {
      items.push({ kind: "result", text: partsText(item.output) });
    }
  }
  return items;
}

function messagesItems(body: Json): SentItem[] {
  const items: SentItem[] = [];
  for (const message of body.messages ?? []) {
    if (message.role !== "user" && message.role !== "assistant") continue;
    const blocks = typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : message.content;
    for (const block of blocks) {
      if (block.type === "text") items.push({ kind: message.role, text: block.text });
      else if (block.type === "tool_use") {
        items.push({ kind: "call", name: block.name, args: block.input });
      } else if (block.type === "tool_result") {
        items.push({ kind: "result", text: partsText(block.content) });
      }
    }
  }
  return items;
}

function geminiItems(body: Json): SentItem[] {
  const items: SentItem[] = [];
  for (const content of body.contents ?? []) {
    const role = content.role === "model" ? "assistant" : "user";
    for (const part of content.parts ?? []) {
      if (part.functionCall) {
        items.push({ kind: "call", name: part.functionCall.name, args: part.functionCall.args });
      } else if (part.functionResponse) {
        const response = part.functionResponse.response ?? {};
        const text = typeof response.output === "string"
          ? response.output
          : typeof response.error === "string"
          ? response.error
          : JSON.stringify(response);
        items.push({ kind: "result", text });
      } else if (typeof part.text === "string" && part.thought !== true) {
        items.push({ kind: role, text: part.text });
      }
    }
  }
  return items;
}

/**
 * The conversation a request body carries, its tool's injected context and empty texts left
 * out, and the texts of one role in a row joined (tools split and join a message's text
 * blocks differently).
 */
export function sentConversation(body: unknown): SentItem[] {
  const value = body as Json;
  const raw = "messages" in value
    ? messagesItems(value)
    : "contents" in value
    ? geminiItems(value)
    : responsesItems(value);
  const items: SentItem[] = [];
  for (const item of raw) {
    if (item.kind === "user" || item.kind === "assistant") {
      // A compaction summary as turnlog sends it: its summary is what a target must carry
      // (each tool words its own lead-in).
      const text = item.text.replace(SUMMARY_PREFIX, "").trim();
      if (text === "" || item.kind === "user" && injected(text)) continue;
      const last = items.at(-1);
      if (last?.kind === item.kind) last.text = `${last.text}\n\n${text}`;
      else items.push({ kind: item.kind, text });
    } else items.push(item);
  }
  return items;
}

/** An item, in short, for a message. */
export function shortItem(item: SentItem | undefined): string {
  if (item === undefined) return "nothing";
  const text = item.kind === "call" ? `${item.name} ${JSON.stringify(item.args)}` : item.text;
  return `${item.kind}: ${text.length > 120 ? `${text.slice(0, 120)}...` : text}`;
}

function same(a: SentItem, b: SentItem): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "call" && b.kind === "call") {
    // Arguments that are not a JSON object go to an API of objects as {input}, as counted.
    const args = typeof a.args === "string" && typeof b.args === "object"
      ? { input: a.args }
      : a.args;
    return a.name === b.name && JSON.stringify(args) === JSON.stringify(b.args);
  }
  return (a as { text: string }).text.trim() === (b as { text: string }).text.trim();
}

/**
 * The items of `truth` that `sent` does not carry in order (as a subsequence: the target's own
 * context may stand between them), in short; empty when it carries every one. A text may also
 * be carried joined with its neighbours of the same role.
 */
export function missingInOrder(truth: readonly SentItem[], sent: readonly SentItem[]): string[] {
  const missing: string[] = [];
  let at = 0;
  for (const item of truth) {
    let found = -1;
    for (let i = at; i < sent.length; i++) {
      const candidate = sent[i]!;
      if (
        same(item, candidate) ||
        (item.kind === "user" || item.kind === "assistant") && candidate.kind === item.kind &&
          candidate.text.includes(item.text.trim())
      ) {
        found = i;
        break;
      }
    }
    if (found === -1) missing.push(shortItem(item));
    else at = found + (sent[found]!.kind === "call" || sent[found]!.kind === "result" ? 1 : 0);
  }
  return missing;
}

/** Counts of a conversation: user and assistant texts, calls, results. */
export function countsOf(items: readonly SentItem[]): Record<SentItem["kind"], number> {
  const counts = { user: 0, assistant: 0, call: 0, result: 0 };
  for (const item of items) counts[item.kind]++;
  return counts;
}
