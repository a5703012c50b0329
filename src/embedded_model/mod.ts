/**
 * The embedded model: a deterministic stand-in for an OpenAI model, served on loopback in the
 * real Responses and Chat Completions wire formats, so the runtime talks to it through
 * `npm:openai` exactly as to the real API. Its answers follow the documented rules in
 * {@link ./rules.ts}.
 *
 * @example
 * ```ts
 * import OpenAI from "openai";
 * import { startEmbeddedModel } from "./mod.ts";
 *
 * await using model = await startEmbeddedModel();
 * const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey });
 * const response = await client.responses.create({ model: model.model, input: "hello" });
 * console.log(response.output_text);
 * ```
 *
 * @module
 */
import { handleRequest } from "./_server.ts";

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
}

/** A running embedded model. */
export interface EmbeddedModel {
  /** The base URL for `new OpenAI({ baseURL })`: `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** The API key to send. */
  apiKey: string;
  /** The model name to request. */
  model: string;
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
 * import { startEmbeddedModel } from "./mod.ts";
 * const model = await startEmbeddedModel({ model: "scripted" });
 * console.assert(model.baseURL.startsWith("http://127.0.0.1:"));
 * await model.close();
 * ```
 */
export function startEmbeddedModel(options: EmbeddedModelOptions = {}): Promise<EmbeddedModel> {
  const config = {
    model: options.model ?? EMBEDDED_MODEL_NAME,
    apiKey: options.apiKey ?? EMBEDDED_MODEL_API_KEY,
    chunkDelayMs: options.chunkDelayMs ?? 0,
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
