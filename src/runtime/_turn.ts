/**
 * One turn of the agent: start or continue a session, send the whole history to the model,
 * run the tool calls it asks for (asking for approval where the policy says so), send the
 * results back, until the model answers without tool calls or the round limit is reached.
 * Everything that happens comes out as typed events; every failure becomes a `run_failed`
 * event, never a rejection.
 *
 * Commit order is what makes a crash repairable: the assistant's message and its tool calls
 * are appended before any tool runs, and each output right after its tool finishes, so a
 * process killed mid-tool leaves exactly one call without an output, which resume repairs.
 *
 * @module
 */
import OpenAI from "openai";
import { AmbiguousSessionError, SessionInUseError, SessionNotFoundError } from "../store/_store.ts";
import { InvalidSessionIdError } from "../record/_ids.ts";
import { SessionFileError } from "../record/_parse.ts";
import {
  type FunctionCallItem,
  type FunctionCallOutputItem,
  makeRecord,
  type Policy,
  type ResponseItem,
  responseItemRecord,
  type RunOutcome,
  type SessionRecord,
  type TurnContext,
  type Usage,
  type WireApi,
} from "../record/_schemas.ts";
import { initializeSessionForRun, type RunSession } from "../resume/_resume.ts";
import { type Approver, deniedOutput, denyingApprover, needsApproval } from "./_approvals.ts";
import { ToolCancelledError, type ToolResult, ToolSet } from "../tools/_tools.ts";
import type { RunEvent, RunEventOf } from "./_events.ts";
import { ModelResponseError, streamModelRound } from "./_wire.ts";

/** How many model rounds a turn may take before it ends on its own. */
export const DEFAULT_MAX_ROUNDS = 8;

/** The system message of a fresh session. */
export const DEFAULT_SYSTEM_PROMPT =
  "You are a careful assistant working in the user's workspace folder through tools: " +
  "list_dir, read_file, search_text, write_file (changes a file; may need the user's " +
  "approval) and slow_task (a long-running job). Paths are relative to the workspace. " +
  "Use the tools to find facts instead of guessing, and answer briefly. When a call is " +
  "denied, do not retry it.";

/** The longest tool output a `tool_finished` event carries (the session file keeps it all). */
export const EVENT_OUTPUT_LIMIT = 4096;

/** When the compaction step runs. */
export type CompactionPoint = "turn_start" | "after_round";

/** What a compactor sees at a compaction point. */
export interface CompactionContext {
  when: CompactionPoint;
  /** The current model-visible history (do not change it in place). */
  history: readonly ResponseItem[];
  /** The token usage of the last model round; undefined at the start of a turn. */
  lastUsage: Usage | undefined;
  /** The turn's model, wire API and policy. */
  turn: TurnContext;
  /** Valid records in the session file now (a checkpoint stores it). */
  recordCount: number;
  /** Appends records to the session (a compactor persists its checkpoint through this). */
  append(records: readonly SessionRecord[]): Promise<void>;
  signal: AbortSignal;
}

/** What a compaction step did: nothing (undefined), a compaction, or a failed summary call. */
export type CompactionStepResult =
  | Omit<RunEventOf<"history_compacted">, "type" | "when"> & { history: ResponseItem[] }
  | Omit<RunEventOf<"compaction_failed">, "type" | "when">;

/**
 * Context compaction's place in a turn: called at the start of a resumed turn and after every
 * model round. Having persisted its checkpoint, it returns the replacement history; a failed
 * summary call is reported and the turn goes on uncompacted. Without one, the step does
 * nothing.
 */
export type Compactor = (context: CompactionContext) => Promise<CompactionStepResult | undefined>;

/** What a turn needs. */
export interface RunTurnOptions {
  /** The user's message. */
  message: string;
  /** Continue this session (id or unique prefix); absent: start a new one. */
  sessionId?: string | undefined;
  /** Sessions root; absent: `TURNLOG_SESSIONS_DIR`, else `./sessions`. */
  sessionsDir?: string | undefined;
  /** The OpenAI client (pointed at OpenAI, a compatible server or the embedded model). */
  client: OpenAI;
  /** The model; absent on resume: the one the session last used. */
  model?: string | undefined;
  /** Recorded in `session_meta`: "embedded", "openai" or the server's host. */
  modelProvider: string;
  /** Absent: the session's recorded one on resume, else "responses". */
  wireApi?: WireApi | undefined;
  /** Absent: the session's recorded policy on resume, else "ask-changes". */
  policy?: Policy | undefined;
  /** The tools; absent: the workspace tools over `workspace`. */
  tools?: ToolSet | undefined;
  /** The workspace folder of the default tools; absent: the current directory. */
  workspace?: string | undefined;
  /** Decides calls that need approval; absent: every such call is denied. */
  approver?: Approver | undefined;
  /** Cancels the turn: the tool in flight is aborted and the run ends as cancelled. */
  signal?: AbortSignal | undefined;
  maxRounds?: number | undefined;
  systemPrompt?: string | undefined;
  compactor?: Compactor | undefined;
  /** The run id; absent: a new UUIDv7. */
  runId?: string | undefined;
}

