/**
 * A replayed Gemini CLI history as turnlog records: a turn is a user message and what
 * follows; a `gemini` message gives the model's text, a `function_call` per tool call and a
 * `function_call_output` per result it holds (paired by the stored id, `<name>__<wire id>`);
 * a user message of `functionResponse` parts answers the calls still waiting (a second answer
 * of a call, Gemini's own copy of a result, is ignored). A turn whose last message is the
 * model's answer, with no call waiting, is finished. Pure.
 *
 * @module
 */
import type { ImportedFrom } from "../../record/mod.ts";
import { FORMAT_VERSION, makeRecord, type RunOutcome, type Usage } from "../../record/mod.ts";
import {
  ignoredEntry,
  isObject,
  isoTime,
  type Json,
  numberOf,
  objectOf,
  recordEntry,
  recordTime,
  runFinishedEntry,
  stringOf,
} from "../_line.ts";
import { type ForeignEntry, type LineSpan, noTokens, type TokenTotals } from "../_types.ts";
import type { UsageEvent } from "../_usage.ts";
import {
  callsOf,
  isIgnoredUser,
  isIgnoredUserText,
  partsOf,
  responseOf,
  resultParts,
  textOf,
  toolCallsOf,
} from "./_history.ts";

/** What the session's `session_meta` record holds. */
export interface GeminiMetaInput {
  id: string;
  createdAt: string;
  cwd: string;
  /** The first model that answered. */
  model: string;
  span: LineSpan;
  /** Where an exported session came from (its metadata's `turnlogExportedFrom`). */
  importedFrom?: ImportedFrom | undefined;
}

interface Turn {
  id: string;
  rounds: number;
  usage: Usage;
  /** The span of the turn's latest message, and whether it was a final answer. */
  last: { span: LineSpan; answered: boolean; time: string; error?: string | undefined };
}

type Response = NonNullable<ReturnType<typeof responseOf>>;

/** The text a function response gives the model, and whether it reports a failure. */
export function responseText(response: Json): { output: string; isError: boolean } {
  if (typeof response.output === "string") return { output: response.output, isError: false };
  if (typeof response.error === "string") return { output: response.error, isError: true };
  return { output: JSON.stringify(response), isError: "error" in response };
}

/** Builds the records of a replayed history, message by message. */
export class GeminiTurns {
  readonly out: ForeignEntry[] = [];
  turns = 0;
  model = "unknown";
  tokens: TokenTotals | null = null;
  /** Each response's usage, as counted into `tokens`. */
  readonly usage: UsageEvent[] = [];
  firstPrompt: string | null = null;
  readonly models: string[] = [];
  #turn: Turn | undefined;
  #metaOut = false;
  /** Calls made and not yet answered, by stored id (else by name). */
  readonly #waiting = new Map<string, string>();
  readonly #answered = new Set<string>();

  constructor(readonly meta: GeminiMetaInput) {
    this.model = meta.model;
  }

  /** The next message of the history, with the span of its last copy. */
  message(value: Json, span: LineSpan): void {
    this.#emitMeta();
    const time = isoTime(value.timestamp) ?? this.meta.createdAt;
    switch (stringOf(value.type)) {
      case "user":
        return this.#user(value, span, time);
      case "gemini":
        return this.#gemini(value, span, time);
      case "error":
        if (this.#turn) {
          this.#turn.last = { span, answered: false, time, error: textOf(value.content) };
        }
        return this.#ignore(span, "error message");
      default:
        return this.#ignore(span, `${stringOf(value.type) ?? "untyped"} message`);
    }
  }

  /** Something of the file that is not in the history (a dropped copy, a metadata line). */
  ignore(span: LineSpan, kind: string): void {
    this.#emitMeta();
    this.#ignore(span, kind);
  }

  /** A problem entry, where the file has it. */
  problem(entry: ForeignEntry): void {
    this.out.push(entry);
  }

  /** The end of the history: the open turn is closed. */
  end(): void {
    this.#emitMeta();
    this.#finish();
  }

