/**
 * The embedded model: a deterministic stand-in for an OpenAI model, served on loopback in the
 * real Responses and Chat Completions wire formats, so the runtime talks to it through
 * `npm:openai` exactly as to the real API; and in the Anthropic Messages format
 * (`POST /v1/messages`), so the real Claude Code can run against it; and in Google's Gemini
 * format (`POST /v1beta/models/<model>:streamGenerateContent`), so the real Gemini CLI can. Its answers follow the documented rules in
 * {@link ./rules.ts}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import OpenAI from "openai";
 * import { startEmbeddedModel } from "./mod.ts";
 *
 * await using model = await startEmbeddedModel();
 * const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey });
 * const response = await client.responses.create({
 *   model: model.model,
 *   input: "list the files",
 *   tools: [{ type: "function", name: "list_dir", parameters: {}, strict: false }],
 * });
 * const call = response.output[0];
 * assert.equal(call?.type === "function_call" && call.name, "list_dir");
 * ```
 *
 * @module
 */
import { handleRequest, type RecordedRequest } from "./_server.ts";

export type { RecordedRequest } from "./_server.ts";
export {
  messagesOrphanCallMessage,
  messagesOrphanResultMessage,
  TOOL_USE_ID_PATTERN,
  TOOLS_REQUIRED_MESSAGE,
  toolUseIdPatternMessage,
} from "./_messages.ts";
export { GEMINI_RESPONSE_COUNT_MESSAGE, GEMINI_RESPONSE_TURN_MESSAGE } from "./_gemini.ts";

export { decideReply } from "./_rules.ts";
export type { ConversationItem, ConversationRequest, PlannedCall, Reply } from "./_conversation.ts";
export { countTokens, type TokenCounts } from "./_usage.ts";

/** The model name the embedded model answers to unless told otherwise. */
export const EMBEDDED_MODEL_NAME = "scripted";
/** The API key the embedded model expects unless told otherwise (it is not a secret). */
export const EMBEDDED_MODEL_API_KEY = "turnlog-embedded-model";

/** Options of {@linkcode startEmbeddedModel}. */
export interface EmbeddedModelOptions {
  /** The model name it answers to; another name gets 404 `model_not_found`. Default "scripted". */
  model?: string;
  /** The API key clients must send. Default {@linkcode EMBEDDED_MODEL_API_KEY}. */
  apiKey?: string;
  /** A pause between stream events in milliseconds, to make streaming visible. Default 0. */
  chunkDelayMs?: number;
  /**
   * In a Messages stream, a pause in milliseconds before each parallel `tool_use` block after
   * the first, as a real model takes (Claude Code starts each tool at its block's end, so the
   * pause decides the shape of its file). Default 500.
   */
  callPauseMs?: number;
  /** Record every request in {@linkcode EmbeddedModel.requests}. Default false. */
  record?: boolean;
}

/** A running embedded model. */
export interface EmbeddedModel {
  /** The base URL for `new OpenAI({ baseURL })`: `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** The API key to send. */
  apiKey: string;
  /** The model name to request. */
  model: string;
  /** The base URL of the Messages API (`ANTHROPIC_BASE_URL`): `http://127.0.0.1:<port>`. */
  anthropicBaseURL: string;
  /** The base URL of the Gemini API (`GOOGLE_GEMINI_BASE_URL`): `http://127.0.0.1:<port>`. */
  geminiBaseURL: string;
  /** The requests it got, in order, when started with `record: true` (else empty). */
  requests: RecordedRequest[];
  /** Stops the server; waits for requests in flight to finish. Safe to call twice. */
  close(): Promise<void>;
  /** Same as {@linkcode EmbeddedModel.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the embedded model on a free loopback port.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { startEmbeddedModel } from "./mod.ts";
 * const model = await startEmbeddedModel({ model: "scripted" });
 * assert(model.baseURL.startsWith("http://127.0.0.1:"));
 * await model.close();
 * ```
 */
export function startEmbeddedModel(options: EmbeddedModelOptions = {}): Promise<EmbeddedModel> {
  const config = {
    model: options.model ?? EMBEDDED_MODEL_NAME,
    apiKey: options.apiKey ?? EMBEDDED_MODEL_API_KEY,
    chunkDelayMs: options.chunkDelayMs ?? 0,
    callPauseMs: options.callPauseMs ?? 500,
    requests: options.record ? [] as RecordedRequest[] : undefined,
  };
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve({
        hostname: "127.0.0.1",
        port: 0,
        onListen({ port }) {
          let closing: Promise<void> | undefined;
          const close = () => closing ??= server.shutdown();
          resolve({
            baseURL: `http://127.0.0.1:${port}/v1`,
            anthropicBaseURL: `http://127.0.0.1:${port}`,
            geminiBaseURL: `http://127.0.0.1:${port}`,
            requests: config.requests ?? [],
            apiKey: config.apiKey,
            model: config.model,
            close,
            [Symbol.asyncDispose]: close,
          });
        },
      }, (request) => handleRequest(config, request));
    } catch (error) {
      reject(error);
    }
  });
}
