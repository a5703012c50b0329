/**
 * Google's Gemini API wire (`POST /v1beta/models/<model>:generateContent` and
 * `:streamGenerateContent?alt=sse`, what Gemini CLI speaks): the request schema, the check the
 * real API makes on function calls and responses (in its words), the reading into a
 * wire-neutral conversation, and the response the embedded model answers with, whole or as
 * a stream of server-sent events.
 *
 * @module
 */
import { z } from "zod";
import type { ErrorKind } from "../errors/mod.ts";
import { HttpError, type SseEvent } from "../http/mod.ts";
import type { ConversationItem, ConversationRequest, Reply } from "./_conversation.ts";
import { chunkText, TEXT_CHUNK } from "./_sse.ts";
import type { TokenCounts } from "./_usage.ts";

/** An error the Gemini routes answer with Google's body `{ error: { code, message, status } }`. */
export class GeminiApiError extends HttpError {
  /** Google's status word, such as `INVALID_ARGUMENT`. */
  readonly statusWord: string;

  /** An error of `kind` (its HTTP status the error table's) and Google's status word. */
  constructor(kind: ErrorKind, message: string, statusWord = "INVALID_ARGUMENT") {
    super(kind, message);
    this.name = "GeminiApiError";
    this.statusWord = statusWord;
  }

  /** The JSON body: `{ error: { code, message, status } }`. */
  override toBody(): { error: { code: number; message: string; status: string } } {
    return { error: { code: this.status, message: this.message, status: this.statusWord } };
  }
}

/** The API's words for a function call turn whose responses do not match its calls. */
export const GEMINI_RESPONSE_COUNT_MESSAGE: string =
  "Please ensure that the number of function response parts is equal to the number of " +
  "function call parts of the function call turn.";

/** The API's words for function responses that follow no function call turn. */
export const GEMINI_RESPONSE_TURN_MESSAGE: string =
  "Please ensure that function response turn comes immediately after a function call turn.";

const PartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  functionCall: z.looseObject({
    name: z.string().min(1),
    args: z.record(z.string(), z.unknown()).optional(),
    id: z.string().optional(),
  }).optional(),
  functionResponse: z.looseObject({
    name: z.string(),
    response: z.record(z.string(), z.unknown()).optional(),
    id: z.string().optional(),
  }).optional(),
});
type Part = z.infer<typeof PartSchema>;

const ContentSchema = z.looseObject({
  role: z.enum(["user", "model"]).optional(),
  parts: z.array(PartSchema),
});

/** The part of a `generateContent` body the embedded model reads. */
export const GeminiRequestSchema = z.looseObject({
  contents: z.array(ContentSchema).min(1),
  systemInstruction: z.looseObject({ parts: z.array(PartSchema) }).optional(),
  tools: z.array(z.looseObject({
    functionDeclarations: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
  })).optional(),
});
/** The part of a `generateContent` body the embedded model reads. */
export type GeminiRequest = z.infer<typeof GeminiRequestSchema>;

const calls = (parts: readonly Part[]) => parts.filter((part) => part.functionCall);
const responses = (parts: readonly Part[]) => parts.filter((part) => part.functionResponse);

/**
 * Rejects what the real API rejects in function calling (HTTP 400, `INVALID_ARGUMENT`): a
 * model turn's function calls not answered by as many function response parts in the user
 * turn right after it, and function responses after a turn that made no calls.
 */
function checkFunctionTurns(request: GeminiRequest): void {
  request.contents.forEach((content, at) => {
    const answers = responses(content.parts).length;
    if (answers === 0) return;
    const before = request.contents[at - 1];
    const asked = before?.role === "model" ? calls(before.parts).length : 0;
    if (asked === 0) throw new GeminiApiError("usage", GEMINI_RESPONSE_TURN_MESSAGE);
    if (asked !== answers) throw new GeminiApiError("usage", GEMINI_RESPONSE_COUNT_MESSAGE);
  });
  request.contents.forEach((content, at) => {
    const next = request.contents[at + 1];
    if (content.role !== "model" || calls(content.parts).length === 0 || next === undefined) {
      return;
    }
    if (responses(next.parts).length !== calls(content.parts).length) {
      throw new GeminiApiError("usage", GEMINI_RESPONSE_COUNT_MESSAGE);
    }
  });
}

/** Context Gemini CLI injects as text parts of a user turn, not typed by the user. */
const INJECTED = /^\s*<(?:session_context|hook_context)>/;