  #ignore(span: LineSpan, kind: string, thought?: string): void {
    this.out.push(ignoredEntry(span, kind, thought));
  }

  #item(span: LineSpan, item: Parameters<typeof makeRecord<"response_item">>[1], time: string) {
    this.out.push(recordEntry(span, makeRecord("response_item", item, recordTime(time))));
  }

  #user(value: Json, span: LineSpan, time: string): void {
    const text = textOf(value.content);
    for (const part of partsOf(value.content)) {
      const fr = responseOf(part);
      if (fr) this.#answer(fr, span, time);
      else if (typeof part.text !== "string") this.#ignore(span, kindOfPart(part));
    }
    if (isIgnoredUser(value)) {
      return this.#ignore(span, text.trim().startsWith("<") ? "injected context" : "command");
    }
    if (isIgnoredUserText(text)) return;
    this.#finish();
    this.#open(span, time);
    this.firstPrompt ??= text;
    this.#item(span, { type: "message", role: "user", content: text }, time);
  }

  #gemini(value: Json, span: LineSpan, time: string): void {
    if (!this.#turn) this.#open(span, time);
    const model = stringOf(value.model);
    if (model) {
      this.model = model;
      if (!this.models.includes(model)) this.models.push(model);
    }
    const thoughts = Array.isArray(value.thoughts) && value.thoughts.length > 0 ||
      partsOf(value.content).some((part) => part.thought === true);
    if (thoughts) this.#ignore(span, "thoughts", thoughtText(value));
    const text = textOf(value.content);
    if (text.length > 0) {
      this.#item(span, { type: "message", role: "assistant", content: text }, time);
    }
    const calls = callsOf(value);
    for (const call of calls) {
      const callId = call.id ?? `${call.name}__line-${span.line}`;
      const args = JSON.stringify(call.args ?? {});
      this.#item(span, { type: "function_call", callId, name: call.name, arguments: args }, time);
      this.#waiting.set(callId, call.name);
    }
    for (const toolCall of toolCallsOf(value)) {
      for (const part of resultParts(toolCall)) {
        const fr = responseOf(part);
        if (fr) this.#answer(fr, span, time, stringOf(toolCall.status) === "error");
      }
    }
    this.#usage(objectOf(value.tokens), time, stringOf(value.model) ?? null);
    this.#turn!.rounds++;
    this.#turn!.last = { span, answered: calls.length === 0 && text.length > 0, time };
  }

  /**
   * A function response: the output of the call it answers, when one waits for it; a second
   * answer of a call (Gemini keeps each result twice) and an answer of no call are ignored.
   */
  #answer(fr: Response, span: LineSpan, time: string, failed = false): void {
    const callId = fr.id ?? [...this.#waiting].find(([, name]) => name === fr.name)?.[0];
    if (callId === undefined || !this.#waiting.has(callId)) {
      const repeated = callId !== undefined && this.#answered.has(callId);
      return this.#ignore(span, repeated ? "repeated function response" : "response without call");
    }
    this.#waiting.delete(callId);
    this.#answered.add(callId);
    const { output, isError } = responseText(fr.response);
    this.#item(span, {
      type: "function_call_output",
      callId,
      toolName: fr.name,
      output,
      isError: isError || failed,
    }, time);
  }

  #usage(tokens: Json | undefined, time: string, model: string | null): void {
    if (!tokens) return;
    const input = numberOf(tokens.input) ?? 0;
    const thoughts = numberOf(tokens.thoughts) ?? 0;
    const output = (numberOf(tokens.output) ?? 0) + thoughts;
    const cached = Math.min(numberOf(tokens.cached) ?? 0, input);
    this.usage.push({
      time,
      model,
      input: input - cached,
      output,
      cacheRead: cached,
      cacheCreation: 0,
      reasoningOutput: thoughts,
    });
    const totals = this.tokens ??= noTokens();
    totals.input += input;
    totals.output += output;
    totals.cacheRead += numberOf(tokens.cached) ?? 0;
    totals.reasoningOutput += numberOf(tokens.thoughts) ?? 0;
    totals.total += input + output;
    const usage = this.#turn?.usage;
    if (usage) {
      usage.inputTokens += input;
      usage.outputTokens += output;
      usage.totalTokens += numberOf(tokens.total) ?? input + output;
    }
  }

  #open(span: LineSpan, time: string): void {
    const id = `line-${span.line}`;
    this.out.push(recordEntry(
      span,
      makeRecord("turn_context", {
        runId: id,
        model: this.model,
        wireApi: "chat",
        policy: { approval: "ask-changes" },
        resumed: false,
      }, recordTime(time)),
    ));
    this.#turn = {
      id,
      rounds: 0,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      last: { span, answered: false, time },
    };
    this.turns++;
  }

  /** Closes the open turn: finished when it ended with an answer (or an error), else not. */
  #finish(): void {
    const turn = this.#turn;
    this.#turn = undefined;
    if (!turn) return;
    const { span, answered, time, error } = turn.last;
    if (!answered && error === undefined) return;
    const outcome: RunOutcome = error === undefined ? "succeeded" : "failed";
    const { rounds, usage } = turn;
    this.out.push(runFinishedEntry(span, { runId: turn.id, outcome, error, rounds, usage }, time));
  }

  #emitMeta(): void {
    if (this.#metaOut) return;
    this.#metaOut = true;
    const { id, createdAt, cwd, span } = this.meta;
    this.out.push(recordEntry(
      span,
      makeRecord("session_meta", {
        version: FORMAT_VERSION,
        id,
        createdAt,
        cwd,
        modelProvider: "gemini",
        model: this.model,
        wireApi: "chat",
        policy: { approval: "ask-changes" },
        ...(this.meta.importedFrom === undefined ? {} : { importedFrom: this.meta.importedFrom }),
      }, recordTime(createdAt)),
    ));
  }
}

function kindOfPart(part: Json): string {
  if ("inlineData" in part || "fileData" in part) return "file";
  if ("executableCode" in part || "codeExecutionResult" in part) return "code execution";
  return "part";
}

/**
 * The thoughts of a `gemini` message as a person reads them: each one's subject in bold, then
 * its description (markdown), and the text of the content's thought parts.
 */
function thoughtText(value: Json): string {
  const texts: string[] = [];
  for (const thought of Array.isArray(value.thoughts) ? value.thoughts : []) {
    if (!isObject(thought)) continue;
    const subject = stringOf(thought.subject);
    const description = stringOf(thought.description);
    texts.push([subject ? `**${subject}**` : "", description ?? ""].filter((t) => t).join("\n"));
  }
  for (const part of partsOf(value.content)) {
    if (part.thought === true && typeof part.text === "string") texts.push(part.text);
  }
  return texts.filter((text) => text.trim() !== "").join("\n\n");
}
