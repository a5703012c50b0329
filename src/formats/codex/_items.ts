/**
 * One Codex `response_item` payload in turnlog's terms: messages, tool calls and their outputs
 * (with the failure the output's own text or an earlier event tells), and what turnlog's
 * model cannot hold, named by kind. Pure.
 *
 * @module
 */
import type { ResponseItem } from "../../record/mod.ts";
import { isObject, type Json, num, objectOf, stringOf } from "../_line.ts";

/** What one Codex item becomes. */
export interface MappedItem {
  /** History items, in order. */
  items: ResponseItem[];
  /** Kinds of what could not be held (`reasoning`, `image`, ...), one per occurrence. */
  ignored: string[];
  /** Why the item is not valid, when it is not. */
  invalid?: string;
  /** A reasoning item's readable text (its summary, else its content), when it has one. */
  thought?: string;
  /** True when the item is the model's output (it shows the turn is running). */
  fromModel: boolean;
}

/** What the mapping needs to know about the calls seen so far. */
export interface CallContext {
  /** The name of the call with this id, or undefined when no call came before. */
  toolName(callId: string): string | undefined;
  /** A failure (true) or success (false) an event reported for the call, if any. */
  reported(callId: string): boolean | undefined;
}

/** The text that stands for Codex's encrypted compaction summary, which cannot be read. */
export const ENCRYPTED_SUMMARY =
  "[Codex compacted the conversation here; its summary is encrypted in the rollout and cannot be read]";

const TEXT_PARTS = new Set(["input_text", "output_text", "text", "summary_text"]);
const IMAGE_PARTS = new Set(["input_image", "image", "image_url"]);

/** The text of message content (a string or an array of parts); images are counted. */
export function contentText(content: unknown, ignored: string[]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part === "string") {
      texts.push(part);
      continue;
    }
    if (!isObject(part)) continue;
    // Written out, not `stringOf`: every message's parts come here.
    const type = typeof part.type === "string" ? part.type : "";
    const text = part.text;
    if (TEXT_PARTS.has(type) && typeof text === "string") texts.push(text);
    else if (IMAGE_PARTS.has(type)) ignored.push("image");
    else ignored.push(type || "content_part");
  }
  return texts.join("\n");
}

/** The text of a tool output: a string, content items, or `{content, success}`. */
function outputText(output: unknown, ignored: string[]): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return contentText(output, ignored);
  if (isObject(output)) {
    const content = output.content;
    if (typeof content === "string") return content;
    if (Array.isArray(content)) return contentText(content, ignored);
  }
  return output === undefined || output === null ? "" : JSON.stringify(output);
}

const EXIT_CODE = /(?:^|\n)\s*(?:Exit code:|Process exited with code)\s*(-?\d+)/;

/**
 * Whether an output reports a failure: `success: false`, a JSON output whose
 * `metadata.exit_code` is not 0, or a header line `Exit code: N` / `Process exited with code N`
 * (read before the `Output:` line only, so a command that prints such text is not misread).
 */
export function outputFailed(output: unknown, text: string): boolean | undefined {
  if (isObject(output) && typeof output.success === "boolean") return !output.success;
  if (text.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObject(parsed)) {
        const code = num(objectOf(parsed.metadata) ?? {}, "exit_code");
        if (code !== undefined) return code !== 0;
      }
    } catch {
      // Not JSON after all: read it as text.
    }
  }
  const cut = text.indexOf("\nOutput:");
  const header = cut === -1 ? text.slice(0, 400) : text.slice(0, cut);
  const match = EXIT_CODE.exec(header);
  return match ? Number(match[1]) !== 0 : undefined;
}

const WRAPPED_CONTEXT = /^<([a-z_]+)>[\s\S]*<\/\1>\s*$/;

/**
 * Whether a user message is context Codex injected rather than the user's words: a block
 * wholly wrapped in one tag (`<environment_context>`, `<user_instructions>`, ...) or the
 * `# AGENTS.md instructions` Codex sends as a user message.
 */
export function isInjectedContext(text: string): boolean {
  return text.startsWith("# AGENTS.md") || WRAPPED_CONTEXT.test(text);
}

function mapRole(role: string | undefined): "system" | "user" | "assistant" | undefined {
  if (role === "developer" || role === "system") return "system";
  if (role === "user" || role === "assistant") return role;
  return undefined;
}

function mapMessage(payload: Json): MappedItem {
  const ignored: string[] = [];
  const role = mapRole(stringOf(payload.role));
  if (role === undefined) {
    return {
      items: [],
      ignored,
      invalid: `invalid codex message: role ${JSON.stringify(payload.role ?? null)}`,
      fromModel: false,
    };
  }
  const content = contentText(payload.content, ignored);
  // Injected context is what it is to the model: instructions, not a prompt.
  const said = role === "user" && isInjectedContext(content) ? "system" : role;
  return {
    items: [{ type: "message", role: said, content }],
    ignored,
    fromModel: role === "assistant",
  };
}