/** The output a call gets when the run is cancelled while or before it runs. */
export function cancelledOutput(name: string, running: boolean): string {
  return running
    ? `Cancelled: the run was cancelled while ${name} was running; it did not finish.`
    : `Cancelled: the run was cancelled before this ${name} call ran; it did not run.`;
}

/** A one-line description of why something failed, for a person. */
export function describeError(error: unknown, client?: OpenAI): string {
  if (error instanceof OpenAI.APIConnectionError) {
    const where = client?.baseURL ?? "its base URL";
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
  if (error instanceof OpenAI.APIError) {
    return `The model request failed: ${error.message}`;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

function failureKind(error: unknown): RunEventOf<"run_failed">["kind"] {
  if (
    error instanceof SessionNotFoundError || error instanceof AmbiguousSessionError ||
    error instanceof InvalidSessionIdError || error instanceof SessionInUseError ||
    error instanceof SessionFileError
  ) {
    return "session";
  }
  if (error instanceof OpenAI.APIError || error instanceof ModelResponseError) return "model";
  return "internal";
}

function shorten(text: string, limit = EVENT_OUTPUT_LIMIT): string {
  return text.length <= limit
    ? text
    : `${
      text.slice(0, limit)
    }\n[shortened for display: ${text.length} characters in the session file]`;
}

function addUsage(total: Usage | undefined, more: Usage | undefined): Usage | undefined {
  if (!more) return total;
  if (!total) return { ...more };
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  };
}

class Cancelled extends Error {
  constructor() {
    super("The run was cancelled");
    this.name = "Cancelled";
  }
}

/**
 * Runs one turn and yields its events, ending with exactly one of `run_succeeded`,
 * `run_failed` or `run_cancelled`. It never throws; a session that cannot be opened (unknown
 * id, in use) yields only `run_failed` and creates nothing.
 *
 * @example
 * ```ts ignore
 * for await (const event of runTurn({ message: "list the files", client, model, modelProvider })) {
 *   console.log(event.type);
 * }
 * ```
 */
export async function* runTurn(options: RunTurnOptions): AsyncGenerator<RunEvent> {
  const signal = options.signal ?? new AbortController().signal;
  let tools: ToolSet;
  try {
    tools = options.tools ?? await ToolSet.open(options.workspace ?? Deno.cwd());
  } catch (error) {
    const where = options.workspace ?? Deno.cwd();
    yield {
      type: "run_failed",
      kind: "workspace",
      error: error instanceof Deno.errors.NotFound
        ? `Workspace folder not found: ${where}`
        : `Cannot open the workspace ${where}: ${describeError(error)}`,
    };
    return;
  }

  let session: RunSession;
  try {
    session = await initializeSessionForRun({
      message: options.message,
      sessionId: options.sessionId,
      root: options.sessionsDir,
      systemPrompt: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      cwd: tools.workspace.root,
      modelProvider: options.modelProvider,
      model: options.model,
      wireApi: options.wireApi,
      policy: options.policy,
      runId: options.runId,
    });
  } catch (error) {
    yield { type: "run_failed", kind: failureKind(error), error: describeError(error) };
    return;
  }

  yield* driveTurn(session, tools, options, signal);
}

async function* driveTurn(
  session: RunSession,
  tools: ToolSet,
  options: RunTurnOptions,
  signal: AbortSignal,
): AsyncGenerator<RunEvent> {
  const { writer, runId, sessionId, turn } = session;
  const approver = options.approver ?? denyingApprover("no approver is configured for this run");
  const maxRounds = options.maxRounds ?? DEFAULT_MAX_ROUNDS;
  let history: ResponseItem[] = [...session.history];
  let rounds = 0;
  let usage: Usage | undefined;
  let lastUsage: Usage | undefined;
  let answer = "";

  const append = (records: readonly SessionRecord[]) => writer.append(records);
  const recordCount = () => session.recordCountBefore + writer.appendedRecords;
  async function* compactionStep(when: CompactionPoint): AsyncGenerator<RunEvent> {
    if (!options.compactor) return;
    const result = await options.compactor({
      when,
      history,
      lastUsage,
      turn,
      recordCount: recordCount(),
      append,
      signal,
    });
    if (result === undefined) return;
    if ("error" in result) {
      yield { type: "compaction_failed", when, ...result };
      return;
    }
    const { history: replacement, ...facts } = result;
    history = replacement;
    yield { type: "history_compacted", when, ...facts };
  }
  const finish = async (outcome: RunOutcome, error?: string) => {
    await append([
      makeRecord("run_finished", {
        runId,
        outcome,
        rounds,
        ...(error === undefined ? {} : { error }),
        ...(usage === undefined ? {} : { usage }),
      }),
    ]);
  };

  try {
    yield {
      type: "run_started",
      runId,
      sessionId,
      resumed: session.resumed,
      policy: turn.policy,
      model: turn.model,
      modelProvider: session.meta.modelProvider,
      wireApi: turn.wireApi,
      sessionPath: session.location.path,
      recordCountBefore: session.recordCountBefore,
    };
    if (session.synthesizedItems.length > 0 || session.droppedItems.length > 0) {
      yield {
        type: "session_repaired",
        synthesized: session.synthesizedItems.length,
        callIds: session.synthesizedItems.map((item) => item.callId),
        outputs: session.synthesizedItems.map(({ callId, toolName, output }) => ({
          callId,
          toolName,
          output,
        })),
        dropped: session.droppedItems.length,
      };
    }
    if (session.resumed) yield* compactionStep("turn_start");

    let roundLimitReached = false;
    while (true) {
      if (signal.aborted) throw new Cancelled();
      if (rounds >= maxRounds) {
        roundLimitReached = true;
        break;
      }
      rounds++;
      yield { type: "model_requested", round: rounds, messageCount: history.length };
      let result;
      for await (
        const part of streamModelRound(options.client, {
          wireApi: turn.wireApi,
          model: turn.model,
          history,
          tools: tools.definitions,
          signal,
        })
      ) {
        if (part.kind === "delta") yield { type: "assistant_delta", text: part.text };
        else result = part.result;
      }
      if (!result) throw new ModelResponseError("The model sent no response");
      lastUsage = result.usage;
      usage = addUsage(usage, result.usage);

      const items: ResponseItem[] = [];
      if (result.text) items.push({ type: "message", role: "assistant", content: result.text });
      items.push(...result.calls);
      await append(items.map((item) => responseItemRecord(item)));
      history = [...history, ...items];
      if (result.text) {
        answer = result.text;
        yield { type: "assistant_message", round: rounds, text: result.text };
      }
      if (result.calls.length === 0) {
        yield* compactionStep("after_round");
        break;
      }

      for (const call of result.calls) {
        yield {
          type: "tool_requested",
          callId: call.callId,
          name: call.name,
          arguments: call.arguments,
        };
        let outcome: ToolResult | undefined;
        const tool = tools.get(call.name);
        if (!signal.aborted && tool && needsApproval(turn.policy.approval, tool)) {
          yield {
            type: "approval_requested",
            runId,
            callId: call.callId,
            name: call.name,
            arguments: call.arguments,
          };
          const decision = await approver.decide(
            { runId, callId: call.callId, name: call.name, arguments: call.arguments },
            signal,
          );
          yield {
            type: "approval_resolved",
            callId: call.callId,
            approved: decision.approved,
            reason: decision.reason,
          };
          if (signal.aborted) {
            outcome = { output: cancelledOutput(call.name, false), isError: true };
          } else if (!decision.approved) {
            outcome = { output: deniedOutput(call.name, decision.reason), isError: true };
          }
        }
        outcome ??= await runCall(tools, call, signal);
        const output: FunctionCallOutputItem = {
          type: "function_call_output",
          callId: call.callId,
          toolName: call.name,
          output: outcome.output,
          isError: outcome.isError,
        };
        await append([responseItemRecord(output)]);
        history = [...history, output];
        yield {
          type: "tool_finished",
          callId: call.callId,
          name: call.name,
          isError: outcome.isError,
          output: shorten(outcome.output),
        };
      }
      if (signal.aborted) throw new Cancelled();
      yield* compactionStep("after_round");
    }

    await finish("succeeded");
    yield {
      type: "run_succeeded",
      runId,
      sessionId,
      rounds,
      usage: usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      answer,
      roundLimitReached,
      recordCount: recordCount(),
    };
  } catch (error) {
    if (signal.aborted) {
      await finish("cancelled").catch(() => {});
      yield { type: "run_cancelled", runId, sessionId, rounds, recordCount: recordCount() };
    } else {
      const message = describeError(error, options.client);
      await finish("failed", message).catch(() => {});
      yield {
        type: "run_failed",
        runId,
        sessionId,
        kind: failureKind(error),
        error: message,
        recordCount: recordCount(),
      };
    }
  } finally {
    writer.close();
  }
}

async function runCall(
  tools: ToolSet,
  call: FunctionCallItem,
  signal: AbortSignal,
): Promise<ToolResult> {
  if (signal.aborted) return { output: cancelledOutput(call.name, false), isError: true };
  try {
    return await tools.run(call, signal);
  } catch (error) {
    if (error instanceof ToolCancelledError) {
      return { output: cancelledOutput(call.name, true), isError: true };
    }
    throw error;
  }
}
