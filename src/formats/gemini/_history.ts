/**
 * A Gemini CLI history as its resume sends it to the API (its `convertSessionToClientHistory`):
 * `info`, `error` and `warning` messages left out, and user messages that are empty, a slash
 * command or injected context (`<session_context>`); a `gemini` message as the model's
 * content (its thoughts and text, then a `functionCall` per entry of `toolCalls`, unless its
 * content holds the calls itself), followed by a user content of the results its `toolCalls`
 * hold; contents of one role in a row merged into one, as the request carries them. Every
 * call and response part keeps the message it came from. Pure.
 *
 * @module
 */
import { isObject, type Json, objectOf, stringOf } from "../_line.ts";

/** The parts of a message's `content` (a string is one text part). */
export function partsOf(content: unknown): Json[] {
  if (typeof content === "string") return [{ text: content }];
  if (Array.isArray(content)) {
    return content.map((part) => typeof part === "string" ? { text: part } : part)
      .filter(isObject);
  }
  return isObject(content) ? [content] : [];
}

/** The text parts of a content, joined (thoughts left out). */
export function textOf(content: unknown): string {
  return partsOf(content).filter((part) => part.thought !== true)
    .flatMap((part) => typeof part.text === "string" ? [part.text] : []).join("");
}

/** A user message Gemini's resume leaves out: empty, a slash command, injected context. */
export function isIgnoredUserText(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.length === 0 || trimmed.startsWith("/") || trimmed.startsWith("?") ||
    trimmed.startsWith("<session_context>") || trimmed.startsWith("<hook_context>");
}

/** Whether a user message holds something besides text (a function response, a file). */
function hasOtherParts(content: unknown): boolean {
  return partsOf(content).some((part) => typeof part.text !== "string");
}

/** Whether Gemini's resume leaves a user message out of the history. */
export function isIgnoredUser(message: Json): boolean {
  return !hasOtherParts(message.content) && isIgnoredUserText(textOf(message.content));
}

/** A tool call of a `gemini` message: `toolCalls[]` or a `functionCall` part. */
export interface GeminiCall {
  /** The stored id (`<name>__<wire id>`), or null when none is written. */
  id: string | null;
  name: string;
  args: unknown;
}

/** The `functionResponse` of a part, when it is one. */
export function responseOf(part: Json): GeminiCall & { response: Json } | undefined {
  const fr = objectOf(part.functionResponse);
  if (!fr) return undefined;
  return {
    id: stringOf(fr.id) ?? null,
    name: stringOf(fr.name) ?? "unknown",
    args: undefined,
    response: objectOf(fr.response) ?? {},
  };
}

/** The `functionCall` of a part, when it is one. */
export function callOf(part: Json): GeminiCall | undefined {
  const fc = objectOf(part.functionCall);
  if (!fc) return undefined;
  return { id: stringOf(fc.id) ?? null, name: stringOf(fc.name) ?? "unknown", args: fc.args ?? {} };
}

/** The entries of a `gemini` message's `toolCalls`. */
export function toolCallsOf(message: Json): Json[] {
  return Array.isArray(message.toolCalls) ? message.toolCalls.filter(isObject) : [];
}

/** The calls a `gemini` message makes, as its resume sends them. */
export function callsOf(message: Json): GeminiCall[] {
  const inContent = partsOf(message.content).flatMap((part) => callOf(part) ?? []);
  if (inContent.length > 0) return inContent;
  return toolCallsOf(message).map((call) => ({
    id: stringOf(call.id) ?? null,
    name: stringOf(call.name) ?? "unknown",
    args: call.args ?? {},
  }));
}

/** The result parts a tool call entry holds (its `result`), as its resume sends them. */
export function resultParts(call: Json): Json[] {
  const result = call.result;
  if (result === undefined || result === null || result === "") return [];
  if (typeof result === "string") {
    return [{
      functionResponse: { id: call.id, name: call.name, response: { output: result } },
    }];
  }
  return partsOf(result);
}

/** One call or response part of the history, with the message it came from. */
export interface SourcedPart {
  kind: "call" | "response";
  id: string | null;
  name: string;
  /** The message it came from. */
  messageId: string;
  /** True for a result a `gemini` message's `toolCalls` hold (not a message of its own). */
  fromToolCalls: boolean;
  /** Its index among the parts of its message's `content` (of its results, from `toolCalls`). */
  index: number;
}

/** A content of the request: its role, and its call and response parts. */
export interface SentContent {
  role: "user" | "model";
  parts: SourcedPart[];
  /** The messages it was made of. */
  messageIds: string[];
}

function push(contents: SentContent[], role: "user" | "model", id: string, parts: SourcedPart[]) {
  const last = contents.at(-1);
  if (last?.role === role) {
    last.parts.push(...parts);
    last.messageIds.push(id);
  } else contents.push({ role, parts, messageIds: [id] });
}

