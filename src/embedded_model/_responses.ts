/**
 * The Responses API wire format (`POST /v1/responses`): the request schema, its reading into
 * a conversation, and the response object and stream events the embedded model answers with.
 *
 * @module
 */
import type OpenAI from "openai";
import { z } from "zod";
import {
  ApiRequestError,
  checkPairing,
  contentText,
  type ConversationItem,
  type ConversationRequest,
  type Reply,
  TextContentSchema,
} from "./_conversation.ts";
import type { SseEvent } from "../http/mod.ts";
import { ARGUMENTS_CHUNK, chunkText, TEXT_CHUNK } from "./_sse.ts";
import type { TokenCounts } from "./_usage.ts";

const MessageInputSchema = z.object({
  type: z.literal("message"),
  role: z.enum(["system", "developer", "user", "assistant"]),
  content: TextContentSchema,
});

const FunctionCallInputSchema = z.object({
  type: z.literal("function_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

const FunctionCallOutputInputSchema = z.object({
  type: z.literal("function_call_output"),
  call_id: z.string().min(1),
  output: TextContentSchema,
});

/** A custom (free-form) tool call, such as Codex's `apply_patch`: paired like a function call. */
const CustomCallInputSchema = z.object({
  type: z.literal("custom_tool_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  input: z.string(),
});

const CustomCallOutputInputSchema = z.object({
  type: z.literal("custom_tool_call_output"),
  call_id: z.string().min(1),
  output: TextContentSchema,
});

/** Items the model produced that answer nothing and wait for nothing (reasoning, searches). */
const PassiveInputSchema = z.looseObject({
  type: z.enum(["reasoning", "web_search_call"]),
});

/** One input item; a message may leave out `type`, as the real API allows. */
const InputItemSchema = z.preprocess(
  (value) =>
    value !== null && typeof value === "object" && !Array.isArray(value) && !("type" in value)
      ? { ...value, type: "message" }
      : value,
  z.discriminatedUnion("type", [
    MessageInputSchema,
    FunctionCallInputSchema,
    FunctionCallOutputInputSchema,
    CustomCallInputSchema,
    CustomCallOutputInputSchema,
    PassiveInputSchema,
  ]),
);

/** A function tool as the Responses API declares it. */
const FunctionToolSchema = z.looseObject({
  type: z.literal("function"),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/** A tool of another kind (`namespace`, `web_search`, `custom`...): accepted, never called. */
const OtherToolSchema = z.looseObject({
  type: z.string().refine((type) => type !== "function"),
});

/** The part of a `POST /v1/responses` body the embedded model reads. */
export const ResponsesRequestSchema = z.object({
  model: z.string(),
  input: z.union([z.string(), z.array(InputItemSchema)]),
  instructions: z.string().nullish(),
  tools: z.array(z.union([FunctionToolSchema, OtherToolSchema])).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
});
/** The part of a `POST /v1/responses` body the embedded model reads. */
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

/**
 * Reads a Responses request into the wire-neutral conversation, rejecting what the real API
 * rejects for a stateless client: a `previous_response_id`, and unpaired calls or outputs.
 */
export function responsesConversation(request: ResponsesRequest): ConversationRequest {
  if (request.previous_response_id) {
    throw new ApiRequestError(
      "usage",
      `Previous response with id '${request.previous_response_id}' not found.`,
      { param: "previous_response_id" },
    );
  }
  const items: ConversationItem[] = [];
  if (request.instructions) {
    items.push({ kind: "message", role: "system", text: request.instructions });
  }
  if (typeof request.input === "string") {
    items.push({ kind: "message", role: "user", text: request.input });
  } else {
    for (const item of request.input) {
      if (item.type === "message") {
        items.push({ kind: "message", role: item.role, text: contentText(item.content) });
      } else if (item.type === "function_call" || item.type === "custom_tool_call") {
        const args = item.type === "function_call" ? item.arguments : item.input;
        items.push({ kind: "call", callId: item.call_id, name: item.name, arguments: args });
      } else if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
        items.push({ kind: "output", callId: item.call_id, output: contentText(item.output) });
      }
    }
  }
  checkPairing(items, "input");
  return { items, toolNames: functionTools(request).map((tool) => tool.name) };
}

/** The request's function tools (the only ones the embedded model calls). */
function functionTools(request: ResponsesRequest) {
  return (request.tools ?? []).filter((tool) => tool.type === "function").map((tool) =>
    FunctionToolSchema.parse(tool)
  );
}

/**
 * The characters usage counts as the input of a Responses request: the JSON of
 * `{ instructions, input, tools }` as the client sent them (`null` and `[]` when absent).
 */
export function responsesSerializedInput(body: Record<string, unknown>): string {
  return JSON.stringify({
    instructions: body.instructions ?? null,
    input: body.input,
    tools: body.tools ?? [],
  });
}

/**
 * A response as the wire carries it: the SDK's `Response` type less `output_text`, which the
 * SDK computes on the client (the real API does not send it), plus `store`, and `usage`
 * `null` until the response is complete, as the real API sends them.
 */
type WireResponse = Omit<OpenAI.Responses.Response, "output_text" | "usage"> & {
  store: boolean;
  usage: OpenAI.Responses.ResponseUsage | null;
};
type OutputItem =
  | OpenAI.Responses.ResponseOutputMessage
  | OpenAI.Responses.ResponseFunctionToolCall;
type OutputText = OpenAI.Responses.ResponseOutputText;
type Unnumbered<T> = T extends unknown ? Omit<T, "sequence_number"> : never;
/** A stream event before numbering, its `response` (if any) in wire form. */
type WireEvent =
  | Unnumbered<
    Exclude<
      OpenAI.Responses.ResponseStreamEvent,
      | OpenAI.Responses.ResponseCreatedEvent
      | OpenAI.Responses.ResponseInProgressEvent
      | OpenAI.Responses.ResponseCompletedEvent
    >
  >
  | {
    type: "response.created" | "response.in_progress" | "response.completed";
    response: WireResponse;
  };

/** What a response is built from: the request, the reply, its usage and the request digest. */
export interface ResponsesAnswer {
  request: ResponsesRequest;
  reply: Reply;
  usage: TokenCounts;
  /** The hex digest of the request, the source of every id. */
  digest: string;
}

function outputItems(answer: ResponsesAnswer): OutputItem[] {
  const { reply, digest } = answer;
  if (reply.kind === "text") {
    return [{
      id: `msg_${digest.slice(0, 32)}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [outputText(reply.text)],
    }];
  }
  return reply.calls.map((call, i) => ({
    id: `fc_${digest.slice(0, 30)}${i.toString(16).padStart(2, "0")}`,
    type: "function_call",
    status: "completed",
    call_id: `call_${digest.slice(32, 54)}${i.toString(16).padStart(2, "0")}`,
    name: call.name,
    arguments: call.arguments,
  }));
}

function outputText(text: string): OutputText {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

/**
 * The response object: `status: "completed"` with its output and usage, or the
 * `in_progress` snapshot `response.created` carries (no output, no usage). `created_at` is 0:
 * the embedded model has no clock, so the same request gives the same bytes.
 */
export function responseObject(answer: ResponsesAnswer, done: boolean): WireResponse {
  const { request, usage, digest } = answer;
  const tools: OpenAI.Responses.FunctionTool[] = functionTools(request).map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? null,
    strict: tool.strict ?? null,
  }));
  return {
    id: `resp_${digest.slice(0, 48)}`,
    object: "response",
    created_at: 0,
    status: done ? "completed" : "in_progress",
    background: false,
    completed_at: done ? 0 : null,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: null,
    metadata: {},
    model: request.model,
    output: done ? outputItems(answer) : [],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: request.store ?? false,
    temperature: 1,
    text: { format: { type: "text" } },
    tool_choice: "auto",
    tools,
    top_p: 1,
    truncation: "disabled",
    usage: done
      ? {
        input_tokens: usage.inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: usage.outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: usage.inputTokens + usage.outputTokens,
      }
      : null,
  };
}

/**
 * The stream of a response, in the real API's order: `response.created`,
 * `response.in_progress`, then per output item `response.output_item.added`, its content
 * (`response.content_part.added`, `response.output_text.delta`..., `response.output_text.done`,
 * `response.content_part.done` for a message; `response.function_call_arguments.delta`...,
 * `response.function_call_arguments.done` for a call), `response.output_item.done`, and
 * finally `response.completed`. Every event has its `sequence_number`, counting from 0.
 */
export function responseEvents(answer: ResponsesAnswer): SseEvent[] {
  const events: WireEvent[] = [];
  const push = (event: WireEvent) => events.push(event);
  push({ type: "response.created", response: responseObject(answer, false) });
  push({ type: "response.in_progress", response: responseObject(answer, false) });
  outputItems(answer).forEach((item, output_index) => {
    if (item.type === "message") {
      const text = item.content.map((part) => part.type === "output_text" ? part.text : "")
        .join("");
      const ids = { item_id: item.id, output_index, content_index: 0 };
      push({
        type: "response.output_item.added",
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      push({ type: "response.content_part.added", ...ids, part: outputText("") });
      for (const delta of chunkText(text, TEXT_CHUNK)) {
        push({ type: "response.output_text.delta", ...ids, delta, logprobs: [] });
      }
      push({ type: "response.output_text.done", ...ids, text, logprobs: [] });
      push({ type: "response.content_part.done", ...ids, part: outputText(text) });
    } else {
      const ids = { item_id: item.id ?? "", output_index };
      push({
        type: "response.output_item.added",
        output_index,
        item: { ...item, status: "in_progress", arguments: "" },
      });
      for (const delta of chunkText(item.arguments, ARGUMENTS_CHUNK)) {
        push({ type: "response.function_call_arguments.delta", ...ids, delta });
      }
      push({
        type: "response.function_call_arguments.done",
        ...ids,
        name: item.name,
        arguments: item.arguments,
      });
    }
    push({ type: "response.output_item.done", output_index, item });
  });
  push({ type: "response.completed", response: responseObject(answer, true) });
  return events.map(({ type, ...rest }, sequence_number) => ({
    event: type,
    data: JSON.stringify({ type, sequence_number, ...rest }),
  }));
}
