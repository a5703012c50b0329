/**
 * The state of a turn in progress: the history it sends, its rounds and token usage, and the
 * session writer it appends through. The steps of a turn (a model round, a tool call, a
 * compaction) read and change it; the turn driver owns it.
 *
 * @module
 */
import {
  type FunctionCallItem,
  makeRecord,
  type ResponseItem,
  type RunOutcome,
  type SessionRecord,
  type Usage,
} from "../record/mod.ts";
import type { RunSession } from "../resume/mod.ts";
import { appendAtCommitPoint, type CommitHook, type CommitPoint } from "../store/mod.ts";
import type { ToolSet } from "../tools/mod.ts";
import type { Approver } from "./_approvals.ts";
import type { Compactor } from "./_compactor.ts";
import type { ModelConnection } from "./_connect.ts";
import type { CompactionPoint, RunEvent } from "./_events.ts";
import { cancelledOutput } from "./_cancelled.ts";

/** What a turn's steps need besides its state. */
export interface TurnSettings {
  connection: ModelConnection;
  tools: ToolSet;
  approver: Approver;
  compactor: Compactor | undefined;
  maxRounds: number;
  maxRequestChars: number;
  signal: AbortSignal;
  onCommit: CommitHook | undefined;
}

/** Adds two usages; either may be absent. */
export function addUsage(total: Usage | undefined, more: Usage | undefined): Usage | undefined {
  if (!more) return total;
  if (!total) return { ...more };
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    totalTokens: total.totalTokens + more.totalTokens,
  };
}

/** A turn in progress on a locked session. */
export class ActiveTurn {
  readonly session: RunSession;
  readonly settings: TurnSettings;
  /** The model-visible history the next request sends. */
  history: ResponseItem[];
  rounds = 0;
  /** The turn's token usage so far. */
  usage: Usage | undefined;
  /** The last round's usage (what compaction compares with its threshold). */
  lastUsage: Usage | undefined;
  /** The last assistant text of the turn. */
  answer = "";
  /** Calls appended without their output yet. */
  readonly #pending = new Map<string, FunctionCallItem[]>();
  /** True once `run_finished` is appended. */
  #finished = false;

  constructor(session: RunSession, settings: TurnSettings) {
    this.session = session;
    this.settings = settings;
    this.history = [...session.history];
  }

  /** Appends records to the session file at a commit point. */
  append(records: readonly SessionRecord[], point: CommitPoint): Promise<void> {
    return appendAtCommitPoint(this.session.writer, point, {
      records,
      onCommit: this.settings.onCommit,
    });
  }

  /** Valid records in the session file now. */
  recordCount(): number {
    return this.session.recordCountBefore + this.session.writer.appendedRecords;
  }

  /** Items the model produced or tools returned, appended to the file and to the history. */
  async commit(
    items: readonly ResponseItem[],
    point: "model_output" | "tool_output",
  ): Promise<void> {
    await this.append(items.map((item) => makeRecord("response_item", item)), point);
    this.history = [...this.history, ...items];
    for (const item of items) {
      if (item.type === "function_call") {
        this.#pending.set(item.callId, [...this.#pending.get(item.callId) ?? [], item]);
      } else if (item.type === "function_call_output") {
        const waiting = this.#pending.get(item.callId);
        waiting?.shift();
        if (waiting?.length === 0) this.#pending.delete(item.callId);
      }
    }
  }

  /** Appends the `run_finished` record. */
  async finish(outcome: RunOutcome, error?: string): Promise<void> {
    this.#finished = true;
    await this.append([
      makeRecord("run_finished", {
        runId: this.session.runId,
        outcome,
        rounds: this.rounds,
        ...(error === undefined ? {} : { error }),
        ...(this.usage === undefined ? {} : { usage: this.usage }),
      }),
    ], "run_finished");
  }

  /**
   * Ends a turn its consumer stopped reading before it ended (a closed pipe, a dropped
   * iterator): every call still without an output gets a "cancelled" one, and the run records
   * that it was cancelled, so the file stays paired and closed.
   */
  async abandon(): Promise<void> {
    if (this.#finished) return;
    const calls = [...this.#pending.values()].flat();
    await this.commit(
      calls.map((call) => ({
        type: "function_call_output",
        callId: call.callId,
        toolName: call.name,
        output: cancelledOutput(call.name, false),
        isError: true,
      })),
      "tool_output",
    );
    await this.finish("cancelled", "The turn's reader went away before the turn ended");
  }

  /** Runs the compactor, if any, at `when`, and takes its replacement history. */
  async *compaction(when: CompactionPoint): AsyncGenerator<RunEvent> {
    const compactor = this.settings.compactor;
    if (!compactor) return;
    const result = await compactor({
      when,
      history: this.history,
      lastUsage: this.lastUsage,
      turn: this.session.turn,
      connection: this.settings.connection,
      recordCount: this.recordCount(),
      append: (records) => this.append(records, "checkpoint"),
      signal: this.settings.signal,
    });
    if (result === undefined) return;
    if ("error" in result) {
      yield { type: "compaction_failed", when, ...result };
      return;
    }
    const { history, ...facts } = result;
    this.history = history;
    yield { type: "history_compacted", when, ...facts };
  }
}
