/**
 * The wire-neutral view of a model request: both wire APIs are read into one list of
 * conversation items, checked for call/output pairing the way the real APIs check it, and
 * hashed into deterministic ids.
 *
 * @module
 */
import { z } from "zod";
import type { ErrorKind } from "../errors/mod.ts";
import { HttpError } from "../http/mod.ts";
import { SUMMARY_PREFIX } from "../compaction/mod.ts";

export { SUMMARY_PREFIX };

/** One item of the conversation a request carries, whatever the wire API. */
export type ConversationItem =
  | { kind: "message"; role: "system" | "developer" | "user" | "assistant"; text: string }
  | { kind: "call"; callId: string; name: string; arguments: string }
  | { kind: "output"; callId: string; output: string };

/** A request as the rules see it: the conversation and the names of the tools offered. */
export interface ConversationRequest {
  /** The conversation, wire-neutral, in request order. */
  items: ConversationItem[];
  /** The function tools offered; empty means a summary (compaction) request. */
  toolNames: string[];
}

/** A tool call the embedded model decided to make. */
export interface PlannedCall {
  /** The tool to call. */
  name: string;
  /** The JSON arguments, as the wire carries them. */
  arguments: string;
}

/** What the embedded model answers: text, or one or more tool calls. */
export type Reply = { kind: "text"; text: string } | { kind: "calls"; calls: PlannedCall[] };

/**
 * An error the server answers with an OpenAI-shaped body
 * `{ error: { message, type, param, code } }`.
 */
export class ApiRequestError extends HttpError {
  /** The OpenAI error type, such as `invalid_request_error`. */
  readonly type: string;
  /** The request field at fault, if any. */
  readonly param: string | null;
  /** The OpenAI error code, such as `model_not_found`. */
  readonly code: string | null;

  /** An error of `kind` (its HTTP status the error table's) and OpenAI's `type`, `param` and `code`. */
  constructor(
    kind: ErrorKind,
    message: string,
    options: { type?: string; param?: string | null; code?: string | null } = {},
  ) {
    super(kind, message);
    this.name = "ApiRequestError";
    this.type = options.type ?? "invalid_request_error";
    this.param = options.param ?? null;
    this.code = options.code ?? null;
  }

  /** The JSON body the server sends. */
  override toBody(): {
    error: { message: string; type: string; param: string | null; code: string | null };
  } {
    return {
      error: { message: this.message, type: this.type, param: this.param, code: this.code },
    };
  }
}

/** The Responses API's message for a call without its output. */
export function orphanCallMessage(callId: string): string {
  return `No tool output found for function call ${callId}.`;
}

/** The Responses API's message for an output without its call. */
export function orphanOutputMessage(callId: string): string {
  return `No tool call found for function call output with call_id ${callId}.`;
}

/** The Responses API's message for a second output of one call id in one input. */
export function duplicateOutputMessage(callId: string): string {
  return `Duplicate function_call_output for call_id ${callId}. Each function_call must have ` +
    "exactly one matching function_call_output";
}

/** Chat Completions' message for an assistant message whose calls lack their tool messages. */
export function chatOrphanCallMessage(callIds: readonly string[]): string {
  return "An assistant message with 'tool_calls' must be followed by tool messages responding " +
    "to each 'tool_call_id'. The following tool_call_ids did not have response messages: " +
    callIds.join(", ");
}

/** Chat Completions' message for a tool message that answers no call just before it. */
export const CHAT_ORPHAN_OUTPUT_MESSAGE =
  "Invalid parameter: messages with role 'tool' must be a response to a preceeding message " +
  "with 'tool_calls'.";

/**
 * Rejects a Responses conversation in which an output has no call before it, a call is not
 * answered before the next user or assistant message, or a call id is answered twice, even in
 * another turn (HTTP 400, the real API's messages).
 */
