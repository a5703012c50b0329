/**
 * How the inspector pairs tool calls with their outputs, item by item and without keeping the
 * history: the verdicts normalization will give (orphan calls, dropped outputs), and where in
 * the file each call's output is, for the views.
 *
 * @module
 */
import type { ResponseItem } from "../record/mod.ts";
import type { LineRef, OutputEntry as PublicOutputEntry, TurnEntry } from "./_types.ts";

/** The byte range of a line, terminator included. */
export interface LineRange {
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's terminator. */
  end: number;
}

/** Where a history item came from: a line of its own, or a checkpoint's replacement history. */
export interface Origin extends LineRef, LineRange {
  /** True when the item is in the replacement history of the checkpoint at `line`. */
  inCheckpoint: boolean;
}

/** A call's entry in a view. */
export type CallEntry = Extract<TurnEntry, { kind: "function_call" }>;
/** An output's entry in a view. */
export type OutputEntry = Extract<TurnEntry, { kind: "function_call_output" }>;

/**
 * A call of the current history that no output has followed yet: where it is (its own fields,
 * not an object of its own: a rollout has tens of thousands of calls), its id and name, and its
 * view entry.
 */
export interface PendingCall extends Origin {
  /** Its place in the history, so orphans come out in history order (set by the pairing). */
  order: number;
  callId: string;
  name: string;
  entry: CallEntry | undefined;
}

/** An output of the current history that normalization leaves out, where it is. */
export interface DroppedOutput extends Origin {
  callId: string;
  toolName: string;
  reason: "orphan_output" | "duplicate_output";
  entry: OutputEntry | undefined;
}

/** An output as the pairing is told of it: read at once, copied only when dropped. */
export type OutputAt = Omit<DroppedOutput, "reason">;

/**
 * The calls of each id still waiting, oldest first: one call alone (nearly always), an array
 * of them when an id is called again before its output.
 */
class WaitingCalls {
  readonly #byId = new Map<string, PendingCall | PendingCall[]>();

  /** A copy, the calls shared. */
  clone(): WaitingCalls {
    const copy = new WaitingCalls();
    for (const [id, calls] of this.#byId) {
      copy.#byId.set(id, Array.isArray(calls) ? [...calls] : calls);
    }
    return copy;
  }

  clear(): void {
    this.#byId.clear();
  }

  push(call: PendingCall): void {
    const waiting = this.#byId.get(call.callId);
    if (waiting === undefined) this.#byId.set(call.callId, call);
    else if (Array.isArray(waiting)) waiting.push(call);
    else this.#byId.set(call.callId, [waiting, call]);
  }

  /** The oldest call of `callId` still waiting, taken off; undefined for none. */
  shift(callId: string): PendingCall | undefined {
    const waiting = this.#byId.get(callId);
    if (waiting === undefined || !Array.isArray(waiting)) {
      if (waiting !== undefined) this.#byId.delete(callId);
      return waiting;
    }
    const call = waiting.shift();
    if (waiting.length === 0) this.#byId.delete(callId);
    return call;
  }

  /** Every call still waiting. */
  all(): PendingCall[] {
    return [...this.#byId.values()].flat();
  }
}

/**
 * The verdicts of `normalizeHistory` on the model-visible history, reached item by item
 * without keeping the history: calls and outputs that share a call id pair in order (an output
 * answers the oldest call with its id still waiting); an output no waiting call claims is
 * dropped (an orphan when its id was never called, else a second output); a call still waiting
 * at the end is an orphan. A checkpoint starts a new history ({@linkcode reset}), so what is
 * kept is the waiting calls and the ids called since the last checkpoint.
 */
export class HistoryPairing {
  #order = 0;
  #pending = new WaitingCalls();
  readonly #called = new Set<string>();
  /** The ids called in the pairing this one was cloned from (shared, never changed). */
  #calledBefore: ReadonlySet<string> | undefined;
  #dropped: DroppedOutput[] = [];

