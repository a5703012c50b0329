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
 * seconds (ext3 and HFS+ one, FAT two), told apart by the file's times and its device's (see
 * {@linkcode fineClock}).
 */
const TICK_MS = { fine: 50, seconds: 2000 };

/** What an earlier `stat` of a file knew of its file system's clock (see {@linkcode fineClock}). */
export interface ClockSeen {
  /** The file's inode then (null where the system gives none). */
  ino: number | null;
  /** Its file system keeps times below the second. */
  fine: boolean;
}

/**
 * The file systems (by `stat`'s `dev`) this process has seen a time of ms on, with when it last
 * did: a file system keeps times below the second for all its files or for none. A device's
 * number is given again to the next file system mounted once it is unmounted, so what one
 * showed is trusted for {@linkcode DEVICE_TRUST_MS} after it was last seen.
 */
const fineDevices = new Map<number, number>();

/** How long a device's time of ms says its file system keeps them: 10 minutes. */
const DEVICE_TRUST_MS = 600_000;

/** Tests that set the devices' evidence aside, and have not ended ({@linkcode setAsideDevices}). */
let devicesAside = 0;

/** The device of a file `stat`ed as `info` whose evidence counts; undefined: none. */
function deviceOf(info: Deno.FileInfo): number | undefined {
  return devicesAside === 0 && typeof info.dev === "number" && info.dev !== 0
    ? info.dev
    : undefined;
}

/**
 * Learns from any `stat` (a folder's too) what its device's clock keeps: a time of ms shows a
 * file system of ms ({@linkcode fineClock} asks it). Cheap: a cache calls it for every file it
 * `stat`s, unchanged ones too, so the first changed file it judges has its device's evidence.
 */
export function seeClock(info: Deno.FileInfo | undefined): void {
  const mtime = info?.mtime?.getTime();
  const dev = info === undefined ? undefined : deviceOf(info);
  if (mtime !== undefined && mtime % 1000 !== 0 && dev !== undefined) {
    fineDevices.set(dev, Date.now());
  }
}

/**
 * Whether the file system of a file `stat`ed as `info` keeps times below the second: its time
 * is not of a whole second, an earlier `stat` of the same inode (`earlier`) knew it, or this
 * process has seen a time of ms on the same device. One time alone cannot tell: a file system
 * of ms gives a whole second to one write in 1,000, which would be taken as a file system of
 * seconds (unsure for up to 2 s) unless the file's earlier times or its device say otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fineClock } from "./_tick.ts";
 * const stat = (mtime: number, dev: number) =>
 *   ({ dev, ino: 7, mtime: new Date(mtime) }) as Deno.FileInfo;
 * assert.equal(fineClock(stat(1_700_000_001_000, 1_001)), false);
 * assert.equal(fineClock(stat(1_700_000_000_123, 1_001)), true);
 * // The device kept ms once: a whole second on it is one write in 1,000.
 * assert.equal(fineClock(stat(1_700_000_001_000, 1_001)), true);
 * assert.equal(fineClock(stat(1_700_000_001_000, 1_002)), false);
 * assert.equal(fineClock(stat(1_700_000_001_000, 1_002), { ino: 7, fine: true }), true);
 * assert.equal(fineClock(stat(1_700_000_001_000, 1_002), { ino: 8, fine: true }), false);
 * ```
 */
export function fineClock(info: Deno.FileInfo, earlier?: ClockSeen): boolean {
  const mtime = info.mtime?.getTime();
  if (mtime !== undefined && mtime % 1000 !== 0) {
    seeClock(info);
    return true;
  }
  if (earlier !== undefined && earlier.fine && earlier.ino === (info.ino ?? null)) return true;
  const dev = deviceOf(info);
  const seen = dev === undefined ? undefined : fineDevices.get(dev);
  return seen !== undefined && Date.now() - seen < DEVICE_TRUST_MS;
}

