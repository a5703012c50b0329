/**
 * A few values by number, each kept once: what a column of numbers names (a model, a tool, a
 * label), where a string per row would be a pointer per row.
 *
 * @module
 */

/**
 * Values numbered from 0 in the order they are first given, each kept once.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NumberedValues } from "./_numbered.ts";
 * const models = new NumberedValues<string | null>();
 * assert.equal(models.number("gpt-5.5"), 0);
 * assert.equal(models.number(null), 1);
 * assert.equal(models.number("gpt-5.5"), 0);
 * assert.equal(models.at(1), null);
 * assert.equal(models.at(2), undefined);
 * assert.equal(models.find("gpt-5.5-codex"), undefined);
 * assert.equal(models.size, 2);
 * ```
 */
export class NumberedValues<T = string> {
  readonly #values: T[] = [];
  readonly #numbers = new Map<T, number>();

  /** How many values there are. */
  get size(): number {
    return this.#values.length;
  }

  /** The number of `value`, given the next one when it has none. */
  number(value: T): number {
    let number = this.#numbers.get(value);
    if (number === undefined) {
      number = this.#values.push(value) - 1;
      this.#numbers.set(value, number);
    }
    return number;
  }

  /** The number of `value`, or undefined when it has none. */
  find(value: T): number | undefined {
    return this.#numbers.get(value);
  }

  /** The value numbered `number`, or undefined. */
  at(number: number): T | undefined {
    return this.#values[number];
  }
}