  /** A pairing that goes on from where this one is (this one is left as is). */
  clone(): HistoryPairing {
    const copy = new HistoryPairing();
    copy.#order = this.#order;
    copy.#pending = this.#pending.clone();
    // The ids called so far are many and only looked up: shared, not copied (a set that
    // already shares one is merged first, so sharing never goes deeper than one level).
    if (this.#calledBefore !== undefined) {
      for (const id of this.#calledBefore) this.#called.add(id);
      this.#calledBefore = undefined;
    }
    copy.#calledBefore = this.#called;
    copy.#dropped = [...this.#dropped];
    return copy;
  }

  /** A checkpoint replaced the history: nothing before it is in the history any more. */
  reset(): void {
    this.#pending.clear();
    this.#called.clear();
    this.#calledBefore = undefined;
    this.#dropped = [];
  }

  /**
   * A checkpoint at `origin` replaced the history with `items` (as replay has it): the
   * pairing starts again from them.
   */
  restart(items: readonly ResponseItem[], origin: Origin): void {
    this.reset();
    const { line, turn, start, end } = origin;
    for (const item of items) {
      if (item.type === "function_call") {
        const { callId, name } = item;
        this.call({
          line,
          turn,
          start,
          end,
          inCheckpoint: true,
          order: 0,
          callId,
          name,
          entry: undefined,
        });
      } else if (item.type === "function_call_output") {
        const { callId, toolName } = item;
        this.output({
          line,
          turn,
          start,
          end,
          inCheckpoint: true,
          callId,
          toolName,
          entry: undefined,
        });
      }
    }
  }

  /** A call joins the history (kept as it is: its `order` is set here). */
  call(call: PendingCall): void {
    this.#called.add(call.callId);
    call.order = this.#order++;
    this.#pending.push(call);
  }

  /** An output joins the history (`output` is read now and copied if it is kept). */
  output(output: OutputAt): void {
    this.#order++;
    if (this.#pending.shift(output.callId) !== undefined) return;
    const { callId } = output;
    const called = this.#called.has(callId) || this.#calledBefore?.has(callId) === true;
    const reason = called ? "duplicate_output" : "orphan_output";
    this.#dropped.push({ ...output, reason });
  }

  /** The verdicts on the history as it ends: orphan calls and dropped outputs, in order. */
  verdicts(): { orphans: PendingCall[]; dropped: DroppedOutput[] } {
    const orphans = this.#pending.all().sort((a, b) => a.order - b.order);
    return { orphans, dropped: this.#dropped };
  }
}

/**
 * Calls paired with outputs line by line, in file order (not by history): where a view shows
 * a call's output, and which call an output (a synthesized one in a later turn) answers. It
 * keeps the calls the history pairing keeps (the same objects), not copies.
 */
export class LinePairing {
  #unanswered = new WaitingCalls();

  /** A pairing that goes on from where this one is (this one is left as is). */
  clone(): LinePairing {
    const copy = new LinePairing();
    copy.#unanswered = this.#unanswered.clone();
    return copy;
  }

  /** A call's line. */
  call(call: PendingCall): void {
    this.#unanswered.push(call);
  }

  /**
   * An output's line (`line` of turn `turn`): the call it answers, if any (its entry learns
   * where the output is).
   */
  output(callId: string, line: number, turn: number | null): PendingCall | undefined {
    const call = this.#unanswered.shift(callId);
    if (call?.entry) call.entry.output = { line, turn };
    return call;
  }
}

/**
 * The outputs among a block's entries (a turn's, the header's), found by the line and call id
 * a call's entry points at: another tool's line can hold several outputs, and a message too,
 * so a line number alone does not name an output.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BlockOutputs, type TurnEntry } from "./mod.ts";
 * const output: TurnEntry = {
 *   kind: "function_call_output", line: 3, callId: "c1", toolName: "t", isError: false,
 *   synthesized: false, text: "ok", chars: 2, call: { line: 2, turn: 1 }, dropped: null,
 * };
 * const outputs = new BlockOutputs([output]);
 * assert.equal(outputs.answer({ callId: "c1", output: { line: 3, turn: 1 } }, 1), output);
 * ```
 */
export class BlockOutputs {
  readonly #byKey = new Map<string, PublicOutputEntry>();

  /** The outputs of `entries`, the first of each line and call id. */
  constructor(entries: readonly TurnEntry[]) {
    for (const entry of entries) {
      if (entry.kind !== "function_call_output") continue;
      const key = `${entry.line} ${entry.callId}`;
      if (!this.#byKey.has(key)) this.#byKey.set(key, entry);
    }
  }

  /** The output that answers `call` in this block (turn `turn`; null: the header), if any. */
  answer(
    call: { callId: string; output: LineRef | null },
    turn: number | null,
  ): PublicOutputEntry | undefined {
    const output = call.output;
    if (!output || output.turn !== turn) return undefined;
    return this.#byKey.get(`${output.line} ${call.callId}`);
  }
}
