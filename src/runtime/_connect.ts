/**
 * Which model a run talks to. With an API key or a base URL in the environment: OpenAI or an
 * OpenAI-compatible server; without either (or with the model "scripted"): the embedded
 * deterministic model, started on loopback. Both go through the same `npm:openai` client, so
 * there is one code path; the client stays inside the connection.
 *
 * @module
 */
import OpenAI from "openai";
import { TurnlogError } from "../errors/mod.ts";
import { EMBEDDED_MODEL_NAME, startEmbeddedModel } from "../embedded_model/mod.ts";
import {
  describeError,
  type ModelRequest,
  type ModelStreamPart,
  streamModelRound,
} from "./_wire.ts";

export { EMBEDDED_MODEL_NAME };

/**
 * A model was named (`--model`, `OPENAI_MODEL`) but no API is configured to ask it: without
 * an error the embedded model would answer in its place, and the user would believe the named
 * model did.
 */
export class NoModelApiError extends TurnlogError {
  /** An error naming the model asked for. */
  constructor(model: string, from: "--model" | "OPENAI_MODEL", options?: ErrorOptions) {
    const instead = from === "--model" ? "no --model" : "unset OPENAI_MODEL";
    super(
      "usage",
      `No model API is configured to ask ${JSON.stringify(model)} (${from}): set OPENAI_API_KEY ` +
        "(and OPENAI_BASE_URL for an OpenAI-compatible server), or use the embedded model " +
        `(--model ${EMBEDDED_MODEL_NAME}, or ${instead})`,
      options,
    );
    this.name = "NoModelApiError";
  }
}

/** The model used with an API key when neither `--model` nor `OPENAI_MODEL` names one. */
export const DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";

/** Where the model settings come from: flags first, then the environment. */
export interface ModelSettings {
  /** `--model`; "scripted" selects the embedded model. */
  model?: string | undefined;
  /** The environment; absent: `Deno.env`. */
  env?: { get(name: string): string | undefined } | undefined;
  /** A fetch for the client (tests record request bodies through it). */
  fetch?: typeof fetch | undefined;
  /**
   * An endpoint to use instead of the environment's (with `apiKey`): an embedded model a test
   * started, or any OpenAI-compatible server.
   */
  baseURL?: string | undefined;
  /** The API key for `baseURL`. */
  apiKey?: string | undefined;
}

/** A model endpoint a run sends its rounds to, and what to record about it. */
export interface ModelConnection {
  /** The model name requests use unless a turn names another. */
  readonly model: string;
  /** "embedded", "openai", or the host of the base URL. */
  readonly modelProvider: string;
  /** The endpoint, e.g. `http://127.0.0.1:43210/v1`. */
  readonly baseURL: string;
  /** True for the embedded deterministic model. */
  readonly embedded: boolean;
  /**
   * Sends one round: the whole history, streaming; yields the text deltas, then the round.
   *
   * @throws {ModelResponseError} when the request fails or its stream breaks off
   */
  streamRound(request: ModelRequest): AsyncGenerator<ModelStreamPart>;
  /** A one-line description of a failed request to this endpoint, for a person. */
  describeError(error: unknown): string;
  /** Stops the embedded model (nothing to do for a remote one). */
  close(): Promise<void>;
  /** Same as {@linkcode ModelConnection.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** The provider name recorded for a base URL: "openai" for the default one, else its host. */
export function providerFor(baseURL: string | undefined): string {
  if (!baseURL) return "openai";
  try {
    const host = new URL(baseURL).host;
    return host === "api.openai.com" ? "openai" : host;
  } catch {
    return baseURL;
  }
}

/**
 * Whether the settings select the embedded model: `--model scripted`, or no endpoint given and
 * neither `OPENAI_API_KEY` nor `OPENAI_BASE_URL` set.
 */
export function usesEmbeddedModel(settings: ModelSettings = {}): boolean {
  const env = settings.env ?? Deno.env;
  if (settings.baseURL !== undefined) return false;
  if (settings.model === EMBEDDED_MODEL_NAME) return true;
  return !env.get("OPENAI_API_KEY") && !env.get("OPENAI_BASE_URL");
}

function connection(
  client: OpenAI,
  facts: { model: string; modelProvider: string; embedded: boolean },
  close: () => Promise<void>,
): ModelConnection {
  return {
    ...facts,
    baseURL: client.baseURL,
    streamRound: (request) => streamModelRound(client, request),
    describeError: (error) => describeError(error, client.baseURL),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Connects to the model the settings select, starting the embedded model when they select it.
 * A server behind `OPENAI_BASE_URL` that needs no key (Ollama, a local vLLM) works without
 * `OPENAI_API_KEY`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { connectModel } from "./mod.ts";
 * await using model = await connectModel({ model: "scripted" });
 * assert.deepEqual([model.model, model.modelProvider, model.embedded], ["scripted", "embedded", true]);
 * ```
 */
export async function connectModel(settings: ModelSettings = {}): Promise<ModelConnection> {
  const env = settings.env ?? Deno.env;
  const fetchOption = settings.fetch ? { fetch: settings.fetch } : {};
  if (usesEmbeddedModel(settings)) {
    const fromEnv = env.get("OPENAI_MODEL") || undefined;
    const asked = settings.model ?? fromEnv;
    if (asked !== undefined && asked !== EMBEDDED_MODEL_NAME) {
      throw new NoModelApiError(asked, settings.model === undefined ? "OPENAI_MODEL" : "--model");
    }
    const embedded = await startEmbeddedModel();
    const client = new OpenAI({
      baseURL: embedded.baseURL,
      apiKey: embedded.apiKey,
      ...fetchOption,
    });
    const facts = { model: embedded.model, modelProvider: "embedded", embedded: true };
    return connection(client, facts, () => embedded.close());
  }
  const baseURL = settings.baseURL ?? (env.get("OPENAI_BASE_URL") || undefined);
  const apiKey = settings.baseURL !== undefined
    ? settings.apiKey
    : env.get("OPENAI_API_KEY") || undefined;
  const client = new OpenAI({
    apiKey: apiKey ?? "not-needed",
    ...(baseURL ? { baseURL } : {}),
    ...fetchOption,
  });
  const model = settings.model ?? (env.get("OPENAI_MODEL") || DEFAULT_OPENAI_MODEL);
  const embedded = settings.baseURL !== undefined && model === EMBEDDED_MODEL_NAME;
  const facts = { model, modelProvider: embedded ? "embedded" : providerFor(baseURL), embedded };
  return connection(client, facts, () => Promise.resolve());
}
