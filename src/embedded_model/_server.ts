/**
 * The embedded model's HTTP face: routes, authentication, JSON parsing and OpenAI-shaped
 * errors over `Deno.serve` on loopback.
 *
 * @module
 */
import {
  chatChunks,
  chatCompletion,
  chatConversation,
  ChatRequestSchema,
  chatSerializedInput,
} from "./_chat.ts";
import {
  decodePathSegment,
  errorResponse,
  jsonResponse as json,
  readJsonBody,
  sseResponse,
} from "../http/mod.ts";
import { ApiRequestError, parseRequestBody, requestDigest } from "./_conversation.ts";
import {
  responseEvents,
  responseObject,
  responsesConversation,
  ResponsesRequestSchema,
  responsesSerializedInput,
} from "./_responses.ts";
import {
  messageEvents,
  messageObject,
  MessagesApiError,
  messagesConversation,
  MessagesRequestSchema,
  messagesSerializedInput,
  pacedEvents,
} from "./_messages.ts";
import {
  GeminiApiError,
  geminiConversation,
  geminiEvents,
  GeminiRequestSchema,
  geminiResponse,
  geminiSerializedInput,
} from "./_gemini.ts";
import { decideGeminiReply } from "./_gemini_rules.ts";
import { decideReply } from "./_rules.ts";
import { countTokens } from "./_usage.ts";

/** What the server needs to know. */
export interface ServerConfig {
  /** The one model name it answers to. */
  model: string;
  /** The key clients must send as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** A pause between stream events, in milliseconds (0: none). */
  chunkDelayMs: number;
  /** A pause before each parallel call after the first in a Messages stream (0: none). */
  callPauseMs: number;
  /** Where every request is recorded, when set. */
  requests: RecordedRequest[] | undefined;
}

/** A request the server got, as tests read it back. */
export interface RecordedRequest {
  /** `POST /v1/messages` and the like (no query). */
  route: string;
  /** The parsed JSON body (null when there was none or it was not JSON). */
  body: unknown;
  /** The HTTP status answered. */
  status: number;
  /** The `anthropic-beta` header, when sent. */
  beta: string | null;
  /** The error message answered, for a status of 400 and up. */
  error: string | undefined;
}

function modelObject(model: string) {
  return { id: model, object: "model", created: 0, owned_by: "turnlog" };
}

const NOT_JSON = "We could not parse the JSON body of your request. (HINT: This likely means " +
  "you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload.)";

async function readJson(request: Request): Promise<Record<string, unknown>> {
  const value = await readJsonBody(request).catch(() => undefined);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return value as Record<string, unknown>;
  }
  throw new ApiRequestError("usage", NOT_JSON);
}

function checkModel(config: ServerConfig, model: string): void {
  if (model === config.model) return;
  throw new ApiRequestError(
    "not_found",
    `The model \`${model}\` does not exist or you do not have access to it.`,
    { code: "model_not_found" },
  );
}

async function createResponse(config: ServerConfig, request: Request): Promise<Response> {
  const raw = await readJson(request);
  const body = parseRequestBody(ResponsesRequestSchema, raw);
  checkModel(config, body.model);
  const conversation = responsesConversation(body);
  const reply = decideReply(conversation);
  const usage = countTokens(responsesSerializedInput(raw), reply);
  const digest = await requestDigest([
    "responses",
    body.model,
    conversation.items,
    body.tools ?? [],
  ]);
  const answer = { request: body, reply, usage, digest };
  if (body.stream) return sseResponse(responseEvents(answer), { delayMs: config.chunkDelayMs });
  return json(200, responseObject(answer, true));
}

async function createChatCompletion(config: ServerConfig, request: Request): Promise<Response> {
  const raw = await readJson(request);
  const body = parseRequestBody(ChatRequestSchema, raw);
  checkModel(config, body.model);
  const conversation = chatConversation(body);
  const reply = decideReply(conversation);
  const usage = countTokens(chatSerializedInput(raw), reply);
  const digest = await requestDigest(["chat", body.model, conversation.items, body.tools ?? []]);
  const answer = { request: body, reply, usage, digest };
  if (body.stream) return sseResponse(chatChunks(answer), { delayMs: config.chunkDelayMs });
  return json(200, chatCompletion(answer));
}

