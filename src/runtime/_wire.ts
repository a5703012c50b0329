/**
 * The two OpenAI wire protocols a run speaks, Responses and Chat Completions: the pure
 * conversion of the history and the tools into a request, and the reading of a streamed
 * answer into the assistant's text, its tool calls and the token usage. The runtime is
 * stateless towards the server: every request carries the whole history (`store: false`).
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import OpenAI from "openai";
import { newId } from "../record/mod.ts";
import type { FunctionCallItem, ResponseItem, Usage, WireApi } from "../record/mod.ts";
import type { ToolDefinition } from "../tools/mod.ts";
import { SUMMARY_PREFIX } from "../compaction/mod.ts";

type ResponseInputItem = OpenAI.Responses.ResponseInputItem;
type ResponsesTool = OpenAI.Responses.FunctionTool;
type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;
type ChatTool = OpenAI.Chat.ChatCompletionFunctionTool;
type ChatToolCall = OpenAI.Chat.ChatCompletionMessageFunctionToolCall;

/** The model answered with an error, or its stream broke off. */
export class ModelResponseError extends TurnlogError {
  /** An error with the message given. */
  constructor(message: string, options?: ErrorOptions) {
    super("model", message, options);
    this.name = "ModelResponseError";
  }
}

/**
 * The history with each call id used once: a call whose id an earlier call already had (ids a
 * model repeats from turn to turn) gets `<id>~2`, `<id>~3`... (an id no item has), and the
 * outputs answering it the same; the first keeps its id. The APIs refuse an id twice in one
 * request; the session file keeps the ids as they were.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { uniqueCallIds } from "./_wire.ts";
 * const call = { type: "function_call", callId: "c", name: "read_file", arguments: "{}" } as const;
 * const output = {
 *   type: "function_call_output", callId: "c", toolName: "read_file", output: "", isError: false,
 * } as const;
 * const ids = uniqueCallIds([call, output, call, output]).map((item) =>
 *   item.type === "function_call" || item.type === "function_call_output" ? item.callId : ""
 * );
 * assert.deepEqual(ids, ["c", "c", "c~2", "c~2"]);
 * ```
 */
export function uniqueCallIds(history: readonly ResponseItem[]): readonly ResponseItem[] {
  const taken = new Set<string>();
  for (const item of history) if (item.type === "function_call") taken.add(item.callId);
  const calls = new Map<string, number>(); // calls seen per id
  const waiting = new Map<string, string[]>(); // wire ids of the calls not yet answered, per id
  const latest = new Map<string, string>(); // the wire id of the latest call, per id
  let renamed = false;
  const out = history.map((item): ResponseItem => {
    if (item.type === "function_call") {
      const seen = calls.get(item.callId) ?? 0;
      calls.set(item.callId, seen + 1);
      let wireId = item.callId;
      for (let n = seen + 1; seen > 0 && (wireId === item.callId || taken.has(wireId)); n++) {
        wireId = `${item.callId}~${n}`;
      }
      taken.add(wireId);
      latest.set(item.callId, wireId);
      waiting.set(item.callId, [...(waiting.get(item.callId) ?? []), wireId]);
      if (wireId === item.callId) return item;
      renamed = true;
      return { ...item, callId: wireId };
    }
    if (item.type !== "function_call_output") return item;
    // The oldest call of the id not answered yet; an output past them all, the latest call's.
    const wireId = waiting.get(item.callId)?.shift() ?? latest.get(item.callId);
    if (wireId === undefined || wireId === item.callId) return item;
    renamed = true;
    return { ...item, callId: wireId };
  });
  return renamed ? out : history;
}

