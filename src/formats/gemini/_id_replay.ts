/**
 * Gemini's replay as the reader's first pass needs it: which messages the history holds, where
 * the last copy of each is, and why each other copy left, kept as numbers. Every message of a
 * file lives here until a later checkpoint drops it; an object or three each (a message, its
 * copy, its place) made the young collections copy most of them, and the old generation grow
 * with the file. The same replay as `GeminiReplay`, fed ids alone.
 *
 * @module
 */
import { isObject, type Json } from "../_line.ts";
import type { CheckPlace } from "./_check.ts";
import { type Copy, type ReplayedMessage, roleOf } from "./_replay.ts";

/** Why copies left the history, as {@linkcode IdReplay}'s `dropped` tells it. */
export const WHY = ["superseded", "checkpoint", "rewound"] as const;

/** Told where a copy that left the history was, why (an index of `WHY`), and its message's seq. */
export type DroppedPlace = (
  line: number,
  start: number,
  end: number,
  why: number,
  seq: number,
) => void;

/** Where a line is, as the reader knows it. */
export interface IdPlace {
  k: number;
  line: number;
  start: number;
  end: number;
  terminated: boolean;
}

const SUPERSEDED = 0;
const CHECKPOINT = 1;
const REWOUND = 2;

/** A message's number in the first pass: its last copy's place, and its seq. */
class Slots {
  #free: number[] = [];
  #size = 0;
  #seq = new Float64Array(256);
  #k = new Float64Array(256);
  #line = new Float64Array(256);
  #start = new Float64Array(256);
  #end = new Float64Array(256);
  /** Its index in a `$set` of messages, -1 for a line of its own. */
  #inSet = new Int32Array(256);
  #terminated = new Uint8Array(256);

  /** A slot for a message first seen now (one a checkpoint or a rewind freed, else a new one). */
  take(seq: number): number {
    const slot = this.#free.pop() ?? this.#size++;
    if (slot === this.#seq.length) this.#grow();
    this.#seq[slot] = seq;
    return slot;
  }

  free(slot: number): void {
    this.#free.push(slot);
  }

  place(slot: number, place: IdPlace, inSet: number): void {
    this.#k[slot] = place.k;
    this.#line[slot] = place.line;
    this.#start[slot] = place.start;
    this.#end[slot] = place.end;
    this.#inSet[slot] = inSet;
    this.#terminated[slot] = place.terminated ? 1 : 0;
  }

  seq(slot: number): number {
    return this.#seq[slot]!;
  }

  /** Tells `dropped` of the copy in `slot`. */
  drop(slot: number, why: number, dropped: DroppedPlace): void {
    dropped(this.#line[slot]!, this.#start[slot]!, this.#end[slot]!, why, this.#seq[slot]!);
  }

  /** The message in `slot` as the check and the second pass take it. */
  message(id: string, slot: number): ReplayedMessage<CheckPlace> {
    const place: CheckPlace = {
      k: this.#k[slot]!,
      line: this.#line[slot]!,
      start: this.#start[slot]!,
      end: this.#end[slot]!,
      terminated: this.#terminated[slot] === 1,
      piece: null,
    };
    const inSet = this.#inSet[slot]!;
    const last: Copy<CheckPlace> = { place, inSet: inSet === -1 ? null : inSet };
    return { id, value: { id }, last, copies: [last], seq: this.#seq[slot]! };
  }

  #grow(): void {
    const grown = <T extends Float64Array | Int32Array | Uint8Array>(old: T): T => {
      const next = new (old.constructor as new (size: number) => T)(old.length * 2);
      next.set(old);
      return next;
    };
    this.#seq = grown(this.#seq);
    this.#k = grown(this.#k);
    this.#line = grown(this.#line);
    this.#start = grown(this.#start);
    this.#end = grown(this.#end);
    this.#inSet = grown(this.#inSet);
    this.#terminated = grown(this.#terminated);
  }
}

/**
 * Sets each field of `from` but `messages` in `into`, in place: a `$set` is most of a file's
 * lines, and a copy of the metadata for each (spread without `messages`) cost more than the
 * rest of its replay.
 */
function merge(into: Json, from: Json): void {
  for (const key of Object.keys(from)) {
    // (Deno has no `__proto__` accessor: a field of that name is set as a field.)
    if (key !== "messages") into[key] = from[key];
  }
}

/**
 * The replay of one file's lines, each message kept as its id and a slot of numbers. Fed parsed
 * lines with their places, in file order (a message's text is not looked at, only its `id`).
 */
export class IdReplay {
  /** The merged metadata (the first line's and every `$set`, `messages` left out). */
  metadata: Json = {};
  /** The history's ids, in order, each with its slot. */
  readonly #history = new Map<string, number>();
  readonly #slots = new Slots();
  readonly #dropped: DroppedPlace;
  #seq = 0;

  /** `dropped` is told of each copy that leaves the history. */
  constructor(dropped: DroppedPlace) {
    this.#dropped = dropped;
  }

  /** A fresh place in the order of everything fed (for entries outside the history). */
  next(): number {
    return this.#seq++;
  }

  /** How many messages the history holds. */
  get size(): number {
    return this.#history.size;
  }

  /**
   * Feeds one parsed line (its `messages`, if it holds any, read for their ids alone) at
   * `place`, whose numbers are kept (not the object: a reader may use one for every line).
   */
  feed(value: Json, place: IdPlace): void {
    switch (roleOf(value)) {
      case "rewind":
        return this.#rewind(value.$rewindTo as string);
      case "message":
        return this.#message(value.id as string, place, -1);
      case "checkpoint": {
        const set = value.$set as Json;
        this.#drop(this.#history.keys(), CHECKPOINT);
        this.#held(set.messages as unknown[], place);
        return merge(this.metadata, set);
      }
      case "set":
        return merge(this.metadata, value.$set as Json);
      case "metadata":
        merge(this.metadata, value);
        // A legacy file: one object whose `messages` are the history.
        if (Array.isArray(value.messages)) this.#held(value.messages, place);
        return;
    }
  }

  /**
   * The history in order, each message as `GeminiReplay` holds it (its value its id
   * alone): made one at a time as they are asked for.
   */
  *messages(): Generator<ReplayedMessage<CheckPlace>> {
    for (const [id, slot] of this.#history) yield this.#slots.message(id, slot);
  }

  #held(messages: unknown[], place: IdPlace): void {
    messages.forEach((message, inSet) => {
      if (isObject(message) && typeof message.id === "string") {
        this.#message(message.id, place, inSet);
      }
    });
  }

  #message(id: string, place: IdPlace, inSet: number): void {
    let slot = this.#history.get(id);
    if (slot === undefined) {
      slot = this.#slots.take(this.next());
      this.#history.set(id, slot);
    } else this.#slots.drop(slot, SUPERSEDED, this.#dropped);
    this.#slots.place(slot, place, inSet);
  }

  #rewind(id: string): void {
    // Every message from the one named on (all of them when none is).
    const ids = [...this.#history.keys()];
    const from = ids.indexOf(id);
    this.#drop(from === -1 ? ids : ids.slice(from), REWOUND);
  }

  #drop(ids: Iterable<string>, why: number): void {
    for (const id of [...ids]) {
      const slot = this.#history.get(id)!;
      this.#history.delete(id);
      this.#slots.drop(slot, why, this.#dropped);
      this.#slots.free(slot);
    }
  }
}