function callIdOf(payload: Json): string | undefined {
  const id = stringOf(payload.call_id) ?? stringOf(payload.id);
  return id !== undefined && id.length > 0 ? id : undefined;
}

function mapCall(payload: Json, type: string): MappedItem {
  const callId = callIdOf(payload);
  if (callId === undefined) {
    return {
      items: [],
      ignored: [],
      invalid: `invalid codex ${type}: no call_id`,
      fromModel: true,
    };
  }
  let name = stringOf(payload.name) ?? "";
  let args: unknown = type === "custom_tool_call" ? payload.input : payload.arguments;
  if (type === "local_shell_call") {
    name = "local_shell";
    args = payload.action ?? {};
  }
  return {
    items: [{
      type: "function_call",
      callId,
      name: name.length > 0 ? name : "unknown",
      // Arguments that are not JSON (a patch, a redacted placeholder) are kept as they are.
      arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}),
    }],
    ignored: [],
    fromModel: true,
  };
}

function mapOutput(payload: Json, type: string, calls: CallContext): MappedItem {
  const callId = payload.call_id;
  if (typeof callId !== "string" || callId.length === 0) {
    return {
      items: [],
      ignored: [],
      invalid: `invalid codex ${type}: no call_id`,
      fromModel: false,
    };
  }
  const ignored: string[] = [];
  const output = outputText(payload.output, ignored);
  const failed = outputFailed(payload.output, output) ?? calls.reported(callId) ?? false;
  return {
    items: [{
      type: "function_call_output",
      callId,
      toolName: calls.toolName(callId) ?? "unknown",
      output,
      isError: failed,
    }],
    ignored,
    fromModel: false,
  };
}

/**
 * Maps one `response_item` payload. Developer messages and the context Codex injects as user
 * messages become `system` messages (what they are to the model); `custom_tool_call` (such as `apply_patch`) and `local_shell_call` become
 * function calls; reasoning, web searches, snapshots and encrypted compaction items are
 * counted, not kept. `type` is the payload's, when the caller has read it already.
 */
export function mapCodexItem(
  payload: Json,
  calls: CallContext,
  type: string = stringOf(payload.type) ?? "",
): MappedItem {
  switch (type) {
    case "message":
      return mapMessage(payload);
    case "function_call":
    case "custom_tool_call":
    case "local_shell_call":
      return mapCall(payload, type);
    case "function_call_output":
    case "custom_tool_call_output":
      return mapOutput(payload, type, calls);
    case "reasoning":
      return mapReasoning(payload);
    case "web_search_call":
    case "image_generation_call":
      return { items: [], ignored: [type], fromModel: true };
    case "compaction":
    case "compaction_summary":
      return { items: [], ignored: ["compaction"], fromModel: false };
    default:
      return { items: [], ignored: [type || "unknown_item"], fromModel: false };
  }
}

/** Texts of the parts of a reasoning item's `summary` or `content` that have one. */
function partTexts(parts: unknown): string[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part) =>
    isObject(part) && typeof part.text === "string" ? [part.text] : []
  );
}

/**
 * A reasoning item: counted, with the text a person can read (the summary Codex shows, else
 * the raw reasoning some providers send); the encrypted content is the model's alone.
 */
function mapReasoning(payload: Json): MappedItem {
  const summary = partTexts(payload.summary);
  const texts = summary.length > 0 ? summary : partTexts(payload.content);
  const mapped: MappedItem = { items: [], ignored: ["reasoning"], fromModel: true };
  if (texts.length > 0) mapped.thought = texts.join("\n\n");
  return mapped;
}

/**
 * Maps a `compacted` record's `replacement_history`; an encrypted `compaction` item becomes a
 * `compaction_summary` that says so, and is counted. Without a replacement history (older
 * Codex), the record's `message` (the summary) is the whole replacement.
 */
export function mapReplacementHistory(
  payload: Json,
  calls: CallContext,
): { items: ResponseItem[]; ignored: string[] } {
  const history = payload.replacement_history;
  const message = stringOf(payload.message) ?? "";
  if (!Array.isArray(history)) {
    return { items: [{ type: "compaction_summary", content: message }], ignored: [] };
  }
  const items: ResponseItem[] = [];
  const ignored: string[] = [];
  // Calls inside the replacement name their outputs there too.
  const local = new Map<string, string>();
  const context: CallContext = {
    toolName: (id) => local.get(id) ?? calls.toolName(id),
    reported: (id) => calls.reported(id),
  };
  for (const entry of history) {
    if (!isObject(entry)) continue;
    const type = stringOf(entry.type);
    if (type === "compaction" || type === "compaction_summary") {
      items.push({ type: "compaction_summary", content: message || ENCRYPTED_SUMMARY });
      ignored.push("compaction");
      continue;
    }
    const mapped = mapCodexItem(entry, context);
    for (const item of mapped.items) {
      if (item.type === "function_call") local.set(item.callId, item.name);
      items.push(item);
    }
    ignored.push(...mapped.ignored);
    if (mapped.invalid) ignored.push("invalid_item");
  }
  return { items, ignored };
}