/** The history as Responses API input items, each call id once ({@linkcode uniqueCallIds}). */
export function toResponsesInput(history: readonly ResponseItem[]): ResponseInputItem[] {
  return uniqueCallIds(history).map((item): ResponseInputItem => {
    switch (item.type) {
      case "message":
        return { type: "message", role: item.role, content: item.content };
      case "function_call":
        return {
          type: "function_call",
          call_id: item.callId,
          name: item.name,
          arguments: item.arguments,
        };
      case "function_call_output":
        return { type: "function_call_output", call_id: item.callId, output: item.output };
      case "compaction_summary":
        return { type: "message", role: "user", content: SUMMARY_PREFIX + item.content };
    }
  });
}

/** The tools as Responses API function tools. */
export function toResponsesTools(tools: readonly ToolDefinition[]): ResponsesTool[] {
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
}

/**
 * The history as Chat Completions messages: tool calls join the assistant message right before
 * them (or a content-less one), outputs become `tool` messages.
 */
export function toChatMessages(history: readonly ResponseItem[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const item of uniqueCallIds(history)) {
    switch (item.type) {
      case "message":
        messages.push({ role: item.role, content: item.content });
        break;
      case "compaction_summary":
        messages.push({ role: "user", content: SUMMARY_PREFIX + item.content });
        break;
      case "function_call": {
        const call: ChatToolCall = {
          id: item.callId,
          type: "function",
          function: { name: item.name, arguments: item.arguments },
        };
        const last = messages.at(-1);
        if (last?.role === "assistant") {
          last.tool_calls = [...(last.tool_calls ?? []), call];
        } else {
          messages.push({ role: "assistant", content: null, tool_calls: [call] });
        }
        break;
      }
      case "function_call_output":
        messages.push({ role: "tool", tool_call_id: item.callId, content: item.output });
        break;
    }
  }
  return messages;
}

/** The tools as Chat Completions function tools. */
export function toChatTools(tools: readonly ToolDefinition[]): ChatTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** What one model round produced. */
export interface ModelRoundResult {
  /** The assistant's text ("" when it only called tools). */
  text: string;
  /** The tool calls, in the order the model made them. */
  calls: FunctionCallItem[];
  /** The round's token usage, when the model reported it. */
  usage: Usage | undefined;
}

/** A piece of a streamed round: text as it comes, then the whole round. */
export type ModelStreamPart =
  | { kind: "delta"; text: string }
  | { kind: "done"; result: ModelRoundResult };

/** One model request. */
export interface ModelRequest {
  /** The wire protocol to speak. */
  wireApi: WireApi;
  /** The model to ask. */
  model: string;
  /** The whole history to send. */
  history: readonly ResponseItem[];
  /** The tools offered (none: a summary call). */
  tools: readonly ToolDefinition[];
  /** Cancels the request. */
  signal?: AbortSignal | undefined;
}

/**
 * Sends the whole history to the model, streaming, and yields the text deltas as they come and
 * finally the round's result. Every failure of the request comes out as a
 * {@linkcode ModelResponseError} whose message says what went wrong in one line (an abort
 * comes out as it is).
 *
 * @throws {ModelResponseError} when the request fails, the stream reports an error or ends early
 */
export async function* streamModelRound(
  client: OpenAI,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  try {
    yield* request.wireApi === "chat"
      ? streamChatRound(client, request)
      : streamResponsesRound(client, request);
  } catch (error) {
    if (error instanceof TurnlogError || request.signal?.aborted) throw error;
    throw new ModelResponseError(describeError(error, client.baseURL), { cause: error });
  }
}

