/**
 * A case-insensitive search for an ASCII fragment in raw bytes, without decoding them: the
 * native `indexOf` looks for the fragment's rarest byte in the chunk at hand (both cases of a
 * letter), and only around each of those is the rest compared.
 *
 * @module
 */

/** Bytes of a chunk counted to choose the byte to look for. */
const SAMPLE = 64 * 1024;
/** A pass of `indexOf` over a chunk costs about as much as this many candidates checked. */
const PASS_COST = 28_000;

const isLetter = (byte: number) => byte >= 97 && byte <= 122;

/** Finds a lowercase ASCII fragment in bytes, ignoring ASCII case. */
export class FragmentFinder {
  readonly #fragment: Uint8Array;
  /** Where in the fragment the byte searched for stands. */
  #at = 0;
  /** That byte, and its other case when it is a letter. */
  #bytes: number[] = [];
  readonly #counts = new Uint32Array(256);

  /** A finder of `fragment` (lowercase ASCII, not empty). */
  constructor(fragment: string) {
    this.#fragment = new TextEncoder().encode(fragment);
    this.#choose(0);
  }

  #choose(at: number): void {
    this.#at = at;
    const byte = this.#fragment[at]!;
    this.#bytes = isLetter(byte) ? [byte, byte - 32] : [byte];
  }

  /**
   * Chooses the fragment's byte to look for in `bytes` (a chunk), from a sample of its
   * start: the one whose passes and expected candidates cost least.
   */
  prepare(bytes: Uint8Array): void {
    const counts = this.#counts;
    counts.fill(0);
    const sample = Math.min(bytes.length, SAMPLE);
    for (let i = 0; i < sample; i++) counts[bytes[i]!]!++;
    const scale = bytes.length / Math.max(1, sample);
    let best = 0;
    let bestCost = Infinity;
    this.#fragment.forEach((byte, at) => {
      const letter = isLetter(byte);
      const seen = counts[byte]! + (letter ? counts[byte - 32]! : 0);
      const cost = (letter ? 2 : 1) * PASS_COST + seen * scale;
      if (cost < bestCost) [best, bestCost] = [at, cost];
    });
    this.#choose(best);
  }
  #matchesAt(bytes: Uint8Array, start: number, end: number): boolean {
    const fragment = this.#fragment;
    if (start < 0 || start + fragment.length > end) return false;
    for (let i = 0; i < fragment.length; i++) {
      const want = fragment[i]!;
      const got = bytes[start + i]!;
      if (got !== want && !(isLetter(want) && got === want - 32)) return false;
    }
    return true;
  }

  /** The start of the first match in `bytes[from, end)`, or -1. */
  find(bytes: Uint8Array, from: number, end: number): number {
    let best = -1;
    for (const byte of this.#bytes) {
      let at = bytes.indexOf(byte, from + this.#at);
      while (at !== -1 && at < end && (best === -1 || at - this.#at < best)) {
        const start = at - this.#at;
        if (this.#matchesAt(bytes, start, end)) {
          best = start;
          break;
        }
        at = bytes.indexOf(byte, at + 1);
      }
    }
    return best;
  }
}
