/**
 * Helpers for the runtime tests: the embedded model with a client that records every request
 * body it sends, temp folders, and reading a session file back.
 *
 * @module
 */
import { collectRecords } from "../src/history/mod.ts";
import { join } from "node:path";
import { type EmbeddedModel, startEmbeddedModel } from "../src/embedded_model/mod.ts";
import type { SessionRecord } from "../src/record/mod.ts";
import type { RunEvent } from "../src/runtime/mod.ts";
import {
  connectModel,
  type ModelConnection,
  runTurn,
  type RunTurnOptions,
} from "../src/runtime/mod.ts";
import { type KilledTurn, runKilledTurn } from "../cli/_killed_turn.ts";

/** A request body the client sent, parsed. */
// deno-lint-ignore no-explicit-any
export type SentBody = any;

/** The embedded model, a recording client and temp folders; dispose to clean up. */
export interface Harness extends AsyncDisposable {
  model: EmbeddedModel;
  /** A connection to the embedded model whose fetch records every request body. */
  connection: ModelConnection;
  /** Every request body sent, in order. */
  sent: SentBody[];
  sessionsDir: string;
  workspace: string;
  /** Runs a turn with this harness's client and folders, collecting its events. */
  turn(message: string, options?: Partial<RunTurnOptions>): Promise<RunEvent[]>;
}

/** Starts the embedded model and makes a workspace holding `files`. */
export async function harness(files: Record<string, string> = {}): Promise<Harness> {
  const model = await startEmbeddedModel();
  const sent: SentBody[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    if (typeof init?.body === "string") sent.push(JSON.parse(init.body));
    return fetch(input, init);
  };
  const connection = await connectModel({
    baseURL: model.baseURL,
    apiKey: model.apiKey,
    model: model.model,
    fetch: recordingFetch,
  });
  const base = await Deno.makeTempDir({ prefix: "turnlog-runtime-test-" });
  const sessionsDir = join(base, "sessions");
  const workspace = join(base, "workspace");
  await Deno.mkdir(workspace);
  for (const [name, content] of Object.entries(files)) {
    await Deno.mkdir(join(workspace, name, ".."), { recursive: true });
    await Deno.writeTextFile(join(workspace, name), content);
  }
  return {
    model,
    connection,
    sent,
    sessionsDir,
    workspace,
    async turn(message, options = {}) {
      const events: RunEvent[] = [];
      for await (
        const event of runTurn({
          message,
          connection,
          sessionsDir,
          workspace,
          ...options,
        })
      ) {
        events.push(event);
      }
      return events;
    },
    async [Symbol.asyncDispose]() {
      await model.close();
      await Deno.remove(base, { recursive: true });
    },
  };
}

/** The records of a session file, strictly parsed. */
export async function fileRecords(path: string): Promise<SessionRecord[]> {
  return (await collectRecords(path, { strict: true })).records;
}

/** A compact label per record: type, or item type / role for response items. */
export function labels(records: readonly SessionRecord[]): string[] {
  return records.map((record) => {
    if (record.type !== "response_item") return record.type;
    const item = record.payload;
    if (item.type === "message") return `${item.role}`;
    if (item.type === "function_call") return `call:${item.name}`;
    if (item.type === "function_call_output") {
      return `${item.synthesized ? "synthesized" : "output"}:${item.toolName}`;
    }
    return item.type;
  });
}

/** The event of a type (the first one), failing when there is none. */
export function eventOf<T extends RunEvent["type"]>(
  events: readonly RunEvent[],
  type: T,
): Extract<RunEvent, { type: T }> {
  const found = events.find((event) => event.type === type);
  if (!found) throw new Error(`No ${type} event in ${events.map((e) => e.type).join(", ")}`);
  return found as Extract<RunEvent, { type: T }>;
}

/**
 * Checks that every tool call in a sent request body has its output and every output its
 * call, for either wire API; returns the number of calls.
 */
export function pairedCallCount(body: SentBody): number {
  const calls: string[] = [];
  const outputs: string[] = [];
  if (Array.isArray(body.input)) {
    for (const item of body.input) {
      if (item.type === "function_call") calls.push(item.call_id);
      if (item.type === "function_call_output") outputs.push(item.call_id);
    }
  } else {
    for (const message of body.messages) {
      for (const call of message.tool_calls ?? []) calls.push(call.id);
      if (message.role === "tool") outputs.push(message.tool_call_id);
    }
  }
  if (JSON.stringify([...calls].sort()) !== JSON.stringify([...outputs].sort())) {
    throw new Error(`Unpaired request: calls ${calls.join(",")} outputs ${outputs.join(",")}`);
  }
  return calls.length;
}

/** The user messages' texts in a sent request body, for either wire API. */
export function sentUserMessages(body: SentBody): string[] {
  const items: { role?: string; content?: unknown }[] = body.input ?? body.messages;
  return items.filter((item) => item.role === "user").map((item) => String(item.content));
}

/** The roles of the messages in a sent body, "call"/"output" for tool items (either wire API). */
export function sentShape(body: SentBody): string[] {
  if (Array.isArray(body.input)) {
    return body.input.map((item: SentBody) =>
      item.type === "function_call"
        ? "call"
        : item.type === "function_call_output"
        ? "output"
        : item.role
    );
  }
  return body.messages.flatMap((message: SentBody) =>
    message.role === "tool" ? ["output"] : message.tool_calls
      ? [
        ...(message.content ? ["assistant"] : []),
        ...message.tool_calls.map(() => "call"),
      ]
      : [message.role]
  );
}

/**
 * A session of `h` whose second turn ran in a child process killed with SIGKILL during
 * `slow_task`: the file ends with an orphan call.
 */
export async function killedSession(
  h: Harness,
  options: Partial<RunTurnOptions> = {},
): Promise<{ sessionId: string; sessionPath: string; killed: KilledTurn }> {
  const first = await h.turn("list the files", options);
  const { sessionId, sessionPath } = eventOf(first, "run_started");
  const killed = await runKilledTurn({
    sessionsDir: h.sessionsDir,
    sessionId,
    workspace: h.workspace,
    message: "run a slow task for 0.8 seconds",
    settleMs: 0,
  });
  return { sessionId, sessionPath, killed };
}
