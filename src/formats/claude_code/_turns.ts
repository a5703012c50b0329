/**
 * The turns of a Claude Code transcript's active branch: a turn starts at a prompt (a user
 * line that is not a tool result, an injected meta line, a compact summary, a local command
 * or an interruption) and ends at a `turn_duration` line, an interruption, or, in files
 * without `turn_duration`, at an answer that asks for no tool with no call left open. Pure.
 *
 * @module
 */
import { makeRecord, type Usage } from "../../record/mod.ts";
import type { ApprovalMode, RunOutcome } from "../../record/mod.ts";
import { recordEntry, recordTime, runFinishedEntry } from "../_line.ts";
import type { ForeignEntry, LineSpan } from "../_types.ts";

interface OpenTurn {
  id: string;
  rounds: number;
  usage: Usage;
  /** Usage keys counted in this turn (an API response split over lines counts once). */
  keys: Set<string>;
  /** Calls of the turn still without an output. */
  pending: Set<string>;
  /** Whether the turn's latest model response asked for tools. */
  lastAskedTools: boolean;
  finished: boolean;
}

/** How a turn starts: its run id, model and policy. */
export interface TurnStart {
  runId: string;
  model: string;
  approval: ApprovalMode;
  time: string;
}

/** Turn bookkeeping for the second pass. */
export class ClaudeTurns {
  turns = 0;
  #turn: OpenTurn | undefined;

  constructor(
    readonly out: ForeignEntry[],
    /** True when the file marks turn ends itself (`turn_duration` lines). */
    readonly markedEnds: boolean,
  ) {}

  /**
   * Takes `other`'s turns as they are (its count and its open turn, copied): a followed
   * transcript's reader goes on from where another stopped.
   */
  takeFrom(other: ClaudeTurns): void {
    this.turns = other.turns;
    const turn = other.#turn;
    this.#turn = turn &&
      {
        ...turn,
        usage: { ...turn.usage },
        keys: new Set(turn.keys),
        pending: new Set(turn.pending),
      };
  }

  get open(): boolean {
    return this.#turn !== undefined;
  }

  /** Opens a turn: its `turn_context` record at `span`. */
  begin(span: LineSpan, start: TurnStart): void {
    this.out.push(recordEntry(
      span,
      makeRecord("turn_context", {
        runId: start.runId,
        model: start.model,
        wireApi: "chat",
        policy: { approval: start.approval },
        resumed: false,
      }, recordTime(start.time)),
    ));
    this.#turn = {
      id: start.runId,
      rounds: 0,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      keys: new Set(),
      pending: new Set(),
      lastAskedTools: false,
      finished: false,
    };
    this.turns++;
  }

  /** A model response of the turn, its usage counted once per key. */
  response(key: string | undefined, usage: Usage | undefined, callIds: string[]): void {
    const turn = this.#turn;
    if (!turn) return;
    if (key === undefined || !turn.keys.has(key)) {
      if (key !== undefined) turn.keys.add(key);
      turn.rounds++;
      if (usage) {
        turn.usage.inputTokens += usage.inputTokens;
        turn.usage.outputTokens += usage.outputTokens;
        turn.usage.totalTokens += usage.totalTokens;
      }
    }
    turn.lastAskedTools = callIds.length > 0;
    for (const id of callIds) turn.pending.add(id);
  }

  /** A tool output of the turn. */
  output(callId: string): void {
    this.#turn?.pending.delete(callId);
  }

  /** Ends the turn with a `run_finished` record at `span`. */
  finish(span: LineSpan, outcome: RunOutcome, time: string, error?: string): void {
    const turn = this.#turn;
    if (!turn || turn.finished) return;
    turn.finished = true;
    const { rounds, usage } = turn;
    this.out.push(runFinishedEntry(span, { runId: turn.id, outcome, error, rounds, usage }, time));
  }

  /**
   * In files without `turn_duration` lines, a response that asks for no tool, with no call of
   * the turn left open, ends the turn (Claude Code only goes on after a tool result): its
   * `run_finished` goes right after it.
   */
  answered(span: LineSpan, time: string): void {
    const turn = this.#turn;
    if (!turn || this.markedEnds || turn.lastAskedTools || turn.pending.size > 0) return;
    this.finish(span, "succeeded", time);
  }

  /** Closes the turn before the next one (or at the end of the file). */
  close(): void {
    this.#turn = undefined;
  }
}
