/**
 * A turnlog session file followed as it grows: read whole once, then only the lines appended
 * since, into the same segmenter, so a live page's refresh costs what was appended, not the
 * file. Anything but an append (the file shrank, was replaced, or its bytes before the last
 * line read changed) starts the reading again from the first byte.
 *
 * @module
 */
import { adapterOfFile } from "../formats/mod.ts";
import { forEachLine, readRange } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { type ContinuePoint, continuePoint } from "../store/mod.ts";
import { type InspectOptions, inspectSession } from "./_inspect.ts";
import { TurnSegmenter } from "./_segmenter.ts";
import type { InspectReport } from "./_types.ts";

/** Bytes before the last line read that are compared with the file's to tell an append. */
const TAIL_BYTES = 64;

/** What a follower has read: the segmenter and where in the file it stopped. */
interface Reading {
  segmenter: TurnSegmenter;
  /** Byte offset past the last whole line taken. */
  end: number;
  /** The number of the next line. */
  nextLine: number;
  /** The file's last `TAIL_BYTES` bytes before `end`, as read. */
  tail: Uint8Array;
  ino: number | null;
  mtime: number | null;
  /** The report of a file whose last line is torn (being written), read whole; else null. */
  whole: InspectReport | null;
}

/** How a follower's last update read the file. */
export interface FollowRead {
  /** True when it read the file from its first byte (the first read, or not an append). */
  whole: boolean;
  /** Bytes of the file it read. */
  bytes: number;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

async function tailBefore(path: string, end: number): Promise<Uint8Array> {
  using file = await Deno.open(path, { read: true });
  return await readRange(file, { start: Math.max(0, end - TAIL_BYTES), end });
}

/**
 * A turnlog session file read as it grows (see the module): {@linkcode SessionFollower.update}
 * reads what was appended since the last update, {@linkcode SessionFollower.report} is the
 * report {@linkcode inspectSession} would give of the file as read. Updates are taken one at
 * a time; callers that ask at once share one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SessionFollower } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/empty.jsonl`;
 * await Deno.writeTextFile(path, "");
 * const follower = await SessionFollower.open(path);
 * assert.ok(follower);
 * await follower.update();
 * assert.equal(follower.report().turns.length, 0);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class SessionFollower {
  /** The file's path. */
  readonly path: string;
  readonly #options: InspectOptions;
  /** Where the session continues from, worked out once its id is read. */
  #point: ContinuePoint | undefined;
  #pointOf: string | null = null;
  #reading: Reading | undefined;
  #updating: Promise<FollowRead> | undefined;
  #again = false;
  /** How the last update read the file. */
  lastRead: FollowRead = { whole: false, bytes: 0 };

  private constructor(path: string, options: InspectOptions) {
    this.path = path;
    this.#options = options;
  }

  /**
   * A follower of the turnlog session file at `path` (nothing of its records read yet), or
   * undefined when the file is another tool's: those are read whole on each change.
   */
  static async open(
    path: string,
    options: InspectOptions = {},
  ): Promise<SessionFollower | undefined> {
    const adapter = options.adapter ?? await adapterOfFile(path);
    if (!adapter.own) return undefined;
    return new SessionFollower(path, { ...options, adapter });
  }

  /**
   * Reads what was appended since the last update (all of the file at first, or when it is
   * not an append); updates asked for while one runs are taken by one more after it.
   */
  update(): Promise<FollowRead> {
    if (this.#updating === undefined) {
      this.#updating = this.#run().finally(() => this.#updating = undefined);
      return this.#updating;
    }
    this.#again = true;
    return this.#updating.then(() => {
      if (!this.#again) return this.lastRead;
      this.#again = false;
      return this.update();
    });
  }

  async #run(): Promise<FollowRead> {
    const info = await Deno.stat(this.path);
    const mtime = info.mtime?.getTime() ?? null;
    let reading = this.#reading;
    let bytes = 0;
    if (reading !== undefined) {
      if (info.size === reading.end && mtime === reading.mtime && info.ino === reading.ino) {
        return this.lastRead = { whole: false, bytes: 0 };
      }
      const appended = info.ino === reading.ino && info.size >= reading.end &&
        sameBytes(await tailBefore(this.path, reading.end), reading.tail);
      bytes += reading.tail.length;
      if (!appended) reading = undefined;
    }
    const whole = reading === undefined;
    reading ??= {
      segmenter: new TurnSegmenter(this.path, this.#options),
      end: 0,
      nextLine: 1,
      tail: new Uint8Array(0),
      ino: info.ino,
      mtime,
      whole: null,
    };
    const from = reading.end;
    let torn = false;
    const taking = reading;
    await forEachLine(this.path, (line) => {
      if (!line.terminated) {
        torn = true;
        return false;
      }
      if (line.text.length > 0) taking.segmenter.push(parseRecordLine(this.path, line), line);
      taking.end = line.end;
      taking.nextLine = line.line + 1;
      return true;
    }, { start: from, firstLine: reading.nextLine });
    bytes += info.size - from;
    reading.tail = await tailBefore(this.path, reading.end);
    bytes += reading.tail.length;
    reading.ino = info.ino;
    reading.mtime = mtime;
    // A torn last line is most likely being written: the report of the file as it is now is
    // one whole read, and the following goes on from the last whole line.
    reading.whole = null;
    if (torn) {
      reading.whole = await inspectSession(this.path, this.#options);
      bytes += info.size;
    }
    this.#reading = reading;
    // The id is in the first lines: read again only after a whole read or while unknown.
    const id = whole || this.#pointOf === null
      ? reading.segmenter.report({ sizeBytes: reading.end }).session.id
      : this.#pointOf;
    if (id !== this.#pointOf) {
      this.#pointOf = id;
      this.#point = id === null
        ? undefined
        : await continuePoint(this.path, id, this.#options.root);
    }
    return this.lastRead = { whole, bytes };
  }

  /**
   * The report of the file as the last update read it, as {@linkcode inspectSession} gives
   * it. Its turns from `fromTurn` on (all by default) are copies the next update leaves
   * alone; the turns before it are shared with the follower.
   */
  report(fromTurn = 1): InspectReport {
    const reading = this.#reading;
    if (reading === undefined) {
      throw new Error(`Nothing of ${this.path} was read yet: update first`);
    }
    if (reading.whole !== null) return reading.whole;
    const segmented = reading.segmenter.report({ sizeBytes: reading.end });
    const point = this.#point;
    const commandFor = this.#options.commandFor;
    return {
      ...segmented,
      header: structuredClone(segmented.header),
      turns: segmented.turns.map((turn) => turn.index >= fromTurn ? structuredClone(turn) : turn),
      continueCommand: point && commandFor ? commandFor(point) : null,
      continuePrefix: point?.prefix ?? null,
    };
  }
}