/**
 * Sets the devices' evidence aside (neither asked nor taught) until disposed: for a test that
 * makes a file system of whole seconds out of one of ms (files given whole-second times), whose
 * device this process has seen keep ms.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fineClock, setAsideDevices } from "./_tick.ts";
 * const stat = (mtime: number) =>
 *   ({ dev: 2_001, ino: 7, mtime: new Date(mtime) }) as Deno.FileInfo;
 * fineClock(stat(1_700_000_000_123));
 * {
 *   using _seconds = setAsideDevices();
 *   assert.equal(fineClock(stat(1_700_000_001_000)), false);
 * }
 * assert.equal(fineClock(stat(1_700_000_001_000)), true);
 * ```
 */
export function setAsideDevices(): Disposable {
  devicesAside++;
  return { [Symbol.dispose]: () => devicesAside-- };
}

/**
 * What a cache's kept `stat` of a file (its row: the inode, and the time in ms, where a time
 * below 0 is the cache's mark for "not kept") knows of its file system's clock, for
 * {@linkcode fineClock}; undefined for no row.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keptClock } from "./_tick.ts";
 * assert.deepEqual(keptClock({ ino: 7, mtime: 1_700_000_000_123 }), { ino: 7, fine: true });
 * assert.deepEqual(keptClock({ ino: 7, mtime: 1_700_000_000_000 }), { ino: 7, fine: false });
 * assert.equal(keptClock({ ino: 7, mtime: -1 }), undefined);
 * assert.equal(keptClock(undefined), undefined);
 * ```
 */
export function keptClock(
  row: { readonly ino: number | null; readonly mtime: number } | undefined,
): ClockSeen | undefined {
  if (row === undefined || row.mtime < 0) return undefined;
  return { ino: row.ino, fine: row.mtime % 1000 !== 0 };
}

/**
 * Whether a file `stat`ed at `since` (ms since the epoch, taken before the `stat`) was written
 * in the same tick of its file system's clock: a write after the `stat` (a rewrite in place at
 * the same size) may then leave its inode, size and time as they were, so they alone cannot say
 * that what was read of it is what it holds. Git calls such an entry of its index "racily
 * clean". A time of a whole second is taken as a file system of seconds unless `fine` (see
 * {@linkcode fineClock}) says otherwise; a file without a time is always racy.
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
 * // The same time, on a file system known to keep ms.
 * assert.equal(racy(stat(since - 500), since, true), false);
 * ```
 */
export function racy(info: Deno.FileInfo, since: number, fine = fineClock(info)): boolean {
  const mtime = info.mtime?.getTime();
  if (mtime === undefined) return true;
  return mtime > since - (fine ? TICK_MS.fine : TICK_MS.seconds);
}

/**
 * When the tick of a {@linkcode racy} file's last write is past (ms since the epoch), the file
 * `stat`ed as `info` before `now`: a read from then on sees every write that keeps its time, so
 * the file is worth waiting for, up to 50 ms; undefined when it is not: a file system of whole
 * seconds (up to 2 s; `fine` as for {@linkcode racy}), or no time. A time ahead of `now` (a
 * writer's clock ahead of this one, another machine's over NFS) was still written before the
 * `stat`: a write in its tick comes within 50 ms of it, so before `now` plus 50 ms by this clock.
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
 * assert.equal(tickEnd(stat(now - 500), now, true), now - 450);
 * ```
 */
export function tickEnd(
  info: Deno.FileInfo,
  now: number,
  fine = fineClock(info),
): number | undefined {
  const mtime = info.mtime?.getTime();
  if (mtime === undefined || !fine) return undefined;
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
 * past (a file system of whole seconds; `fine` as for {@linkcode racy}): the file is unsure, to
 * be read again the next time.
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
 * assert.equal(await settle(stat(now - (now % 1000)), now, true), false);
 * ```
 */
export async function settle(
  info: Deno.FileInfo,
  since: number,
  fine = fineClock(info),
): Promise<boolean> {
  if (!racy(info, since, fine)) return false;
  const end = tickEnd(info, Date.now(), fine);
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