/** A function response's text: its `output`, its `error`, else the response as JSON. */
function responseText(response: Record<string, unknown> | undefined): string {
  if (typeof response?.output === "string") return response.output;
  if (typeof response?.error === "string") return `Error: ${response.error}`;
  return JSON.stringify(response ?? {});
}

/**
 * Reads a Gemini request into the wire-neutral conversation, after checking it the way the
 * real API does. A call without an id is named by its turn and place; the k-th response of a
 * turn answers the k-th call of the turn before it. Each text part of a user turn is a user
 * message (Gemini CLI merges a resumed session's unanswered prompt with the new one). Thoughts
 * are left out, and the context Gemini CLI injects (`<session_context>`).
 */
export function geminiConversation(request: GeminiRequest): ConversationRequest {
  checkFunctionTurns(request);
  const items: ConversationItem[] = [];
  const system = (request.systemInstruction?.parts ?? []).map((p) => p.text ?? "").join("\n");
  if (system.trim() !== "") items.push({ kind: "message", role: "system", text: system });
  let previousIds: string[] = [];
  request.contents.forEach((content, at) => {
    const ids: string[] = [];
    const texts: string[] = [];
    let answered = 0;
    for (const part of content.parts) {
      if (part.functionCall) {
        const callId = part.functionCall.id ?? `call_${at}_${ids.length}`;
        ids.push(callId);
        const args = JSON.stringify(part.functionCall.args ?? {});
        items.push({ kind: "call", callId, name: part.functionCall.name, arguments: args });
      } else if (part.functionResponse) {
        const callId = previousIds[answered++] ?? part.functionResponse.id ?? `response_${at}`;
        items.push({
          kind: "output",
          callId,
          output: responseText(part.functionResponse.response),
        });
      } else if (part.text !== undefined && part.thought !== true && !INJECTED.test(part.text)) {
        texts.push(part.text);
      }
    }
    // Gemini CLI sends the turns of a resumed user side as one content: a part each.
    const said = content.role === "model" ? [texts.join("")] : texts;
    const role = content.role === "model" ? "assistant" : "user";
    for (const text of said.filter((text) => text.trim() !== "")) {
      items.push({ kind: "message", role, text });
    }
    previousIds = ids;
  });
  const toolNames = (request.tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((declaration) => declaration.name)
  );
  return { items, toolNames };
}

/** The characters usage counts as a Gemini request's input: `{ systemInstruction, contents, tools }`. */
export function geminiSerializedInput(body: Record<string, unknown>): string {
  return JSON.stringify({
    systemInstruction: body.systemInstruction ?? null,
    contents: body.contents,
    tools: body.tools ?? [],
  });
}

/** What a response is built from: the reply, its usage, the model and the request digest. */
export interface GeminiAnswer {
  model: string;
  reply: Reply;
  usage: TokenCounts;
  digest: string;
}

function usageMetadata(usage: TokenCounts) {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: usage.outputTokens,
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
}

function replyParts(reply: Reply): Part[] {
  if (reply.kind === "text") return [{ text: reply.text }];
  return reply.calls.map((call) => ({
    functionCall: { name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> },
  }));
}

function chunk(answer: GeminiAnswer, parts: Part[], last: boolean) {
  return {
    candidates: [{
      content: { role: "model", parts },
      ...(last ? { finishReason: "STOP" } : {}),
      index: 0,
    }],
    ...(last ? { usageMetadata: usageMetadata(answer.usage) } : {}),
    modelVersion: answer.model,
    responseId: answer.digest.slice(0, 24),
  };
}

/** The whole response of `generateContent`. */
export function geminiResponse(answer: GeminiAnswer) {
  return chunk(answer, replyParts(answer.reply), true);
}

/**
 * The stream of `streamGenerateContent?alt=sse`: a text in chunks (the last with the finish
 * reason and usage), or the function calls in one chunk, as the real API streams them.
 */
export function geminiEvents(answer: GeminiAnswer): SseEvent[] {
  const { reply } = answer;
  const texts = reply.kind === "text" ? chunkText(reply.text, TEXT_CHUNK) : [];
  const pieces = reply.kind === "calls"
    ? [replyParts(reply)]
    : (texts.length > 0 ? texts : [""]).map((text): Part[] => [{ text }]);
  return pieces.map((parts, at) => ({
    data: JSON.stringify(chunk(answer, parts, at === pieces.length - 1)),
  }));
}