/** The Messages API's route, with its own key header and Anthropic-shaped errors. */
async function createMessage(config: ServerConfig, request: Request): Promise<Response> {
  try {
    const key = request.headers.get("x-api-key") ??
      request.headers.get("authorization")?.replace(/^Bearer /, "");
    if (key !== config.apiKey) {
      throw new MessagesApiError("unauthenticated", "invalid x-api-key", "authentication_error");
    }
    const raw = await readJson(request);
    const body = parseRequestBody(MessagesRequestSchema, raw);
    if (body.model !== config.model) {
      throw new MessagesApiError("not_found", `model: ${body.model}`, "not_found_error");
    }
    const betas = (request.headers.get("anthropic-beta") ?? "").split(",").map((b) => b.trim());
    const reply = decideReply(messagesConversation(body, betas));
    const usage = countTokens(messagesSerializedInput(raw), reply);
    const digest = await requestDigest(["messages", body.model, body.messages, body.tools ?? []]);
    const answer = { request: body, reply, usage, digest };
    if (!body.stream) return json(200, messageObject(answer));
    return sseResponse(pacedEvents(messageEvents(answer), config.callPauseMs), {
      delayMs: config.chunkDelayMs,
    });
  } catch (error) {
    if (error instanceof MessagesApiError) return errorResponse(error);
    if (error instanceof ApiRequestError) {
      return errorResponse(new MessagesApiError(error.kind, error.message));
    }
    const said = error instanceof Error ? error.message : String(error);
    return errorResponse(
      new MessagesApiError("internal", `The embedded model failed: ${said}`, "api_error"),
    );
  }
}

/** Gemini's routes: `/v1beta/models/<model>:generateContent` and `:streamGenerateContent`. */
const GEMINI_ROUTE = /^POST \/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/** The Gemini API's routes, with its own key header and Google-shaped errors. */
async function generateContent(
  config: ServerConfig,
  request: Request,
  model: string,
  stream: boolean,
): Promise<Response> {
  try {
    const key = request.headers.get("x-goog-api-key") ??
      new URL(request.url).searchParams.get("key");
    if (key !== config.apiKey) {
      throw new GeminiApiError("usage", "API key not valid. Please pass a valid API key.");
    }
    if (model !== config.model) {
      throw new GeminiApiError(
        "not_found",
        `models/${model} is not found for API version v1beta, or is not supported for ` +
          "generateContent.",
        "NOT_FOUND",
      );
    }
    const raw = await readJson(request);
    const body = parseRequestBody(GeminiRequestSchema, raw);
    const reply = decideGeminiReply(geminiConversation(body));
    const usage = countTokens(geminiSerializedInput(raw), reply);
    const digest = await requestDigest(["generateContent", model, body.contents, body.tools ?? []]);
    const answer = { model, reply, usage, digest };
    if (!stream) return json(200, geminiResponse(answer));
    return sseResponse(geminiEvents(answer), { delayMs: config.chunkDelayMs });
  } catch (error) {
    if (error instanceof GeminiApiError) return errorResponse(error);
    if (error instanceof ApiRequestError) {
      return errorResponse(new GeminiApiError(error.kind, error.message));
    }
    const said = error instanceof Error ? error.message : String(error);
    return errorResponse(
      new GeminiApiError("internal", `The embedded model failed: ${said}`, "INTERNAL"),
    );
  }
}

/** Answers one HTTP request, and records it when the config says so. */
export async function handleRequest(config: ServerConfig, request: Request): Promise<Response> {
  if (config.requests === undefined) return await answer(config, request);
  const body = await request.clone().json().catch(() => null);
  const response = await answer(config, request);
  const { pathname } = new URL(request.url);
  const error = response.status >= 400
    ? await response.clone().json().then(errorMessageOf, () => undefined)
    : undefined;
  config.requests.push({
    route: `${request.method} ${pathname}`,
    beta: request.headers.get("anthropic-beta"),
    body,
    status: response.status,
    error,
  });
  return response;
}

function errorMessageOf(body: unknown): string | undefined {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" ? message : undefined;
}

/** Answers one HTTP request; every failure becomes an OpenAI- (or Anthropic-) shaped body. */
async function answer(config: ServerConfig, request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const route = `${request.method} ${pathname.replace(/\/+$/, "")}`;
  if (route === "POST /v1/messages") return await createMessage(config, request);
  const gemini = GEMINI_ROUTE.exec(decodeURIComponent(route));
  if (gemini) {
    return await generateContent(config, request, gemini[1]!, gemini[2] !== "generateContent");
  }
  try {
    if (request.headers.get("authorization") !== `Bearer ${config.apiKey}`) {
      throw new ApiRequestError(
        "unauthenticated",
        "Incorrect API key provided. The embedded model takes the key startEmbeddedModel() " +
          "returned.",
        { code: "invalid_api_key" },
      );
    }
    if (route === "POST /v1/responses") return await createResponse(config, request);
    if (route === "POST /v1/chat/completions") return await createChatCompletion(config, request);
    if (route === "GET /v1/models") {
      return json(200, { object: "list", data: [modelObject(config.model)] });
    }
    if (route.startsWith("GET /v1/models/")) {
      checkModel(config, decodePathSegment(route.slice("GET /v1/models/".length)));
      return json(200, modelObject(config.model));
    }
    throw new ApiRequestError("not_found", `Invalid URL (${request.method} ${pathname})`);
  } catch (error) {
    return errorResponse(error, (unexpected) =>
      new ApiRequestError(
        "internal",
        `The embedded model failed: ${
          unexpected instanceof Error ? unexpected.message : String(unexpected)
        }`,
        { type: "server_error" },
      ));
  }
}
