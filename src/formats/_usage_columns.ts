/**
 * Each model response's usage kept as numbers in blocks of a typed array, not an object per
 * response: a 1 GB Codex rollout's 400,000 responses held as objects (80 bytes each and a
 * 40-byte time) were about 50 MB alive at its read's end, where its peak is.
 *
 * @module
 */
import type { UsageEvent } from "./_usage.ts";

/** Rows per block: a full block is kept as it is, never copied into a larger one. */
const BLOCK = 4096;
/** A row: its time (milliseconds), its model (index), then the five kinds of tokens. */
const WIDTH = 7;

/** What {@linkcode UsageColumns.at} and an array of events both give: the events in order. */
export interface UsageEventList {
  /** How many events there are. */
  readonly length: number;
  /** The event at `index`, or undefined past the end. */
  at(index: number): UsageEvent | undefined;
}

/**
 * Responses' usage without their optional parts (`key`, `messageId`, `sidechain`, `line`: a
 * Codex rollout's), as columns; each event is made again, equal to the one pushed, when asked
 * for. A time that its milliseconds do not give back to the character (a non-canonical one)
 * is kept as written.
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
 * columns.push({ ...event, time: "2026-02-30T00:00:00.000Z", model: null });
 * assert.equal(columns.length, 2);
 * assert.deepEqual(columns.at(0), event);
 * assert.deepEqual(columns.toArray()[1], { ...event, time: "2026-02-30T00:00:00.000Z", model: null });
 * assert.equal(columns.at(2), undefined);
 * ```
 */
export class UsageColumns implements UsageEventList {
  readonly #blocks: Float64Array[] = [];
  #length = 0;
  /** Each model once (null: the file did not say), by its index in the rows. */
  readonly #models: (string | null)[] = [];
  readonly #modelIndex = new Map<string | null, number>();
  /** Times that their milliseconds do not write back the same, by row. */
  readonly #times = new Map<number, string>();
  #lastTime = "";
  #lastMs = NaN;

  /** How many events were pushed. */
  get length(): number {
    return this.#length;
  }

  /** Keeps `event` as the next row (its optional parts are not kept). */
  push(event: UsageEvent): void {
    const row = this.#length++;
    const offset = (row % BLOCK) * WIDTH;
    if (offset === 0) this.#blocks.push(new Float64Array(BLOCK * WIDTH));
    const block = this.#blocks[this.#blocks.length - 1]!;
    block[offset] = this.#millisecondsOf(event.time, row);
    block[offset + 1] = this.#modelOf(event.model);
    block[offset + 2] = event.input;
    block[offset + 3] = event.output;
    block[offset + 4] = event.cacheRead;
    block[offset + 5] = event.cacheCreation;
    block[offset + 6] = event.reasoningOutput;
  }

  /** The event at `index` (a new object each time), or undefined past the end. */
  at(index: number): UsageEvent | undefined {
    if (index < 0) index += this.#length;
    if (!(index >= 0 && index < this.#length)) return undefined;
    const block = this.#blocks[Math.floor(index / BLOCK)]!;
    const offset = (index % BLOCK) * WIDTH;
    return {
      time: this.#times.get(index) ?? new Date(block[offset]!).toISOString(),
      model: this.#models[block[offset + 1]!]!,
      input: block[offset + 2]!,
      output: block[offset + 3]!,
      cacheRead: block[offset + 4]!,
      cacheCreation: block[offset + 5]!,
      reasoningOutput: block[offset + 6]!,
    };
  }

  /** Every event, as objects. */
  toArray(): UsageEvent[] {
    const events: UsageEvent[] = [];
    for (let i = 0; i < this.#length; i++) events.push(this.at(i)!);
    return events;
  }

  #millisecondsOf(time: string, row: number): number {
    if (time === this.#lastTime) return this.#lastMs;
    const ms = Date.parse(time);
    if (Number.isNaN(ms) || new Date(ms).toISOString() !== time) {
      this.#times.set(row, time);
      return 0;
    }
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
