/**
 * Gemini CLI's replay of a session file, as its own loader does it: the metadata line and each
 * `$set` merged into the metadata; a message record kept once per `id`, its last copy winning,
 * in the order of first appearance; a `$set` of `messages` replacing the whole history (a
 * checkpoint); a `$rewindTo` dropping the message it names and every one after it (all of
 * them when it names none). Pure: fed parsed lines with their places, in file order.
 *
 * @module
 */
import { isObject, type Json } from "../_line.ts";

/** Where a copy of a message is: its line's place, and its index in a `$set` of `messages`. */
export interface Copy<P> {
  /** The line it is on. */
  place: P;
  /** Its index in the line's `$set.messages`, or null for a message line of its own. */
  inSet: number | null;
}

/** One message of the replayed history. */
export interface ReplayedMessage<P> {
  /** Its id. */
  id: string;
  /** The last copy's record. */
  value: Json;
  /** Where the last copy is. */
  last: Copy<P>;
  /** Every copy since the message came (back) into the history, in file order. */
  copies: Copy<P>[];
  /** The order of its first appearance (a counter over everything fed). */
  seq: number;
}

/** What a line was to the replay. */
export type LineRole = "metadata" | "set" | "checkpoint" | "rewind" | "message" | "unknown";

/** Why copies left the history: a later copy, a checkpoint, a rewind. */
export interface DroppedCopy<P> {
  copy: Copy<P>;
  why: "superseded" | "checkpoint" | "rewound";
  seq: number;
}

/** What a line is, by Gemini's own tests (in its order). */
export function roleOf(value: Json): LineRole {
  if (typeof value.$rewindTo === "string") return "rewind";
  if (typeof value.id === "string") return "message";
  if (isObject(value.$set)) return Array.isArray(value.$set.messages) ? "checkpoint" : "set";
  if (typeof value.sessionId === "string" && typeof value.projectHash === "string") {
    return "metadata";
  }
  return "unknown";
}

/** How a replay runs. */
export interface GeminiReplayOptions {
  /**
   * Keep the copies that left the history ({@linkcode GeminiReplay.dropped}): a reader shows
   * them where they were; a check needs only the history, and would otherwise hold an entry
   * for every message of every checkpoint (memory growing with the file, not the history).
   * @default {true}
   */
  keepDropped?: boolean;
}

/** The replay of one file. */
export class GeminiReplay<P> {
  /** The merged metadata (the first line's and every `$set`, `messages` left out). */
  metadata: Json = {};
  /** The history, in order. */
  readonly messages = new Map<string, ReplayedMessage<P>>();
  /** Copies that left the history, with why (none kept with `keepDropped: false`). */
  readonly dropped: DroppedCopy<P>[] = [];
  #seq = 0;
  readonly #onDropped: (dropped: DroppedCopy<P>) => void;

  constructor(options: GeminiReplayOptions = {}) {
    const keep = (dropped: DroppedCopy<P>) => void this.dropped.push(dropped);
    this.#onDropped = options.keepDropped === false ? () => {} : keep;
  }

  /** A fresh place in the order of everything fed (for entries outside the history). */
  next(): number {
    return this.#seq++;
  }

  /** Feeds one parsed line; returns what it was. */
  feed(value: Json, place: P): LineRole {
    const role = roleOf(value);
    switch (role) {
      case "rewind":
        this.#rewind(value.$rewindTo as string);
        break;
      case "message":
        this.#message(value, { place, inSet: null });
        break;
      case "checkpoint":
      case "set": {
        const set = value.$set as Json;
        if (role === "checkpoint") this.#checkpoint(set.messages as unknown[], place);
        const { messages: _, ...rest } = set;
        this.metadata = { ...this.metadata, ...rest };
        break;
      }
      case "metadata": {
        const { messages, ...rest } = value;
        this.metadata = { ...this.metadata, ...rest };
        // A legacy file: one object whose `messages` are the history.
        if (Array.isArray(messages)) this.#checkpoint(messages, place, false);
        break;
      }
    }
    return role;
  }

  #message(value: Json, copy: Copy<P>): void {
    const id = value.id as string;
    const had = this.messages.get(id);
    if (had) {
      this.#onDropped({ copy: had.last, why: "superseded", seq: had.seq });
      had.value = value;
      had.last = copy;
      had.copies.push(copy);
      return;
    }
    this.messages.set(id, { id, value, last: copy, copies: [copy], seq: this.next() });
  }

  #checkpoint(messages: unknown[], place: P, clears = true): void {
    if (clears) this.#drop([...this.messages.values()], "checkpoint");
    messages.forEach((message, inSet) => {
      if (isObject(message) && typeof message.id === "string") {
        this.#message(message, { place, inSet });
      }
    });
  }

  #rewind(id: string): void {
    const all = [...this.messages.values()];
    const from = all.findIndex((message) => message.id === id);
    this.#drop(from === -1 ? all : all.slice(from), "rewound");
  }

  #drop(messages: ReplayedMessage<P>[], why: "checkpoint" | "rewound"): void {
    for (const message of messages) {
      this.messages.delete(message.id);
      this.#onDropped({ copy: message.last, why, seq: message.seq });
    }
  }
}