/** A one-line description of why a model request failed, for a person. */
export function describeError(error: unknown, baseURL?: string): string {
  if (error instanceof OpenAI.APIConnectionError) {
    const where = baseURL ?? "its base URL";
    let cause: unknown = error.cause;
    let deepest: unknown;
    while (cause instanceof Error) {
      if (
        cause instanceof Deno.errors.NotCapable || cause instanceof Deno.errors.PermissionDenied
      ) {
        return `Network access to the model at ${where} is not permitted (${cause.message}); ` +
          "the resume task allows only 127.0.0.1, so run cli/resume.ts with --allow-net for a remote model";
      }
      deepest = cause;
      cause = cause.cause;
    }
    const detail = deepest instanceof Error ? ` (${deepest.message})` : "";
    return `Could not reach the model at ${where}: ${error.message}${detail}`;
  }
  if (error instanceof OpenAI.APIError) return `The model request failed: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}

async function* streamResponsesRound(
  client: OpenAI,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  const stream = await client.responses.create(
    {
      model: request.model,
      input: toResponsesInput(request.history),
      // A request without tools (the compaction summary) leaves the field out.
      ...(request.tools.length > 0 ? { tools: toResponsesTools(request.tools) } : {}),
      stream: true,
      store: false,
    },
    { signal: request.signal },
  );
  let streamed = "";
  for await (const event of stream) {
    switch (event.type) {
      case "response.output_text.delta":
        streamed += event.delta;
        yield { kind: "delta", text: event.delta };
        break;
      case "response.failed":
        throw new ModelResponseError(
          `The model failed: ${event.response.error?.message ?? "no reason given"}`,
        );
      case "response.incomplete":
        throw new ModelResponseError(
          `The model's response is incomplete: ${
            event.response.incomplete_details?.reason ?? "no reason given"
          }`,
        );
      case "error":
        throw new ModelResponseError(`The model's stream reported an error: ${event.message}`);
      case "response.completed": {
        const response = event.response;
        let text = "";
        const calls: FunctionCallItem[] = [];
        for (const item of response.output) {
          if (item.type === "message") {
            for (const part of item.content) {
              if (part.type === "output_text") text += part.text;
            }
          } else if (item.type === "function_call") {
            calls.push({
              type: "function_call",
              callId: item.call_id,
              name: item.name,
              arguments: item.arguments,
            });
          }
        }
        const usage = response.usage
          ? {
            inputTokens: response.usage.input_tokens,
            outputTokens: response.usage.output_tokens,
            totalTokens: response.usage.total_tokens,
          }
          : undefined;
        yield { kind: "done", result: { text: text || streamed, calls, usage } };
        return;
      }
    }
  }
  throw new ModelResponseError("The model's stream ended before response.completed");
}

async function* streamChatRound(
  client: OpenAI,
  request: ModelRequest,
): AsyncGenerator<ModelStreamPart> {
  const stream = await client.chat.completions.create(
    {
      model: request.model,
      messages: toChatMessages(request.history),
      ...(request.tools.length > 0 ? { tools: toChatTools(request.tools) } : {}),
      stream: true,
      stream_options: { include_usage: true },
    },
    { signal: request.signal },
  );
  let text = "";
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: Usage | undefined;
  let finished = false;
  for await (const chunk of stream) {
    if (chunk.usage) {
      usage = {
        inputTokens: chunk.usage.prompt_tokens,
        outputTokens: chunk.usage.completion_tokens,
        totalTokens: chunk.usage.total_tokens,
      };
    }
    for (const choice of chunk.choices) {
      const delta = choice.delta;
      if (delta?.content) {
        text += delta.content;
        yield { kind: "delta", text: delta.content };
      }
      for (const [position, part] of (delta?.tool_calls ?? []).entries()) {
        // Some compatible servers send whole calls without an index.
        const index = part.index ?? position;
        const call = calls.get(index) ?? { id: "", name: "", arguments: "" };
        if (part.id) call.id = part.id;
        if (part.function?.name && !call.name) call.name = part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
        calls.set(index, call);
      }
      if (choice.finish_reason) finished = true;
    }
  }
  if (!finished) throw new ModelResponseError("The model's stream ended without a finish_reason");
  const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
  yield {
    kind: "done",
    result: {
      text,
      calls: ordered.map((call) => ({
        type: "function_call",
        callId: call.id || `call_${newId()}`,
        name: call.name,
        arguments: call.arguments,
      })),
      usage,
    },
  };
}