export function checkPairing(items: readonly ConversationItem[], param: string): void {
  const waiting: string[] = [];
  const answered = new Set<string>();
  for (const [index, item] of items.entries()) {
    const at = `${param}[${index}]`;
    if (item.kind === "call") {
      waiting.push(item.callId);
    } else if (item.kind === "output") {
      if (answered.has(item.callId)) {
        throw new ApiRequestError("usage", duplicateOutputMessage(item.callId), { param: at });
      }
      answered.add(item.callId);
      const position = waiting.indexOf(item.callId);
      if (position === -1) {
        throw new ApiRequestError("usage", orphanOutputMessage(item.callId), { param: at });
      }
      waiting.splice(position, 1);
    } else if (waiting[0] !== undefined && (item.role === "user" || item.role === "assistant")) {
      // A system or developer message between a call and its output is accepted: Codex sends
      // such requests and real sessions went on after them.
      throw new ApiRequestError("usage", orphanCallMessage(waiting[0]), { param: at });
    }
  }
  if (waiting[0] !== undefined) {
    throw new ApiRequestError("usage", orphanCallMessage(waiting[0]), { param });
  }
}

/**
 * A deterministic hex digest of a request's content: the same conversation, tools and model
 * give the same ids on every run.
 */
export async function requestDigest(parts: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify(parts));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Whether a message is a compaction summary rather than something the user typed. */
export function isSummaryMessage(item: ConversationItem): boolean {
  return item.kind === "message" && item.role === "user" && item.text.startsWith(SUMMARY_PREFIX);
}

/** The parameter name a zod issue path points at, OpenAI style: `input[2].call_id`. */
function paramName(path: readonly PropertyKey[]): string {
  return path.map((key, i) =>
    typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`
  ).join("");
}

interface FlatIssue {
  path: PropertyKey[];
  issue: z.core.$ZodIssue;
}

/** Descends into union issues and keeps the most specific problem (the deepest path). */
function flatten(issue: z.core.$ZodIssue, base: PropertyKey[]): FlatIssue[] {
  const path = [...base, ...issue.path];
  if (issue.code !== "invalid_union" || issue.errors.length === 0) return [{ path, issue }];
  const nested = issue.errors.flatMap((branch) => branch.flatMap((sub) => flatten(sub, path)));
  const deepest = Math.max(...nested.map((flat) => flat.path.length));
  if (deepest <= path.length) return [{ path, issue }];
  return nested.filter((flat) => flat.path.length === deepest);
}

function describeIssue({ path, issue }: FlatIssue): string {
  const name = paramName(path);
  if (issue.code === "invalid_type") {
    if (/received undefined$/.test(issue.message)) return `Missing required parameter: '${name}'.`;
    return `Invalid type for '${name}': ${issue.message.replace(/^Invalid input: /, "")}.`;
  }
  if (issue.code === "invalid_union") {
    return `Invalid value for '${name}': not any of the accepted shapes.`;
  }
  return `Invalid value for '${name}': ${issue.message.replace(/^Invalid input: /, "")}.`;
}

/**
 * Parses a request body with its zod schema; a mismatch is a 400 whose message and `param`
 * name the field (`Missing required parameter: 'input[0].call_id'.`).
 */
export function parseRequestBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (first === undefined) throw new ApiRequestError("usage", "Invalid request body.");
  const flat = flatten(first, [])[0]!;
  throw new ApiRequestError("usage", describeIssue(flat), { param: paramName(flat.path) || null });
}

/** A text content part as both wire APIs accept it. */
export const TextPartSchema = z.object({
  type: z.enum(["input_text", "output_text", "text"]),
  text: z.string(),
});

/** Message content: a string, or text parts joined without a separator. */
export const TextContentSchema = z.union([z.string(), z.array(TextPartSchema)]);

/** The text of message content. */
export function contentText(content: z.infer<typeof TextContentSchema> | null | undefined): string {
  if (content === null || content === undefined) return "";
  return typeof content === "string" ? content : content.map((part) => part.text).join("");
}
