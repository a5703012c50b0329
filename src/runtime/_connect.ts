/**
 * Which model a run talks to. With an API key or a base URL in the environment: OpenAI or an
 * OpenAI-compatible server; without either (or with the model "scripted"): the embedded
 * deterministic model, started on loopback. Both go through the same `npm:openai` client, so
 * there is one code path.
 *
 * @module
 */
import OpenAI from "openai";
import { startEmbeddedModel } from "../embedded_model/mod.ts";

/** The model name that selects the embedded model. */
export const EMBEDDED_MODEL_NAME = "scripted";

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
}

/** A client ready for a run, and what to record about it. */
export interface ModelConnection {
  client: OpenAI;
  model: string;
  /** "embedded", "openai", or the host of `OPENAI_BASE_URL`. */
  modelProvider: string;
  baseURL: string;
  embedded: boolean;
  /** Stops the embedded model (nothing to do for a remote one). */
  close(): Promise<void>;
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
 * Whether the settings select the embedded model: `--model scripted`, or neither
 * `OPENAI_API_KEY` nor `OPENAI_BASE_URL` set.
 */
export function usesEmbeddedModel(settings: ModelSettings = {}): boolean {
  const env = settings.env ?? Deno.env;
  if (settings.model === EMBEDDED_MODEL_NAME) return true;
  return !env.get("OPENAI_API_KEY") && !env.get("OPENAI_BASE_URL");
}

/**
 * Connects to the model the settings select, starting the embedded model when they select it.
 * A server behind `OPENAI_BASE_URL` that needs no key (Ollama, a local vLLM) works without
 * `OPENAI_API_KEY`.
 */
export async function connectModel(settings: ModelSettings = {}): Promise<ModelConnection> {
  const env = settings.env ?? Deno.env;
  const fetchOption = settings.fetch ? { fetch: settings.fetch } : {};
  if (usesEmbeddedModel(settings)) {
    const embedded = await startEmbeddedModel();
    const close = () => embedded.close();
    return {
      client: new OpenAI({ baseURL: embedded.baseURL, apiKey: embedded.apiKey, ...fetchOption }),
      model: embedded.model,
      modelProvider: "embedded",
      baseURL: embedded.baseURL,
      embedded: true,
      close,
      [Symbol.asyncDispose]: close,
    };
  }
  const baseURL = env.get("OPENAI_BASE_URL") || undefined;
  const client = new OpenAI({
    apiKey: env.get("OPENAI_API_KEY") || "not-needed",
    ...(baseURL ? { baseURL } : {}),
    ...fetchOption,
  });
  const close = () => Promise.resolve();
  return {
    client,
    model: settings.model ?? (env.get("OPENAI_MODEL") || DEFAULT_OPENAI_MODEL),
    modelProvider: providerFor(baseURL),
    baseURL: client.baseURL,
    embedded: false,
    close,
    [Symbol.asyncDispose]: close,
  };
}
