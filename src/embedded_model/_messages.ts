/**
 * The Anthropic Messages wire format (`POST /v1/messages`): the request schema, the checks the
 * real API makes on a conversation (in its words), the reading into a wire-neutral
 * conversation, and the message object and stream events the embedded model answers with.
 *
 * @module
 */
import { z } from "zod";
import type { ConversationItem, ConversationRequest, Reply } from "./_conversation.ts";
import type { ErrorKind } from "../errors/mod.ts";
import { HttpError } from "../http/mod.ts";
import type { SseEvent } from "../http/mod.ts";
import { ARGUMENTS_CHUNK, chunkText, TEXT_CHUNK } from "./_sse.ts";
import type { TokenCounts } from "./_usage.ts";

/** An error the Messages route answers with an Anthropic-shaped body. */
export class MessagesApiError extends HttpError {
  /** The Anthropic error type, such as `invalid_request_error`. */
  readonly type: string;

  /** An error of `kind` (its HTTP status the error table's) and Anthropic's error `type`. */
  constructor(kind: ErrorKind, message: string, type = "invalid_request_error") {
    super(kind, message);
    this.name = "MessagesApiError";
    this.type = type;
  }

  /** The JSON body: `{ type: "error", error: { type, message } }`. */
  override toBody(): { type: "error"; error: { type: string; message: string } } {
    return { type: "error", error: { type: this.type, message: this.message } };
  }
}

/** The API's message for `tool_use` blocks that the next message does not answer. */
export function messagesOrphanCallMessage(index: number, ids: readonly string[]): string {
  return `messages.${index}: tool_use ids were found without tool_result blocks immediately ` +
    `after: ${ids.join(", ")}. Each tool_use block must have a corresponding tool_result ` +
    "block in the next message.";
}

/** The API's message for a `tool_result` block that answers no `tool_use` just before it. */
export function messagesOrphanResultMessage(at: string, id: string): string {
  return `${at}: unexpected tool_use_id found in tool_result blocks: ${id}. Each tool_result ` +
    "block must have a corresponding tool_use block in the previous message.";
}

const TextBlock = z.looseObject({ type: z.literal("text"), text: z.string() });
const ToolResultContent = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string() })),
]);
const BlockSchema = z.discriminatedUnion("type", [
  TextBlock,
  z.looseObject({ type: z.literal("image"), source: z.unknown() }),
  z.looseObject({ type: z.literal("document"), source: z.unknown() }),
  z.looseObject({
    type: z.literal("tool_use"),
    id: z.string().min(1),
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()),
  }),
  z.looseObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string().min(1),
    content: ToolResultContent.optional(),
    is_error: z.boolean().optional(),
  }),
  z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() }),
  z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() }),
]);
type Block = z.infer<typeof BlockSchema>;

const MessageSchema = z.looseObject({
  role: z.enum(["user", "assistant", "system"]),
  content: z.union([z.string(), z.array(BlockSchema)]),
});

/** The part of a `POST /v1/messages` body the embedded model reads. */
export const MessagesRequestSchema = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().positive(),
  messages: z.array(MessageSchema).min(1),
  system: z.union([z.string(), z.array(TextBlock)]).optional(),
  tools: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
  stream: z.boolean().optional(),
});
/** The part of a `POST /v1/messages` body the embedded model reads. */
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

/**
 * The betas under which the API takes `role: "system"` messages inside `messages`: Claude Code
 * 2.1.328 sends them under `mid-conversation-tool-changes-2026-07-01` (and retries without
 * them when refused).
 */
export const SYSTEM_MESSAGES_BETAS: readonly string[] = [
  "per-turn-control-2026-07-01",
  "mid-conversation-tool-changes-2026-07-01",
];

/** A turn of the conversation: consecutive messages of one role, combined as the API does. */
interface ApiTurn {
  role: "user" | "assistant" | "system";
  /** The index of its first message in the request. */
  index: number;
  /** Its blocks, each with the path the API names it by (`messages.3.content.0`). */
  blocks: { block: Block; at: string }[];
}

/**
 * The request's turns: consecutive user or assistant messages combined into one turn, as the
 * API documents it ("Consecutive user or assistant turns in your request will be combined into
 * a single turn"); a string content is one text block. A `system` message (only under
 * {@linkcode SYSTEM_MESSAGES_BETAS}) is a turn of its own, never combined: between a call and
 * its result it is the next message, and the call is unanswered.
 */
