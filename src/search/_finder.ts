/**
 * A case-insensitive search for an ASCII fragment in raw bytes, without decoding them: a SIMD
 * scan looks for two adjacent bytes of the fragment (the pair rarest in the chunk at hand,
 * from a sample of its start), and only where both stand is the whole fragment compared.
 *
 * @module
 */
import type { ScanBuffer } from "./_simd.ts";

/** Bytes of a chunk sampled to choose the pair to look for. */
const SAMPLE = 64 * 1024;
/** Enough of a pair in the sample to tell it is not the rarest. */
const ENOUGH = 64;

const isLetter = (byte: number) => byte >= 97 && byte <= 122;
const caseMask = (byte: number) => (isLetter(byte) ? 0x20 : 0);

/** Finds a lowercase ASCII fragment in the bytes of a {@linkcode ScanBuffer}, ignoring case. */
export class FragmentFinder {
  readonly #fragment: Uint8Array;
  readonly #buffer: ScanBuffer;
  /** Where in the fragment the pair looked for starts. */
  #at = 0;

  /** A finder of `fragment` (lowercase ASCII, not empty) in `buffer`. */
  constructor(fragment: string, buffer: ScanBuffer) {
    this.#fragment = new TextEncoder().encode(fragment);
    this.#buffer = buffer;
  }

  /** The next place of the pair at `at` (of the byte alone, for a fragment of one). */
  #scan(at: number, from: number, end: number): number {
    const fragment = this.#fragment;
    const a = fragment[at]!;
    // One byte: paired with any byte (0xff | anything is 0xff), one past the end.
    if (fragment.length === 1) return this.#buffer.pair(from, end + 1, a, caseMask(a), 0xff, 0xff);
    const b = fragment[at + 1]!;
    return this.#buffer.pair(from, end, a, caseMask(a), b, caseMask(b));
  }

  /** Chooses the pair to look for in `bytes[0, end)` from a sample of its start. */
  prepare(end: number): void {
    const pairs = this.#fragment.length - 1;
    if (pairs < 2) return;
    const sample = Math.min(end, SAMPLE);
    let best = 0;
    let fewest = Infinity;
    for (let at = 0; at < pairs && fewest > 0; at++) {
      let seen = 0;
      for (let i = this.#scan(at, 0, sample); i !== -1 && seen < ENOUGH; seen++) {
        i = this.#scan(at, i + 1, sample);
      }
      if (seen < fewest) [best, fewest] = [at, seen];
    }
    this.#at = best;
  }

  #matchesAt(start: number, end: number): boolean {
    const bytes = this.#buffer.bytes;
    const fragment = this.#fragment;
    if (start < 0 || start + fragment.length > end) return false;
    for (let i = 0; i < fragment.length; i++) {
      const want = fragment[i]!;
      const got = bytes[start + i]!;
      if (got !== want && !(isLetter(want) && got === want - 32)) return false;
    }
    return true;
  }

  /** The start of the first match in the buffer's `[from, end)`, or -1. */
  find(from: number, end: number): number {
    const at = this.#at;
    for (let i = this.#scan(at, from + at, end); i !== -1; i = this.#scan(at, i + 1, end)) {
      if (this.#matchesAt(i - at, end)) return i - at;
    }
    return -1;
  }
}