/** The contents Gemini's resume sends for a history, in order, one role after the other. */
export function sentContents(messages: Iterable<{ id: string; value: Json }>): SentContent[] {
  const contents: SentContent[] = [];
  for (const { id, value } of messages) {
    const type = stringOf(value.type);
    if (type === "user") {
      if (isIgnoredUser(value)) continue;
      const parts = partsOf(value.content).flatMap((part, index): SourcedPart[] => {
        const fr = responseOf(part);
        if (!fr) return [];
        return [{
          kind: "response",
          id: fr.id,
          name: fr.name,
          messageId: id,
          fromToolCalls: false,
          index,
        }];
      });
      push(contents, "user", id, parts);
    } else if (type === "gemini") {
      const calls = callsOf(value);
      const parts = calls.map((call, index): SourcedPart => ({
        kind: "call",
        id: call.id,
        name: call.name,
        messageId: id,
        fromToolCalls: false,
        index,
      }));
      // Gemini sends no model content for a message of no parts, thoughts or calls at all.
      if (!hasModelParts(value)) continue;
      push(contents, "model", id, parts);
      const results = toolCallsOf(value).flatMap(resultParts).flatMap((part, index) => {
        const fr = responseOf(part);
        if (!fr) return [];
        const { name } = fr;
        return [{ kind: "response", id: fr.id, name, messageId: id, fromToolCalls: true, index }];
      }) as SourcedPart[];
      if (results.length > 0) push(contents, "user", `${id}_response`, results);
    }
  }
  return contents;
}

function hasModelParts(message: Json): boolean {
  const content = message.content ? partsOf(message.content) : [];
  return content.length > 0 || (Array.isArray(message.thoughts) && message.thoughts.length > 0) ||
    toolCallsOf(message).length > 0;
}

/** The injected contexts a prompt can start with (Gemini's resume leaves such a message out). */
const HEADS = ["<session_context>", "<hook_context>"];
/** V8 copies a slice shorter than this; a longer one keeps the whole string it came from. */
const COPIED_BELOW = 13;

/**
 * What {@linkcode isIgnoredUserText} needs of a text part, as a string that holds on to no
 * message text: the part itself when short, else its known head or a proper start of one, else
 * its first character when it makes the prompt a command (`/`, `?`), else `.`. Joined with the
 * heads of the parts after it, it is left out exactly when the whole text is.
 */
function headOf(text: string): string {
  const start = text.trimStart();
  if (start.length < COPIED_BELOW) return start;
  for (const head of HEADS) {
    if (start.startsWith(head)) return head;
    if (head.startsWith(start)) return head.slice(0, start.length);
  }
  return start[0] === "/" || start[0] === "?" ? start[0] : ".";
}

const NONE: readonly Json[] = Object.freeze([]);
const OTHER: Json = Object.freeze({ other: true });
const PLAIN: Json = Object.freeze({ text: "." });
const PLAIN_CONTENT: readonly Json[] = Object.freeze([PLAIN]);
const THOUGHTS: readonly Json[] = Object.freeze([Object.freeze({})]);

/** A call or response part without its arguments or result (its id and name). */
function sketchPart(part: Json): Json {
  const fc = objectOf(part.functionCall);
  if (fc) return { functionCall: { id: fc.id, name: fc.name } };
  const fr = objectOf(part.functionResponse);
  if (fr) return { functionResponse: { id: fr.id, name: fr.name } };
  if (typeof part.text !== "string") return OTHER;
  const text = headOf(part.text);
  if (part.thought) return { text, thought: true };
  return text === "." ? PLAIN : { text };
}

/**
 * What the check needs of a message, without its texts, arguments and results: its type and
 * time, its parts' kinds with call and response ids (a text as the head that tells a prompt
 * from injected context or a command), its tool calls' ids and results' ids. The history's
 * sketches live until the next checkpoint: the common ones share their parts and lists, so
 * each holds little besides its id and time.
 */
export function sketchOf(message: unknown): unknown {
  if (!isObject(message)) return message;
  const { id, type, timestamp } = message;
  let content: unknown = message.content;
  if (content) {
    const parts = partsOf(content).map(sketchPart);
    content = parts.length === 1 && parts[0] === PLAIN ? PLAIN_CONTENT : parts;
  }
  const calls = toolCallsOf(message);
  const toolCalls = calls.length === 0 ? NONE : calls.map((call) => ({
    id: call.id,
    name: call.name,
    result: resultParts(call).map(sketchPart),
  }));
  const thoughts = Array.isArray(message.thoughts) && message.thoughts.length > 0 ? THOUGHTS : NONE;
  return { id, type, timestamp, content, toolCalls, thoughts };
}
