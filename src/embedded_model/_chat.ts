/**
 * The Chat Completions wire format (`POST /v1/chat/completions`): the request schema, its
 * reading into a conversation, and the completion and stream chunks the embedded model answers
 * with.
 *
 * @module
 */
import type OpenAI from "openai";
import { z } from "zod";
import {
  ApiRequestError,
  CHAT_ORPHAN_OUTPUT_MESSAGE,
  chatOrphanCallMessage,
  contentText,
  type ConversationItem,
  type ConversationRequest,
  type Reply,
  TextContentSchema,
} from "./_conversation.ts";
import type { SseEvent } from "../http/mod.ts";
import { ARGUMENTS_CHUNK, chunkText, TEXT_CHUNK } from "./_sse.ts";
import type { TokenCounts } from "./_usage.ts";

const ToolCallSchema = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const ChatMessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.enum(["system", "developer"]), content: TextContentSchema }),
  z.object({ role: z.literal("user"), content: TextContentSchema }),
  z.object({
    role: z.literal("assistant"),
    content: TextContentSchema.nullish(),
    tool_calls: z.array(ToolCallSchema).nullish(),
  }),
  z.object({
    role: z.literal("tool"),
    tool_call_id: z.string().min(1),
    content: TextContentSchema,
  }),
]);

const ChatToolSchema = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

/** The part of a `POST /v1/chat/completions` body the embedded model reads. */
export const ChatRequestSchema = z.object({
  model: z.string(),
  messages: z.array(ChatMessageSchema),
  tools: z.array(ChatToolSchema).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().nullish() }).nullish(),
});
/** The part of a `POST /v1/chat/completions` body the embedded model reads. */
export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/**
 * Reads a Chat Completions request into the wire-neutral conversation. Like the real API, an
 * assistant message with `tool_calls` must be followed directly by one tool message per call
 * id, and a tool message must answer a call of the assistant message just before it.
 */
export function chatConversation(request: ChatRequest): ConversationRequest {
  const items: ConversationItem[] = [];
  let pending: string[] = [];
  request.messages.forEach((message, index) => {
    if (message.role === "tool") {
      if (!pending.includes(message.tool_call_id)) {
        throw new ApiRequestError("usage", CHAT_ORPHAN_OUTPUT_MESSAGE, {
          param: `messages.[${index}].role`,
        });
      }
      pending = pending.filter((id) => id !== message.tool_call_id);
      items.push({
        kind: "output",
        callId: message.tool_call_id,
        output: contentText(message.content),
      });
      return;
    }
    if (pending[0] !== undefined) {
      throw new ApiRequestError("usage", chatOrphanCallMessage(pending), {
        param: `messages.[${index}].role`,
      });
    }
    const text = contentText(message.content);
    if (message.role !== "assistant") {
      items.push({ kind: "message", role: message.role, text });
      return;
    }
    if (text !== "") items.push({ kind: "message", role: "assistant", text });
    for (const call of message.tool_calls ?? []) {
      items.push({
        kind: "call",
        callId: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      });
      pending.push(call.id);
    }
  });
  if (pending[0] !== undefined) {
    throw new ApiRequestError("usage", chatOrphanCallMessage(pending), { param: "messages" });
  }
  return { items, toolNames: (request.tools ?? []).map((tool) => tool.function.name) };
}

/**
 * The characters usage counts as the input of a Chat Completions request: the JSON of
 * `{ messages, tools }` as the client sent them (`[]` when there are no tools).
 */
export function chatSerializedInput(body: Record<string, unknown>): string {
  return JSON.stringify({ messages: body.messages, tools: body.tools ?? [] });
}

/** What a completion is built from: the request, the reply, its usage and the request digest. */
export interface ChatAnswer {
  request: ChatRequest;
  reply: Reply;
  usage: TokenCounts;
  /** The hex digest of the request, the source of every id. */
  digest: string;
}

function completionId(digest: string): string {
  return `chatcmpl-${digest.slice(0, 48)}`;
}

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Delta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta;

function toolCalls(
  answer: ChatAnswer,
): OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[] {
  if (answer.reply.kind !== "calls") return [];
  return answer.reply.calls.map((call, i) => ({
    id: `call_${answer.digest.slice(32, 54)}${i.toString(16).padStart(2, "0")}`,
    type: "function" as const,
    function: { name: call.name, arguments: call.arguments },
  }));
}

function usageObject(usage: TokenCounts): OpenAI.CompletionUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

/** The non-streaming `chat.completion` object. `created` is 0: the model has no clock. */
export function chatCompletion(answer: ChatAnswer): OpenAI.Chat.Completions.ChatCompletion {
  const { reply } = answer;
  const calls = toolCalls(answer);
  return {
    id: completionId(answer.digest),
    object: "chat.completion",
    created: 0,
    model: answer.request.model,
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: reply.kind === "text" ? reply.text : null,
        refusal: null,
        annotations: [],
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      },
      logprobs: null,
      finish_reason: reply.kind === "text" ? "stop" : "tool_calls",
    }],
    usage: usageObject(answer.usage),
  };
}

/**
 * The `chat.completion.chunk` stream: a first chunk with the role, then content deltas or,
 * per call, a chunk with its `id`, `type` and name followed by argument deltas; a chunk with
 * the `finish_reason`; with `stream_options.include_usage` a last chunk with empty `choices`
 * and the usage (every earlier chunk then has `usage: null`); and `data: [DONE]`.
 */
export function chatChunks(answer: ChatAnswer): SseEvent[] {
  const includeUsage = answer.request.stream_options?.include_usage === true;
  const base = {
    id: completionId(answer.digest),
    object: "chat.completion.chunk" as const,
    created: 0,
    model: answer.request.model,
  };
  const chunks: Chunk[] = [];
  const push = (delta: Delta, finish_reason: Chunk["choices"][number]["finish_reason"] = null) => {
    chunks.push({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
      ...(includeUsage ? { usage: null } : {}),
    });
  };
  const { reply } = answer;
  if (reply.kind === "text") {
    push({ role: "assistant", content: "", refusal: null });
    for (const content of chunkText(reply.text, TEXT_CHUNK)) push({ content });
    push({}, "stop");
  } else {
    push({ role: "assistant", content: null, refusal: null });
    toolCalls(answer).forEach((call, index) => {
      push({
        tool_calls: [{
          index,
          id: call.id,
          type: "function",
          function: { name: call.function.name, arguments: "" },
        }],
      });
      for (const piece of chunkText(call.function.arguments, ARGUMENTS_CHUNK)) {
        push({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    });
    push({}, "tool_calls");
  }
  if (includeUsage) chunks.push({ ...base, choices: [], usage: usageObject(answer.usage) });
  return [...chunks.map((chunk) => ({ data: JSON.stringify(chunk) })), { data: "[DONE]" }];
}
