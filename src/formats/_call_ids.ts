/**
 * Call ids and a small number for each (a tool name's index, a reported failure), kept as
 * bytes in typed arrays outside the JavaScript heap: a 1 GB rollout names 320,000 calls, and
 * a `Map` of their id strings held about 25 MB alive to the read's end (its strings, and its
 * table doubled), which the collector's growth made half as much again.
 *
 * @module
 */

/** Entries a table starts with room for. */
const FIRST_ROOM = 1024;

/**
 * Gives the memory of each array's buffer back now (the buffer is detached: the arrays are
 * empty after), where a dropped array's waits for a full collection of the heap: a reader
 * done with its columns lets them go before what it does next makes its peak.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { freeArrays } from "./_call_ids.ts";
 * const ids = new Int32Array(1 << 20);
 * const bytes = new Uint8Array(16);
 * freeArrays(ids, bytes.subarray(4));
 * assert.equal(ids.length, 0);
 * assert.equal(bytes.length, 0);
 * assert.equal(ids.buffer.byteLength, 0);
 * ```
 */
export function freeArrays(...arrays: ArrayBufferView[]): void {
  for (const { buffer } of arrays) {
    if (buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer(0);
  }
}

/**
 * An id's 32-bit FNV-1a hash over its character codes, or -1 when a character does not fit
 * in a byte.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashId } from "./_call_ids.ts";
 * assert.equal(hashId(""), 0x811c9dc5);
 * assert.notEqual(hashId("call_1"), hashId("call_2"));
 * assert.equal(hashId("call_☃"), -1);
 * ```
 */
export function hashId(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (code > 255) return -1;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * Call ids to non-negative integers, an id set again taking its new number, as a `Map` would:
 * each id's characters in one byte array (an id with a character past 255 in a `Map` of its
 * own), found through an open-addressed table of entry numbers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CallIdTable } from "./_call_ids.ts";
 * const table = new CallIdTable();
 * for (let i = 0; i < 5000; i++) table.set(`call_${i}`, i % 7);
 * table.set("call_3", 6);
 * table.set("call_é_ü", 2);
 * table.set("call_☃", 4);
 * assert.equal(table.get("call_4999"), 4999 % 7);
 * assert.equal(table.get("call_3"), 6);
 * assert.equal(table.get("call_é_ü"), 2);
 * assert.equal(table.get("call_☃"), 4);
 * assert.equal(table.get("call_5000"), undefined);
 * assert.equal(table.get("call_"), undefined);
 * assert.equal(table.size, 5002);
 * const copy = table.clone();
 * table.clear();
 * assert.equal(table.get("call_3"), undefined);
 * assert.equal(table.size, 0);
 * table.set("call_3", 1);
 * assert.equal(table.get("call_3"), 1);
 * assert.equal(copy.get("call_3"), 6);
 * assert.equal(copy.get("call_☃"), 4);
 * assert.equal(copy.size, 5002);
 * ```
 */
export class CallIdTable {
  #chars = new Uint8Array(FIRST_ROOM * 16);
  #used = 0;
  /** Entry i's characters: from `#starts[i]` to `#starts[i + 1]` (the last's: to `#used`). */
  #starts = new Int32Array(FIRST_ROOM);
  #values = new Int32Array(FIRST_ROOM);
  /** Each entry's hash, so the slots are made again without hashing every id again. */
  #hashes = new Int32Array(FIRST_ROOM);
  #count = 0;
  /** Entry number + 1 in each slot, 0 for none; at most half full. */
  #slots = new Int32Array(FIRST_ROOM * 2);
  readonly #wide = new Map<string, number>();

  /** How many ids there are. */
  get size(): number {
    return this.#count + this.#wide.size;
  }

  /** The number of `id`, or undefined when it was never set. */
  get(id: string): number | undefined {
    const hash = hashId(id);
    if (hash < 0) return this.#wide.get(id);
    const slot = this.#slotOf(id, hash);
    const entry = this.#slots[slot]!;
    return entry === 0 ? undefined : this.#values[entry - 1];
  }

  /** Gives `id` the number `value` (a non-negative integer under 2^31). */
  set(id: string, value: number): void {
    const hash = hashId(id);
    if (hash < 0) {
      this.#wide.set(id, value);
      return;
    }
    const slot = this.#slotOf(id, hash);
    const found = this.#slots[slot]!;
    if (found !== 0) {
      this.#values[found - 1] = value;
      return;
    }
    const entry = this.#add(id, value, hash);
    this.#slots[slot] = entry + 1;
    if ((this.#count << 1) > this.#slots.length) this.#rehash();
  }

  #released = false;

  /**
   * Gives the table's memory back now ({@linkcode freeArrays}), for a read that asks no more
   * of it; any use after throws.
   */
  release(): void {
    this.#released = true;
    freeArrays(this.#chars, this.#starts, this.#values, this.#hashes, this.#slots);
    this.#wide.clear();
  }

  /** Forgets every id, keeping the room the table has grown to. */
  clear(): void {
    this.#slots.fill(0);
    this.#count = 0;
    this.#used = 0;
    this.#wide.clear();
  }

  /** A table of the same ids and numbers that goes on apart from this one. */
  clone(): CallIdTable {
    // Every field is copied: one added to the class is added here.
    const copy = new CallIdTable();
    copy.#chars = this.#chars.slice();
    copy.#used = this.#used;
    copy.#starts = this.#starts.slice();
    copy.#values = this.#values.slice();
    copy.#hashes = this.#hashes.slice();
    copy.#count = this.#count;
    copy.#slots = this.#slots.slice();
    for (const [id, value] of this.#wide) copy.#wide.set(id, value);
    copy.#released = this.#released;
    return copy;
  }

  /** The slot that holds `id`, or the empty one where it would go. */
  #slotOf(id: string, hash: number): number {
    if (this.#released) throw new Error("The call id table was released");
    const mask = this.#slots.length - 1;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const entry = this.#slots[slot]!;
      if (entry === 0 || this.#holds(entry - 1, id)) return slot;
    }
  }

  #holds(entry: number, id: string): boolean {
    const start = this.#starts[entry]!;
    const end = entry + 1 < this.#count ? this.#starts[entry + 1]! : this.#used;
    if (end - start !== id.length) return false;
    const chars = this.#chars;
    for (let i = 0; i < id.length; i++) {
      if (chars[start + i] !== id.charCodeAt(i)) return false;
    }
    return true;
  }

  #add(id: string, value: number, hash: number): number {
    const entry = this.#count++;
    if (entry === this.#starts.length) {
      this.#starts = grown(this.#starts, entry * 2);
      this.#values = grown(this.#values, entry * 2);
      this.#hashes = grown(this.#hashes, entry * 2);
    }
    this.#chars = withRoom(this.#chars, this.#used + id.length);
    const start = this.#used;
    for (let i = 0; i < id.length; i++) this.#chars[start + i] = id.charCodeAt(i);
    this.#used += id.length;
    this.#starts[entry] = start;
    this.#values[entry] = value;
    this.#hashes[entry] = hash;
    return entry;
  }

  /** The slots made twice as many, every entry placed again by its hash. */
  #rehash(): void {
    const slots = new Int32Array(this.#slots.length * 2);
    const mask = slots.length - 1;
    for (let entry = 0; entry < this.#count; entry++) {
      let slot = this.#hashes[entry]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = entry + 1;
    }
    this.#slots = slots;
  }
}

/** `chars`, or a copy at least twice as long when it holds fewer than `needed` bytes. */
function withRoom(chars: Uint8Array<ArrayBuffer>, needed: number): Uint8Array<ArrayBuffer> {
  if (needed <= chars.length) return chars;
  const bigger = new Uint8Array(Math.max(chars.length * 2, needed));
  bigger.set(chars);
  return bigger;
}

function grown(array: Int32Array, length: number): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(length);
  bigger.set(array);
  return bigger;
}

