/**
 * The "racy git" rule every cache of a file's state keeps (the catalog, the doctor's kept reads,
 * usage's kept counts, the archive, serve's live events): a file's inode, size and time say it
 * is unchanged only when it was `stat`ed after the tick of its file system's clock in which it
 * was last written.
 *
 * @module
 */

/**
 * How close to a `stat` a file's last write may be for a write after it to leave the file's
 * time as it was, in ms: a file system that keeps times below the second (Linux's coarse clock
 * ticks every 1 to 10 ms and Deno gives whole ms; Windows' every 15.6 ms) or one that keeps whole
 * seconds (ext3 and HFS+ one, FAT two), told apart by the time itself.
 */
const TICK_MS = { fine: 50, seconds: 2000 };

/**
 * Whether a file `stat`ed at `since` (ms since the epoch, taken before the `stat`) was written
 * in the same tick of its file system's clock: a write after the `stat` (a rewrite in place at
 * the same size) may then leave its inode, size and time as they were, so they alone cannot say
 * that what was read of it is what it holds. Git calls such an entry of its index "racily
 * clean". A time of a whole second is taken as a file system of seconds; a file without a time
 * is always racy.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { racy } from "./_tick.ts";
 * const since = Date.UTC(2026, 11, 6, 15, 0, 0, 500);
 * const stat = (mtime: number) => ({ mtime: new Date(mtime) }) as Deno.FileInfo;
 * assert.equal(racy(stat(since - 10), since), true);
 * assert.equal(racy(stat(since - 100), since), false);
 * // Written the same second, on a file system of whole seconds.
 * assert.equal(racy(stat(since - 500), since), true);
 * assert.equal(racy(stat(since - 2500), since), false);
 * ```
 */
export function racy(info: Deno.FileInfo, since: number): boolean {
  const mtime = info.mtime?.getTime();
  if (mtime === undefined) return true;
  return mtime > since - (mtime % 1000 === 0 ? TICK_MS.seconds : TICK_MS.fine);
}

/**
 * When the tick of a {@linkcode racy} file's last write is past (ms since the epoch), the file
 * `stat`ed as `info` before `now`: a read from then on sees every write that keeps its time, so
 * the file is worth waiting for, up to 50 ms; undefined when it is not: a file system of whole
 * seconds (up to 2 s), or no time. A time ahead of `now` (a writer's clock ahead of this one,
 * another machine's over NFS) was still written before the `stat`: a write in its tick comes
 * within 50 ms of it, so before `now` plus 50 ms by this clock.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tickEnd } from "./_tick.ts";
 * const now = Date.UTC(2026, 11, 6, 15, 0, 0, 500);
 * const stat = (mtime: number) => ({ mtime: new Date(mtime) }) as Deno.FileInfo;
 * assert.equal(tickEnd(stat(now - 10), now), now + 40);
 * assert.equal(tickEnd(stat(now - 500), now), undefined);
 * assert.equal(tickEnd(stat(now + 3_600_010), now), now + 50);
 * ```
 */
export function tickEnd(info: Deno.FileInfo, now: number): number | undefined {
  const mtime = info.mtime?.getTime();
  if (mtime === undefined || mtime % 1000 === 0) return undefined;
  return Math.min(mtime, now) + TICK_MS.fine;
}

/** Returns once `end` (ms since the epoch, a {@linkcode tickEnd}) is past; at once when it is. */
export async function tickPassed(end: number): Promise<void> {
  const wait = end - Date.now();
  if (wait >= 0) await new Promise((resolve) => setTimeout(resolve, wait + 1));
}

/**
 * Waits out the tick of a file `stat`ed as `info` at `since` (ms since the epoch) when it was
 * written in it (or its time is ahead of the clock), up to 50 ms, so that a read after it holds
 * every write that keeps the file's inode, size and time; true when that tick cannot be known
 * past (a file system of whole seconds): the file is unsure, to be read again the next time.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { settle } from "./_tick.ts";
 * const stat = (mtime: number) => ({ mtime: new Date(mtime) }) as Deno.FileInfo;
 * const now = Date.now();
 * assert.equal(await settle(stat(now - 60_000), now), false);
 * const written = now - (now % 1000 === 0 ? 1 : 0);
 * assert.equal(await settle(stat(written), now), false);
 * assert.ok(Date.now() >= written + 50);
 * assert.equal(await settle(stat(2 * 60_000 + written), now), false);
 * assert.equal(await settle(stat(now - (now % 1000)), now), true);
 * ```
 */
export async function settle(info: Deno.FileInfo, since: number): Promise<boolean> {
  if (!racy(info, since)) return false;
  const end = tickEnd(info, Date.now());
  if (end === undefined) return true;
  await tickPassed(end);
  return false;
}

/**
 * A file's inode, size and time in one word, as its `stat` gives them: what every cache of a
 * file's state compares to tell it unchanged (usage's kept count, a follower's last update, the
 * live page's first event).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statKey } from "./_tick.ts";
 * const stat = { ino: 42, size: 18, mtime: new Date(1_700_000_000_123) } as Deno.FileInfo;
 * assert.equal(statKey(stat), "42:18:1700000000123");
 * ```
 */
export function statKey(info: Deno.FileInfo): string {
  return `${info.ino ?? ""}:${info.size}:${info.mtime?.getTime() ?? 0}`;
}
