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

/** A call of the current history that no output has followed yet. */
export interface PendingCall {
  /** Its place in the history, so orphans come out in history order. */
  order: number;
  origin: Origin;
  callId: string;
  name: string;
  entry: CallEntry | undefined;
}

/** An output of the current history that normalization leaves out. */
export interface DroppedOutput {
  origin: Origin;
  callId: string;
  toolName: string;
  reason: "orphan_output" | "duplicate_output";
  entry: OutputEntry | undefined;
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
  readonly #pending = new Map<string, PendingCall[]>();
  readonly #called = new Set<string>();
  /** The ids called in the pairing this one was cloned from (shared, never changed). */
  #calledBefore: ReadonlySet<string> | undefined;
  #dropped: DroppedOutput[] = [];

  /** A pairing that goes on from where this one is (this one is left as is). */
  clone(): HistoryPairing {
    const copy = new HistoryPairing();
    copy.#order = this.#order;
    for (const [id, calls] of this.#pending) copy.#pending.set(id, [...calls]);
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
    const kept: Origin = { ...origin, inCheckpoint: true };
    for (const item of items) {
      if (item.type === "function_call") {
        this.call(kept, { callId: item.callId, name: item.name, entry: undefined });
      } else if (item.type === "function_call_output") {
        this.output(kept, { callId: item.callId, toolName: item.toolName, entry: undefined });
      }
    }
  }

  /** A call joins the history. */
  call(origin: Origin, call: { callId: string; name: string; entry: CallEntry | undefined }): void {
    const { callId, name, entry } = call;
    this.#called.add(callId);
    const pending: PendingCall = { order: this.#order++, origin, callId, name, entry };
    const waiting = this.#pending.get(callId);
    if (waiting) waiting.push(pending);
    else this.#pending.set(callId, [pending]);
  }

  /** An output joins the history. */
  output(
    origin: Origin,
    output: { callId: string; toolName: string; entry: OutputEntry | undefined },
  ): void {
    this.#order++;
    const { callId, toolName, entry } = output;
    const waiting = this.#pending.get(callId);
    if (waiting && waiting.length > 0) {
      waiting.shift();
      if (waiting.length === 0) this.#pending.delete(callId);
      return;
    }
    const called = this.#called.has(callId) || this.#calledBefore?.has(callId) === true;
    const reason = called ? "duplicate_output" : "orphan_output";
    this.#dropped.push({ origin, callId, toolName, reason, entry });
  }

  /** The verdicts on the history as it ends: orphan calls and dropped outputs, in order. */
  verdicts(): { orphans: PendingCall[]; dropped: DroppedOutput[] } {
    const orphans = [...this.#pending.values()].flat().sort((a, b) => a.order - b.order);
    return { orphans, dropped: this.#dropped };
  }
}

/** A call seen in the file, waiting for the line of its output. */
interface Unanswered {
  entry: CallEntry | undefined;
  ref: LineRef;
}

/**
 * Calls paired with outputs line by line, in file order (not by history): where a view shows
 * a call's output, and which call an output (a synthesized one in a later turn) answers.
 */
export class LinePairing {
  readonly #unanswered = new Map<string, Unanswered[]>();

  /** A pairing that goes on from where this one is (this one is left as is). */
  clone(): LinePairing {
    const copy = new LinePairing();
    for (const [id, calls] of this.#unanswered) copy.#unanswered.set(id, [...calls]);
    return copy;
  }

  /** A call's line. */
  call(callId: string, call: Unanswered): void {
    const waiting = this.#unanswered.get(callId);
    if (waiting) waiting.push(call);
    else this.#unanswered.set(callId, [call]);
  }

  /** An output's line: the call it answers (its entry learns where the output is), if any. */
  output(callId: string, ref: LineRef): LineRef | undefined {
    const waiting = this.#unanswered.get(callId);
    const call = waiting?.shift();
    if (waiting && waiting.length === 0) this.#unanswered.delete(callId);
    if (call?.entry) call.entry.output = ref;
    return call?.ref;
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