function turnsOf(request: MessagesRequest, betas: readonly string[]): ApiTurn[] {
  const turns: ApiTurn[] = [];
  request.messages.forEach((message, index) => {
    if (message.role === "system" && !SYSTEM_MESSAGES_BETAS.some((beta) => betas.includes(beta))) {
      throw new MessagesApiError(
        "usage",
        `messages.${index}.role: Input should be 'user' or 'assistant'`,
      );
    }
    const content = typeof message.content === "string"
      ? [{ block: { type: "text", text: message.content } as Block, at: `messages.${index}` }]
      : message.content.map((block, i) => ({ block, at: `messages.${index}.content.${i}` }));
    const last = turns[turns.length - 1];
    if (content.length === 0 && index < request.messages.length - 1) {
      throw new MessagesApiError(
        "usage",
        `messages.${index}: all messages must have non-empty content except for the optional ` +
          "final assistant message",
      );
    }
    if (last?.role === message.role && message.role !== "system") last.blocks.push(...content);
    else turns.push({ role: message.role, index, blocks: content });
  });
  return turns;
}

/** The form the API takes for a `tool_use` id (and a `tool_result`'s `tool_use_id`). */
export const TOOL_USE_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** The API's message for an id of another form, at `messages.N.content.M.<field>`. */
export function toolUseIdPatternMessage(at: string): string {
  return `${at}: String should match pattern '${TOOL_USE_ID_PATTERN.source}'`;
}

/** The API's message for a request with `tool_use` or `tool_result` blocks and no tools. */
export const TOOLS_REQUIRED_MESSAGE =
  "Requests which include `tool_use` or `tool_result` blocks must define tools.";

/**
 * Rejects what the real API rejects in tool pairing: every `tool_use` of an assistant turn
 * answered by a `tool_result` in the very next (user) turn, results before any other block of
 * that turn, every `tool_result` answering a `tool_use` of the turn right before it, no
 * `tool_use` id used twice, ids only of the form `^[a-zA-Z0-9_-]+$`, and no such blocks in a
 * request that defines no tools. (A call of a tool the request does not offer is accepted, as
 * the API accepts it.)
 */
function checkTools(turns: readonly ApiTurn[], tools: boolean): void {
  const seen = new Set<string>();
  for (const { blocks } of turns) {
    for (const { block, at } of blocks) {
      if (block.type === "tool_use" && !TOOL_USE_ID_PATTERN.test(block.id)) {
        throw new MessagesApiError("usage", toolUseIdPatternMessage(`${at}.tool_use.id`));
      }
      if (block.type === "tool_result" && !TOOL_USE_ID_PATTERN.test(block.tool_use_id)) {
        throw new MessagesApiError(
          "usage",
          toolUseIdPatternMessage(`${at}.tool_result.tool_use_id`),
        );
      }
    }
  }
  turns.forEach((turn, t) => {
    const before = turns[t - 1];
    const asked = new Set(
      before?.role === "assistant"
        ? before.blocks.flatMap(({ block }) => block.type === "tool_use" ? [block.id] : [])
        : [],
    );
    for (const { block, at } of turn.blocks) {
      if (block.type === "tool_use") {
        if (seen.has(block.id)) {
          throw new MessagesApiError("usage", `${at}: tool_use ids must be unique`);
        }
        seen.add(block.id);
      }
      if (block.type === "tool_result" && (turn.role !== "user" || !asked.has(block.tool_use_id))) {
        throw new MessagesApiError("usage", messagesOrphanResultMessage(at, block.tool_use_id));
      }
    }
    if (turn.role !== "assistant") return;
    const uses = turn.blocks.flatMap(({ block }) => block.type === "tool_use" ? [block.id] : []);
    if (uses.length === 0) return;
    const next = turns[t + 1];
    // The results lead the next turn: a block of another kind before them ends them.
    const answered = new Set<string>();
    for (const { block } of next?.blocks ?? []) {
      if (block.type !== "tool_result") break;
      answered.add(block.tool_use_id);
    }
    const missing = uses.filter((id) => !answered.has(id));
    if (missing.length > 0) {
      throw new MessagesApiError("usage", messagesOrphanCallMessage(turn.index, missing));
    }
  });
  const blocks = turns.flatMap((turn) => turn.blocks.map(({ block }) => block.type));
  if (!tools && blocks.some((type) => type === "tool_use" || type === "tool_result")) {
    throw new MessagesApiError("usage", TOOLS_REQUIRED_MESSAGE);
  }
}

/** Text Claude Code injects into user turns for the model, not typed by the user. */
const INJECTED = /^\s*<system-reminder>/;

function resultText(content: z.infer<typeof ToolResultContent> | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => typeof part.text === "string" ? part.text : "").join("");
}

function systemText(system: MessagesRequest["system"]): string {
  if (system === undefined) return "";
  return typeof system === "string" ? system : system.map((block) => block.text).join("\n");
}

/**
 * Reads a Messages request into the wire-neutral conversation, after checking it the way the
 * real API does (HTTP 400, `invalid_request_error`, in the API's words). Text blocks Claude Code
 * injects (`<system-reminder>`) are not the user's words and are left out of the user's text.
 */