/**
 * Ids in the order they are added, each read back by its number: their characters in one byte
 * array outside the JavaScript heap (an id with a character past 255 kept as a string aside),
 * where an array of the id strings held about 40 bytes of heap an id to the read's end (the
 * Claude Code check's calls and results: 340,000 of them at 1 GB).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IdList } from "./_call_ids.ts";
 * const ids = new IdList();
 * for (let i = 0; i < 3000; i++) ids.push(`toolu_${i}`);
 * const long = "x".repeat(10_000);
 * ids.push("");
 * ids.push("call_é_☃");
 * ids.push(long);
 * assert.equal(ids.length, 3003);
 * assert.equal(ids.at(2999), "toolu_2999");
 * assert.equal(ids.at(3000), "");
 * assert.equal(ids.at(3001), "call_é_☃");
 * assert.equal(ids.at(3002), long);
 * assert.equal(ids.at(3003), undefined);
 * ```
 */
export class IdList {
  #chars = new Uint8Array(FIRST_ROOM * 16);
  #used = 0;
  /** Id i's characters: from `#starts[i]` to `#starts[i + 1]` (the last's: to `#used`). */
  #starts = new Int32Array(FIRST_ROOM);
  #length = 0;
  /** Ids with a character past 255, by number. */
  readonly #wide = new Map<number, string>();

  /** How many ids there are. */
  get length(): number {
    return this.#length;
  }

  /** Gives the list's memory back now ({@linkcode freeArrays}): it is empty after. */
  release(): void {
    freeArrays(this.#chars, this.#starts);
    this.#chars = new Uint8Array(FIRST_ROOM * 16);
    this.#starts = new Int32Array(FIRST_ROOM);
    this.#used = 0;
    this.#length = 0;
    this.#wide.clear();
  }

  /** Adds `id` as the next one. */
  push(id: string): void {
    const at = this.#length++;
    if (at === this.#starts.length) this.#starts = grown(this.#starts, at * 2);
    this.#starts[at] = this.#used;
    const chars = this.#chars = withRoom(this.#chars, this.#used + id.length);
    const start = this.#used;
    for (let i = 0; i < id.length; i++) {
      const code = id.charCodeAt(i);
      if (code > 255) {
        this.#wide.set(at, id);
        return;
      }
      chars[start + i] = code;
    }
    this.#used += id.length;
  }

  /** Id number `at`, or undefined past the end. */
  at(at: number): string | undefined {
    if (!(at >= 0 && at < this.#length)) return undefined;
    if (this.#wide.size > 0) {
      const wide = this.#wide.get(at);
      if (wide !== undefined) return wide;
    }
    const start = this.#starts[at]!;
    const end = at + 1 < this.#length ? this.#starts[at + 1]! : this.#used;
    let id = "";
    // A few thousand characters at a time: an argument each.
    for (let from = start; from < end; from += 4096) {
      const part = this.#chars.subarray(from, Math.min(end, from + 4096));
      id += String.fromCharCode.apply(null, part as unknown as number[]);
    }
    return id;
  }
}
