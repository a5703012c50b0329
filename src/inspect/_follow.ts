/**
 * A session file followed as it grows, for live pages: read whole once, then only the lines
 * appended since, so a refresh costs what was appended, not the file. A turnlog file's lines
 * go into the same segmenter; another tool's go through its adapter's follower (the entries
 * it settles into one segmenter, those that may still change into a copy of it). Anything
 * but an append (the file shrank, was replaced, or its bytes before the last line read
 * changed), or an append that changes what was settled (a Claude Code rewind), starts the
 * reading again from the first byte, and the turns that came out different are noted, so a
 * page learns which of the turns it shows to render again. A format without a follower is
 * read whole on each change, once for every page.
 *
 * @module
 */
import {
  adapterOfFile,
  type FormatAdapter,
  type FormatFollower,
  onlyAppended,
  type SessionAdapter,
  statFollowed,
  tailBefore,
} from "../formats/mod.ts";
import { forEachLine } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { type ContinuePoint, continuePoint } from "../store/_find.ts";
import { completeForeign, segmentEntries } from "./_foreign.ts";
import { type InspectOptions, inspectSession } from "./_inspect.ts";
import { TurnSegmenter } from "./_segmenter.ts";
import type { InspectReport, Turn } from "./_types.ts";
import { type ClockSeen, statKey } from "../_tick.ts";

/** What a follower has read: the segmenter and where in the file it stopped. */
interface Reading {
  segmenter: TurnSegmenter;
  /** Byte offset past the last whole line taken. */
  end: number;
  /** The number of the next line. */
  nextLine: number;
  /** The file's bytes before `end`, as read (see `onlyAppended`). */
  tail: Uint8Array;
  ino: number | null;
  mtime: number | null;
  /** The file's size at the last update's `stat`. */
  size: number;
  /**
   * `stat`ed in the tick of its last write, one not waited for (a file system of whole
   * seconds): the next update reads it whole even when it looks the same.
   */
  racy: boolean;
  /** Its file system keeps times below the second, as a `stat` of it knew (`fineClock`). */
  fine: boolean;
  /** The report of a file whose last line is torn (being written), read whole; else null. */
  whole: InspectReport | null;
}

/** Another tool's file, followed by its adapter's follower or read whole. */
interface Foreign {
  adapter: FormatAdapter;
  /** The adapter's follower; absent: the file is read whole on each change. */
  follower: FormatFollower | undefined;
  /** The segmenter of the entries settled so far. */
  settled: TurnSegmenter;
  /** The copy the last report came from (its marks are taken off by the next). */
  reported: TurnSegmenter | undefined;
  /** The file as the last whole read saw it (size, modification time, inode). */
  seen: string | undefined;
  /** What the last update's `stat` knew of the file's clock (`fineClock`). */
  clock: ClockSeen | undefined;
  report: InspectReport | undefined;
}

/** The first turn (its index) that differs between two readings' turns; Infinity: none. */
function firstChanged(before: readonly Turn[], after: readonly Turn[]): number {
  const length = Math.max(before.length, after.length);
  for (let at = 0; at < length; at++) {
    const a = before[at], b = after[at];
    if (a === b) continue;
    if (a === undefined || b === undefined || JSON.stringify(a) !== JSON.stringify(b)) {
      return at + 1;
    }
  }
  return Infinity;
}

/** How a follower's last update read the file. */
export interface FollowRead {
  /** True when it read the file from its first byte (the first read, or not an append). */
  whole: boolean;
  /** Bytes of the file it read. */
  bytes: number;
  /** Why it read the file from its first byte again, for a person (absent: it did not). */
  why?: string;
}

