/**
 * Claude Code message content in turnlog's terms: text becomes messages, `tool_use` blocks
 * function calls (their `input` as the JSON arguments), `tool_result` blocks outputs with
 * their `is_error`; thinking, images and server tools are counted. Pure.
 *
 * @module
 */
import type { FunctionCallItem, FunctionCallOutputItem } from "../../record/mod.ts";
import { isObject, type Json, stringOf } from "../_line.ts";

/** What an assistant line holds. */
export interface AssistantContent {
  texts: string[];
  calls: FunctionCallItem[];
  ignored: string[];
  /** A `thinking` block's readable text, at the index of its kind in `ignored`. */
  thoughts: (string | undefined)[];
}

/** What a user line holds: tool outputs first (the API wants them first), then text. */
export interface UserContent {
  outputs: FunctionCallOutputItem[];
  text: string | undefined;
  ignored: string[];
}

function blockKind(type: string): string {
  if (type === "thinking" || type === "redacted_thinking") return "thinking";
  return type || "content_block";
}

/** Text blocks joined; other blocks counted. */
function blocksText(blocks: unknown[], ignored: string[]): string {
  const texts: string[] = [];
  for (const block of blocks) {
    if (typeof block === "string") {
      texts.push(block);
      continue;
    }
    if (!isObject(block)) continue;
    const type = stringOf(block.type) ?? "";
    if (type === "text" && typeof block.text === "string") texts.push(block.text);
    else if (type === "tool_reference") {
      texts.push(`[tool_reference: ${stringOf(block.tool_name) ?? "?"}]`);
    } else ignored.push(blockKind(type));
  }
  return texts.join("\n");
}

/** The content of an assistant line. */
export function assistantContent(message: Json): AssistantContent {
  const content = message.content;
  const result: AssistantContent = { texts: [], calls: [], ignored: [], thoughts: [] };
  if (typeof content === "string") {
    result.texts.push(content);
    return result;
  }
  if (!Array.isArray(content)) return result;
  for (const block of content) {
    if (!isObject(block)) continue;
    const type = stringOf(block.type) ?? "";
    if (type === "text" && typeof block.text === "string") {
      result.texts.push(block.text);
    } else if (type === "tool_use") {
      const id = stringOf(block.id);
      if (id === undefined || id.length === 0) {
        result.ignored.push("tool_use_without_id");
        continue;
      }
      const name = stringOf(block.name);
      result.calls.push({
        type: "function_call",
        callId: id,
        name: name && name.length > 0 ? name : "unknown",
        arguments: JSON.stringify(block.input ?? {}),
      });
    } else {
      // A signed block keeps its text; a redacted one only its encrypted data.
      if (type === "thinking" && typeof block.thinking === "string") {
        result.thoughts[result.ignored.length] = block.thinking;
      }
      result.ignored.push(blockKind(type));
    }
  }
  return result;
}

/** The content of a user line; `toolName` names a call by its id (`unknown` when none came). */
export function userContent(
  message: Json,
  toolName: (id: string) => string | undefined,
): UserContent {
  const content = message.content;
  const result: UserContent = { outputs: [], text: undefined, ignored: [] };
  if (typeof content === "string") {
    result.text = content;
    return result;
  }
  if (!Array.isArray(content)) return result;
  const rest: unknown[] = [];
  for (const block of content) {
    if (!isObject(block) || block.type !== "tool_result") {
      rest.push(block);
      continue;
    }
    const callId = stringOf(block.tool_use_id) ?? "";
    if (callId.length === 0) {
      result.ignored.push("tool_result_without_id");
      continue;
    }
    const inner = block.content;
    const output = typeof inner === "string"
      ? inner
      : Array.isArray(inner)
      ? blocksText(inner, result.ignored)
      : "";
    result.outputs.push({
      type: "function_call_output",
      callId,
      toolName: toolName(callId) ?? "unknown",
      output,
      isError: block.is_error === true,
    });
  }
  if (rest.length > 0) {
    const before = result.ignored.length;
    const text = blocksText(rest, result.ignored);
    // A line of images only still holds the user's turn.
    if (text.length > 0 || result.ignored.length > before) result.text = text;
  }
  return result;
}

/** The text of a summary: a compact summary's message or a `summary` line's field. */
export function summaryText(value: Json): string {
  if (typeof value.summary === "string") return value.summary;
  const message = value.message;
  if (!isObject(message)) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? blocksText(content, []) : "";
}
