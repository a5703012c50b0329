/**
 * Each model response's usage kept as numbers in blocks of typed arrays, not an object per
 * response: a 1 GB Codex rollout's 400,000 responses held as objects (80 bytes each and a
 * 40-byte time) were about 50 MB alive at its read's end, where its peak is.
 *
 * @module
 */
import type { UsageEvent } from "./_usage.ts";
import { NumberedValues } from "./_numbered.ts";

/** Rows per block: a full block is kept as it is, never copied into a larger one. */
const BLOCK = 4096;
/** A row: its time's date and clock (see `dateOf`), its model (index), its five kinds of tokens. */
const WIDTH = 8;

/** True when `n` fits a `Uint32Array` as it is (-0 does not: it would come back as 0). */
const isUint32 = (n: number): boolean => n >>> 0 === n && (n !== 0 || 1 / n > 0);

/** The number the `count` digits of `text` from `from` write, or -1 for another character. */
function digits(text: string, from: number, count: number): number {
  let n = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * The date of an ISO time written `YYYY-MM-DDTHH:MM:SS.sssZ` as the number YYYYMMDD, or -1
 * for a time written otherwise. Its characters are what is kept, not the instant: written
 * again they are the same, whatever they say (a 30th of February too), with no `Date` made.
 */
function dateOf(time: string): number {
  if (
    time.length !== 24 || time.charCodeAt(4) !== 45 || time.charCodeAt(7) !== 45 ||
    time.charCodeAt(10) !== 84 || time.charCodeAt(13) !== 58 || time.charCodeAt(16) !== 58 ||
    time.charCodeAt(19) !== 46 || time.charCodeAt(23) !== 90
  ) return -1;
  const year = digits(time, 0, 4);
  const month = digits(time, 5, 2);
  const day = digits(time, 8, 2);
  return year < 0 || month < 0 || day < 0 ? -1 : (year * 100 + month) * 100 + day;
}

/** The clock of a time `dateOf` took, HHMMSSsss, or -1. */
function clockOf(time: string): number {
  const hour = digits(time, 11, 2);
  const minute = digits(time, 14, 2);
  const second = digits(time, 17, 2);
  const milli = digits(time, 20, 3);
  if (hour < 0 || minute < 0 || second < 0 || milli < 0) return -1;
  return ((hour * 100 + minute) * 100 + second) * 1000 + milli;
}

const TWO = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));

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
 * one pushed, when asked for. A row whose time is not written `YYYY-MM-DDTHH:MM:SS.sssZ` or
 * whose tokens are not whole numbers under 2^32 is kept whole.
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
 * const odd = { ...event, time: "2026-02-23T12:00:10Z", model: null };
 * columns.push(odd);
 * columns.push({ ...event, input: 2 ** 40, output: -1 });
 * assert.equal(columns.length, 3);
 * assert.deepEqual(columns.at(0), event);
 * assert.deepEqual(columns.toArray(), [event, odd, { ...event, input: 2 ** 40, output: -1 }]);
 * assert.equal(columns.at(3), undefined);
 * ```
 */
export class UsageColumns implements UsageEventList {
  /** Each row's time, model and tokens. */
  readonly #rows: Uint32Array[] = [];
  #length = 0;
  /** Each model once (null: the file did not say), by its index in the rows. */
  readonly #models = new NumberedValues<string | null>();
  /**
   * Rows kept whole: a time not written `YYYY-MM-DDTHH:MM:SS.sssZ`, a count of tokens that is
   * not a whole number under 2^32.
   */
  readonly #whole = new Map<number, UsageEvent>();
  /** The last date written out, and its text up to the clock. */
  #date = -1;
  #dateText = "";

  /** How many events were pushed. */
  get length(): number {
    return this.#length;
  }

  /** Keeps `event` as the next row (its optional parts are not kept). */
  push(event: UsageEvent): void {
    const row = this.#length++;
    const at = row % BLOCK;
    if (at === 0) this.#rows.push(new Uint32Array(BLOCK * WIDTH));
    const { time, input, output, cacheRead, cacheCreation, reasoningOutput } = event;
    const date = dateOf(time);
    const clock = date < 0 ? -1 : clockOf(time);
    if (
      clock < 0 || !isUint32(input) || !isUint32(output) || !isUint32(cacheRead) ||
      !isUint32(cacheCreation) || !isUint32(reasoningOutput)
    ) {
      const { model } = event;
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
    const rows = this.#rows[this.#rows.length - 1]!;
    const offset = at * WIDTH;
    rows[offset] = date;
    rows[offset + 1] = clock;
    rows[offset + 2] = this.#models.number(event.model);
    rows[offset + 3] = input;
    rows[offset + 4] = output;
    rows[offset + 5] = cacheRead;
    rows[offset + 6] = cacheCreation;
    rows[offset + 7] = reasoningOutput;
  }

  /** The event at `index` (a new object each time), or undefined past the end. */
  at(index: number): UsageEvent | undefined {
    if (index < 0) index += this.#length;
    if (!(index >= 0 && index < this.#length)) return undefined;
    if (this.#whole.size > 0) {
      const whole = this.#whole.get(index);
      if (whole !== undefined) return { ...whole };
    }
    const rows = this.#rows[Math.floor(index / BLOCK)]!;
    const offset = (index % BLOCK) * WIDTH;
    return {
      time: this.#timeOf(rows[offset]!, rows[offset + 1]!),
      model: this.#models.at(rows[offset + 2]!)!,
      input: rows[offset + 3]!,
      output: rows[offset + 4]!,
      cacheRead: rows[offset + 5]!,
      cacheCreation: rows[offset + 6]!,
      reasoningOutput: rows[offset + 7]!,
    };
  }

  /** Every event, as objects. */
  toArray(): UsageEvent[] {
    const events: UsageEvent[] = [];
    for (let i = 0; i < this.#length; i++) events.push(this.at(i)!);
    return events;
  }

  /** The time `dateOf` and `clockOf` took apart, written again. */
  #timeOf(date: number, clock: number): string {
    if (date !== this.#date) {
      const year = String(Math.floor(date / 10000)).padStart(4, "0");
      this.#date = date;
      this.#dateText = `${year}-${TWO[Math.floor(date / 100) % 100]}-${TWO[date % 100]}T`;
    }
    const hour = Math.floor(clock / 10000000);
    const minute = Math.floor(clock / 100000) % 100;
    const second = Math.floor(clock / 1000) % 100;
    return `${this.#dateText}${TWO[hour]}:${TWO[minute]}:${TWO[second]}.${THREE[clock % 1000]}Z`;
  }
}