/**
 * A session file read as it grows (see the module): {@linkcode SessionFollower.update} reads
 * what was appended since the last update, {@linkcode SessionFollower.report} is the report
 * {@linkcode inspectSession} would give of the file as read (up to its last whole line, for
 * another tool's file). Updates are taken one at a time; callers that ask at once share one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SessionFollower } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/empty.jsonl`;
 * await Deno.writeTextFile(path, "");
 * const follower = await SessionFollower.open(path);
 * await follower.update();
 * assert.equal(follower.report().turns.length, 0);
 * assert.equal(follower.changedSince(follower.revision), Infinity);
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
  #foreign: Foreign | undefined;
  #updating: Promise<FollowRead> | undefined;
  #again = false;
  /** Names this follower's readings apart from another's (a page rendered by an earlier one). */
  readonly #epoch = crypto.randomUUID().slice(0, 8);
  /** Readings that started again from the first byte, and the first turn each changed. */
  readonly #changes: number[] = [];
  /** The turns of the last reading, to tell what a reading from the first byte changed. */
  #turns: readonly Turn[] | undefined;
  /** How the last update read the file. */
  lastRead: FollowRead = { whole: false, bytes: 0 };

  private constructor(path: string, options: InspectOptions, foreign?: Foreign) {
    this.path = path;
    this.#options = options;
    this.#foreign = foreign;
  }

  /**
   * A follower of the session file at `path` (nothing of it read yet): turnlog's own lines
   * followed by the segmenter, another tool's by its adapter's follower, or read whole when
   * the adapter has none.
   */
  static async open(path: string, options: InspectOptions = {}): Promise<SessionFollower> {
    const adapter: SessionAdapter = options.adapter ?? await adapterOfFile(path);
    const withAdapter = { ...options, adapter };
    if (adapter.own) return new SessionFollower(path, withAdapter);
    return new SessionFollower(path, withAdapter, {
      adapter,
      follower: adapter.follow?.(path),
      settled: new TurnSegmenter(path, options),
      reported: undefined,
      seen: undefined,
      clock: undefined,
      report: undefined,
    });
  }

  /**
   * What the page of the latest reading says it was rendered from: this follower and the
   * readings from the first byte it made (see {@linkcode SessionFollower.changedSince}).
   */
  get revision(): string {
    return `${this.#epoch}.${this.#changes.length}`;
  }

  /**
   * The first turn a page rendered at `revision` shows that the readings since changed
   * (Infinity: none; 1 for a page of another follower or of none: all of them).
   */
  changedSince(revision: string | undefined): number {
    const [epoch, count] = (revision ?? "").split(".");
    const seen = Number(count);
    if (epoch !== this.#epoch || !Number.isSafeInteger(seen) || seen < 0) return 1;
    return Math.min(Infinity, ...this.#changes.slice(seen));
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
    const before = this.#turns;
    const read = this.#foreign === undefined
      ? await this.#runOwn()
      : await this.#runForeign(this.#foreign);
    if (read.whole || read.bytes > 0) {
      const turns = this.#foreign?.report?.turns ??
        this.#reading?.whole?.turns ??
        this.#reading?.segmenter.report({ sizeBytes: this.#reading.end }).turns;
      if (read.whole && before !== undefined && turns !== undefined) {
        const changed = firstChanged(before, turns);
        if (changed !== Infinity) this.#changes.push(changed);
      }
      this.#turns = turns;
    }
    return this.lastRead = read;
  }

  async #runForeign(foreign: Foreign): Promise<FollowRead> {
    const { adapter, follower } = foreign;
    const options = this.#options;
    // A file written in the tick of its `stat` is read once that tick is past; one whose tick
    // cannot be known past is not taken as seen (src/_tick.ts).
    const { info, racy: unsure, fine } = await statFollowed(this.path, foreign.clock);
    foreign.clock = { ino: info.ino, fine };
    const seen = unsure ? undefined : statKey(info);
    // Unchanged since the last update (a second page's refresh on the same change).
    if (seen !== undefined && seen === foreign.seen) return { whole: false, bytes: 0 };
    if (follower === undefined) {
      foreign.report = await inspectSession(this.path, options);
      foreign.seen = seen;
      return { whole: true, bytes: info.size };
    }
    let restarted = false;
    const update = await follower.update({
      restart: () => {
        restarted = true;
        foreign.settled = new TurnSegmenter(this.path, options);
        foreign.reported = undefined;
      },
      settle: (entries) => segmentEntries(foreign.settled, entries),
    });
    // The rest of the process runs before the report is made (a server's other requests).
    await new Promise((resolve) => setTimeout(resolve, 0));
    const segmenter = foreign.settled.clone(foreign.reported);
    segmentEntries(segmenter, update.pending);
    foreign.reported = segmenter;
    const segmented = await completeForeign(adapter, segmenter, update.facts);
    const command = segmented.session.state === "records" ? options.importCommandFor : undefined;
    foreign.report = {
      ...segmented,
      continueCommand: command?.(this.path) ?? null,
      continuePrefix: null,
    };
    foreign.seen = seen;
    return {
      whole: update.whole || restarted,
      bytes: update.bytes,
      ...(update.why === undefined ? {} : { why: update.why }),
    };
  }

  async #runOwn(): Promise<FollowRead> {
    // A file written in the tick of its `stat` is read once that tick is past (src/_tick.ts).
    let reading = this.#reading;
    const { info, mtime, racy: unsure, fine } = await statFollowed(this.path, reading);
    let bytes = 0;
    if (reading !== undefined) {
      const same = info.size === reading.end && mtime === reading.mtime &&
        info.ino === reading.ino;
      if (same && !reading.racy) return { whole: false, bytes: 0 };
      // Looking the same after a read in its write's tick: maybe rewritten in place, read whole.
      // Written to without growing: rewritten in place, however far back.
      const rewritten = info.size === reading.size &&
        (mtime !== reading.mtime || info.ino !== reading.ino);
      const appended = !same && !rewritten && await onlyAppended(this.path, info, reading);
      if (!same) bytes += reading.tail.length;
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
      size: info.size,
      racy: unsure,
      fine,
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
    reading.size = info.size;
    reading.racy = unsure;
    reading.fine = fine;
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
    return { whole, bytes };
  }

  /**
   * The report of the file as the last update read it, as {@linkcode inspectSession} gives
   * it. Its turns from `fromTurn` on (all by default) are copies the next update leaves
   * alone; the turns before it are shared with the follower.
   */
  report(fromTurn = 1): InspectReport {
    const reading = this.#reading;
    const foreign = this.#foreign?.report;
    if (reading === undefined && foreign === undefined) {
      throw new Error(`Nothing of ${this.path} was read yet: update first`);
    }
    if (foreign !== undefined) return copiedFrom(foreign, fromTurn);
    if (reading!.whole !== null) return reading!.whole;
    const segmented = reading!.segmenter.report({ sizeBytes: reading!.end });
    const point = this.#point;
    const commandFor = this.#options.commandFor;
    return {
      ...copiedFrom(segmented, fromTurn),
      continueCommand: point && commandFor ? commandFor(point) : null,
      continuePrefix: point?.prefix ?? null,
    };
  }
}

/** A report whose header and turns from `fromTurn` on are copies the next update leaves alone. */
function copiedFrom<T extends Pick<InspectReport, "header" | "turns">>(
  report: T,
  fromTurn: number,
): T {
  return {
    ...report,
    header: structuredClone(report.header),
    turns: report.turns.map((turn) => turn.index >= fromTurn ? structuredClone(turn) : turn),
  };
}
