/**
 * Each model response's usage kept as numbers in blocks of typed arrays, not an object per
 * response: a 1 GB Codex rollout's 400,000 responses held as objects (80 bytes each and a
 * 40-byte time) were about 50 MB alive at its read's end, where its peak is.
 *
 * @module
 */
import type { UsageEvent } from "./_usage.ts";

/** Rows per block: a full block is kept as it is, never copied into a larger one. */
const BLOCK = 4096;
/** A row's whole numbers: its model (index), then the five kinds of tokens. */
const WIDTH = 6;

/** True when `n` fits a `Uint32Array` as it is (-0 does not: it would come back as 0). */
const isUint32 = (n: number): boolean => n >>> 0 === n && (n !== 0 || 1 / n > 0);

/** What {@linkcode UsageColumns.at} and an array of events both give: the events in order. */
export interface UsageEventList {
  /** How many events there are. */
  readonly length: number;
  /** The event at `index`, or undefined past the end. */
  at(index: number): UsageEvent | undefined;
}

/**
 * Responses' usage without their optional parts (`key`, `messageId`, `sidechain`, `line`: a
 * Codex rollout's), as columns (32 bytes a response); each event is made again, equal to the
 * one pushed, when asked for. A row whose time its milliseconds do not give back to the
 * character (a non-canonical one) or whose tokens are not whole numbers under 2^32 is kept
 * whole.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UsageColumns } from "./_usage_columns.ts";
 * const columns = new UsageColumns();
 * const event = {
 *   time: "2026-02-23T12:00:10.000Z",
 *   model: "gpt-5.5",
 *   input: 200,
 *   output: 20,
 *   cacheRead: 800,
 *   cacheCreation: 0,
 *   reasoningOutput: 10,
 * };
 * columns.push(event);
 * const odd = { ...event, time: "2026-02-30T00:00:00.000Z", model: null };
 * columns.push(odd);
 * columns.push({ ...event, input: 2 ** 40, output: -1 });
 * assert.equal(columns.length, 3);
 * assert.deepEqual(columns.at(0), event);
 * assert.deepEqual(columns.toArray(), [event, odd, { ...event, input: 2 ** 40, output: -1 }]);
 * assert.equal(columns.at(3), undefined);
 * ```
 */
export class UsageColumns implements UsageEventList {
  /** Each row's time in milliseconds. */
  readonly #times: Float64Array[] = [];
  /** Each row's model and tokens. */
  readonly #numbers: Uint32Array[] = [];
  #length = 0;
  /** Each model once (null: the file did not say), by its index in the rows. */
  readonly #models: (string | null)[] = [];
  readonly #modelIndex = new Map<string | null, number>();
  /**
   * Rows kept whole: a time its milliseconds do not write back the same, a count of tokens
   * that is not a whole number under 2^32.
   */
  readonly #whole = new Map<number, UsageEvent>();
  #lastTime = "";
  #lastMs = NaN;

  /** How many events were pushed. */
  get length(): number {
    return this.#length;
  }

  /** Keeps `event` as the next row (its optional parts are not kept). */
  push(event: UsageEvent): void {
    const row = this.#length++;
    const at = row % BLOCK;
    if (at === 0) {
      this.#times.push(new Float64Array(BLOCK));
      this.#numbers.push(new Uint32Array(BLOCK * WIDTH));
    }
    const ms = this.#millisecondsOf(event.time);
    const { input, output, cacheRead, cacheCreation, reasoningOutput } = event;
    if (
      Number.isNaN(ms) || !isUint32(input) || !isUint32(output) || !isUint32(cacheRead) ||
      !isUint32(cacheCreation) || !isUint32(reasoningOutput)
    ) {
      const { time, model } = event;
      this.#whole.set(row, {
        time,
        model,
        input,
        output,
        cacheRead,
        cacheCreation,
        reasoningOutput,
      });
      return;
    }
    this.#times[this.#times.length - 1]![at] = ms;
    const numbers = this.#numbers[this.#numbers.length - 1]!;
    const offset = at * WIDTH;
    numbers[offset] = this.#modelOf(event.model);
    numbers[offset + 1] = input;
    numbers[offset + 2] = output;
    numbers[offset + 3] = cacheRead;
    numbers[offset + 4] = cacheCreation;
    numbers[offset + 5] = reasoningOutput;
  }

  /** The event at `index` (a new object each time), or undefined past the end. */
  at(index: number): UsageEvent | undefined {
    if (index < 0) index += this.#length;
    if (!(index >= 0 && index < this.#length)) return undefined;
    if (this.#whole.size > 0) {
      const whole = this.#whole.get(index);
      if (whole !== undefined) return { ...whole };
    }
    const block = Math.floor(index / BLOCK);
    const at = index % BLOCK;
    const numbers = this.#numbers[block]!;
    const offset = at * WIDTH;
    return {
      time: new Date(this.#times[block]![at]!).toISOString(),
      model: this.#models[numbers[offset]!]!,
      input: numbers[offset + 1]!,
      output: numbers[offset + 2]!,
      cacheRead: numbers[offset + 3]!,
      cacheCreation: numbers[offset + 4]!,
      reasoningOutput: numbers[offset + 5]!,
    };
  }

  /** Every event, as objects. */
  toArray(): UsageEvent[] {
    const events: UsageEvent[] = [];
    for (let i = 0; i < this.#length; i++) events.push(this.at(i)!);
    return events;
  }

  /** The milliseconds of `time`, NaN when they do not write it back to the character. */
  #millisecondsOf(time: string): number {
    if (time === this.#lastTime) return this.#lastMs;
    const ms = Date.parse(time);
    if (Number.isNaN(ms) || new Date(ms).toISOString() !== time) return NaN;
    this.#lastTime = time;
    this.#lastMs = ms;
    return ms;
  }

  #modelOf(model: string | null): number {
    let index = this.#modelIndex.get(model);
    if (index === undefined) {
      index = this.#models.push(model) - 1;
      this.#modelIndex.set(model, index);
    }
    return index;
  }
}
