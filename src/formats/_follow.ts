/**
 * What a format's follower is: a session file read as its tool writes it, each update reading
 * only what was appended since the last, and handing on the file's entries as a whole read
 * would give them, split in those that will not change any more and those that may.
 *
 * @module
 */
import { dirname } from "../_path.ts";
import { readRange } from "../io/mod.ts";
import { type ClockSeen, fineClock, seeClock, settle } from "../_tick.ts";
import type { ForeignEntry, ForeignFacts } from "./_types.ts";

/** Bytes before the last line read that are compared with the file's to tell an append. */
const TAIL_BYTES = 64;

/** Where a follower stopped: the file's inode, the offset it read to, and the bytes before it. */
export interface FollowedEnd {
  /** The file's inode when it was read (null where the system gives none). */
  ino: number | null;
  /** The offset read to: the end of the last whole line. */
  end: number;
  /** The bytes before `end`, as read. */
  tail: Uint8Array;
}

/** The bytes a follower keeps from before `end` (see {@linkcode onlyAppended}). */
export async function tailBefore(path: string, end: number): Promise<Uint8Array> {
  using file = await Deno.open(path, { read: true });
  return await readRange(file, { start: Math.max(0, end - TAIL_BYTES), end });
}

/**
 * Whether the file at `path` (whose stat is `info`) only grew since a follower stopped at
 * `last`: the same inode, not shorter, and the same bytes before where it stopped. A rewrite
 * (a repair renames a new file in) or a truncation is not an append.
 */
export async function onlyAppended(
  path: string,
  info: Deno.FileInfo,
  last: FollowedEnd,
): Promise<boolean> {
  if (info.ino !== last.ino || info.size < last.end) return false;
  const tail = await tailBefore(path, last.end);
  return tail.length === last.tail.length && tail.every((byte, i) => byte === last.tail[i]);
}

/** A follower's `stat` of its file, taken by {@linkcode statFollowed}. */
export interface FollowedStat {
  /** What `Deno.stat` gave. */
  info: Deno.FileInfo;
  /** The file's size in bytes. */
  size: number;
  /** The file's time in ms since the epoch (null where the system gives none). */
  mtime: number | null;
  /**
   * `stat`ed in the tick of its last write, one not waited for (a file system of whole
   * seconds): the next update reads it whole even when it looks the same.
   */
  racy: boolean;
  /** Its file system keeps times below the second, as this `stat` or an earlier one knew. */
  fine: boolean;
}

/**
 * The file's `stat` for an update: a file written in the tick of its `stat` is waited for until
 * that tick is past (up to 50 ms), so that what is read after holds every write that keeps its
 * inode, size and time; one whose tick cannot be known past is said `racy` (src/_tick.ts).
 * `earlier` is what the last update's `stat` knew of the file's clock (`fineClock`).
 */
export async function statFollowed(path: string, earlier?: ClockSeen): Promise<FollowedStat> {
  const since = Date.now();
  const info = await Deno.stat(path);
  let fine = fineClock(info, earlier);
  if (!fine) {
    // A whole second: its folder's time may tell the device's clock (src/_tick.ts).
    seeClock(await Deno.stat(dirname(path)).catch(() => undefined));
    fine = fineClock(info, earlier);
  }
  const unsure = await settle(info, since, fine);
  return { info, size: info.size, mtime: info.mtime?.getTime() ?? null, racy: unsure, fine };
}

/**
 * Why the file is not only appended to since a follower's last update (`last`, its `stat`
 * then as `lastStat`), now `stat`ed as `now`; undefined when it is an append (or nothing was
 * written). Written to without growing is not an append, however far back; looking the same
 * after a `racy` `stat` is not taken as unchanged; else {@linkcode onlyAppended} says.
 */
export async function notAppended(
  path: string,
  now: FollowedStat,
  last: FollowedEnd & { stat: Omit<FollowedStat, "info"> },
): Promise<string | undefined> {
  const before = last.stat;
  const same = now.size === before.size && now.mtime === before.mtime &&
    now.info.ino === last.ino;
  if (same && before.racy) {
    return "it was read in the tick of its last write: it may have been rewritten in place";
  }
  if (!same && now.size === before.size) return "the file was rewritten in place at the same size";
  if (!await onlyAppended(path, now.info, last)) return "the file was rewritten, replaced or cut";
  return undefined;
}

/** Where a follower's update hands the entries that will not change any more. */
export interface FollowSink {
  /** Everything handed on before is let go: the entries start again from the file's first. */
  restart(): void;
  /** Entries that will not change any more, in order, after those handed on before. */
  settle(entries: ForeignEntry[]): void;
}

/** What one update of a follower read. */
export interface FollowUpdate {
  /**
   * The entries after the settled ones, as the file is now: with them, the settled entries
   * are what a whole read of the file up to its last whole line gives, in order.
   */
  pending: ForeignEntry[];
  /** The facts a whole read of the file up to its last whole line gives. */
  facts: ForeignFacts;
  /** Whether the update read the file from its first byte (the first, or not an append). */
  whole: boolean;
  /** Bytes of the file the update read. */
  bytes: number;
  /** Why it read the file whole, for a person (absent: it did not, or it was the first). */
  why?: string;
}

/**
 * A session file followed as it grows: {@linkcode FormatFollower.update} reads the lines
 * appended since the last update (a torn last line waits for its newline), settles what can no
 * longer change, and says what may. Anything that is not an append (the file shrank, was
 * replaced, its bytes before the last line read changed), or an append that changes what was
 * settled (a Claude Code rewind that moves the active branch), starts again from the first
 * byte, through `sink.restart()`.
 */
export interface FormatFollower {
  /** The file's path. */
  readonly path: string;
  /** Reads what was appended since the last update (all of the file at first). */
  update(sink: FollowSink): Promise<FollowUpdate>;
}
