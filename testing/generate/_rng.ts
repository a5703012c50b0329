/**
 * The generator's randomness: a small seeded PRNG, so the same seed gives the same files on
 * every machine, and UUIDv7 ids drawn from it.
 *
 * @module
 */

/**
 * A small, fast, seeded PRNG (mulberry32).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Rng } from "./mod.ts";
 * assert.equal(new Rng(7).next(), new Rng(7).next());
 * ```
 */
export class Rng {
  #state: number;
  /** A generator whose numbers are decided by `seed` alone. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** `digits` lowercase hexadecimal digits. */
  hex(digits: number): string {
    let out = "";
    for (let i = 0; i < digits; i++) out += "0123456789abcdef"[this.int(0, 15)];
    return out;
  }
}

/** A UUIDv7 for `time` (ms since the epoch) whose random bits come from `rng`. */
export function seededUuidV7(rng: Rng, time: number): string {
  const t = time.toString(16).padStart(12, "0");
  const variant = "89ab"[rng.int(0, 3)];
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${rng.hex(3)}-${variant}${rng.hex(3)}-${rng.hex(12)}`;
}