export function messagesConversation(
  request: MessagesRequest,
  betas: readonly string[] = [],
): ConversationRequest {
  const turns = turnsOf(request, betas);
  checkTools(turns, (request.tools ?? []).length > 0);
  const items: ConversationItem[] = [];
  const system = systemText(request.system);
  if (system !== "") items.push({ kind: "message", role: "system", text: system });
  for (const turn of turns) {
    const texts: string[] = [];
    for (const { block } of turn.blocks) {
      if (block.type === "text" && !(turn.role === "user" && INJECTED.test(block.text))) {
        texts.push(block.text);
      } else if (block.type === "tool_use") {
        const args = JSON.stringify(block.input);
        items.push({ kind: "call", callId: block.id, name: block.name, arguments: args });
      } else if (block.type === "tool_result") {
        items.push({
          kind: "output",
          callId: block.tool_use_id,
          output: resultText(block.content),
        });
      }
    }
    const text = texts.join("\n");
    if (text.trim() !== "") items.push({ kind: "message", role: turn.role, text });
  }
  return { items, toolNames: (request.tools ?? []).map((tool) => tool.name) };
}

/** The characters usage counts as a Messages request's input: `{ system, messages, tools }`. */
export function messagesSerializedInput(body: Record<string, unknown>): string {
  return JSON.stringify({
    system: body.system ?? null,
    messages: body.messages,
    tools: body.tools ?? [],
  });
}

/** What a message is built from: the request, the reply, its usage and the request digest. */
export interface MessagesAnswer {
  request: MessagesRequest;
  reply: Reply;
  usage: TokenCounts;
  /** The hex digest of the request, the source of every id. */
  digest: string;
}

type OutBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

function outBlocks(answer: MessagesAnswer): OutBlock[] {
  const { reply, digest } = answer;
  if (reply.kind === "text") return [{ type: "text", text: reply.text }];
  return reply.calls.map((call, i) => ({
    type: "tool_use",
    id: `toolu_${digest.slice(0, 22)}${i.toString(16).padStart(2, "0")}`,
    name: call.name,
    input: JSON.parse(call.arguments) as Record<string, unknown>,
  }));
}

function usageOf(usage: TokenCounts, outputTokens: number) {
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
  };
}

/** The message object: the answer complete, or (`done` false) as `message_start` carries it. */
export function messageObject(answer: MessagesAnswer, done = true) {
  const { reply, usage, digest } = answer;
  return {
    id: `msg_${digest.slice(0, 24)}`,
    type: "message",
    role: "assistant",
    model: answer.request.model,
    content: done ? outBlocks(answer) : [],
    stop_reason: done ? (reply.kind === "text" ? "end_turn" : "tool_use") : null,
    stop_sequence: null,
    usage: usageOf(usage, done ? usage.outputTokens : 1),
  };
}

/** One stream event, and whether the stream pauses before it (the next of parallel calls). */
export interface MessagesEvent {
  event: SseEvent;
  pauseBefore: boolean;
}

/**
 * The stream of a message, in the real API's order: `message_start`, per block
 * `content_block_start`, its deltas (`text_delta`, or `input_json_delta` for a call's
 * arguments) and `content_block_stop`, then `message_delta` (the stop reason and output
 * tokens) and `message_stop`. The start of every call but the first is marked for a pause.
 */
export function messageEvents(answer: MessagesAnswer): MessagesEvent[] {
  const events: MessagesEvent[] = [];
  const push = (type: string, body: Record<string, unknown>, pauseBefore = false) =>
    events.push({ event: { event: type, data: JSON.stringify({ type, ...body }) }, pauseBefore });
  push("message_start", { message: messageObject(answer, false) });
  outBlocks(answer).forEach((block, index) => {
    if (block.type === "text") {
      push("content_block_start", { index, content_block: { type: "text", text: "" } });
      for (const text of chunkText(block.text, TEXT_CHUNK)) {
        push("content_block_delta", { index, delta: { type: "text_delta", text } });
      }
    } else {
      push("content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      }, index > 0);
      for (const partial_json of chunkText(JSON.stringify(block.input), ARGUMENTS_CHUNK)) {
        push("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
      }
    }
    push("content_block_stop", { index });
  });
  const done = messageObject(answer, true);
  push("message_delta", {
    delta: { stop_reason: done.stop_reason, stop_sequence: null },
    usage: { output_tokens: answer.usage.outputTokens },
  });
  push("message_stop", {});
  return events;
}

/** The stream's events, waiting `pauseMs` before each event marked for a pause. */
export async function* pacedEvents(
  events: readonly MessagesEvent[],
  pauseMs: number,
): AsyncGenerator<SseEvent> {
  for (const { event, pauseBefore } of events) {
    if (pauseBefore && pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    yield event;
  }
}
