/**
 * Files as a file system of whole seconds keeps them, for the tests of the rule of the tick
 * (`src/_tick.ts`): a file's time of a whole second, and a rewrite in place that leaves its
 * inode, size and time as they were, so that only its bytes tell it changed.
 *
 * @module
 */
import { assert, assertEquals } from "./_assert.ts";
import { setAsideDevices } from "../src/_tick.ts";

/**
 * Files judged by their own times alone until disposed, not by what their device showed
 * (src/_tick.ts): a file given a FAT time ({@linkcode fatTime}) stands for one on a file system
 * of seconds, though the device that holds it keeps ms and this process has seen it do so.
 */
export const ownTimesOnly = (): Disposable => setAsideDevices();

/** A time as FAT keeps it (2 s, rounded up): a whole second, so a write's tick is not known past. */
export const fatSecond = (): Date => new Date((Math.floor(Date.now() / 2000) + 1) * 2000);

/** Gives the file at `path` a FAT time ({@linkcode fatSecond}), returned. */
export async function fatTime(path: string): Promise<Date> {
  const second = fatSecond();
  await Deno.utime(path, second, second);
  return second;
}

/** Gives the file at `path` a time of ms (a minute ago): its file system keeps them. */
export async function msTime(path: string): Promise<void> {
  const time = new Date(Date.now() - 60_000 - (Date.now() % 1000) + 123);
  await Deno.utime(path, time, time);
}

/**
 * Gives the file at `path` the time of the whole second it is in now (returned): on a file
 * system of ms, one write in 1,000 gets such a time.
 */
export async function wholeSecondNow(path: string): Promise<Date> {
  const second = new Date(Math.floor(Date.now() / 1000) * 1000);
  await Deno.utime(path, second, second);
  return second;
}

/** What tells a file to a `stat`: its inode, size and time (ms). */
export function statOf(path: string): [number | null, number, number | undefined] {
  const info = Deno.statSync(path);
  return [info.ino, info.size, info.mtime?.getTime()];
}

/**
 * Rewrites the file at `path` in place (truncated and written, as Gemini CLI writes its
 * session), its first `from` made `to` (of its length), and gives it `time` again: its inode,
 * size and time are as they were (asserted).
 */
export async function rewriteUnseen(path: string, from: string, to: string, time: Date) {
  const before = statOf(path);
  const text = await Deno.readTextFile(path);
  assert(text.includes(from) && from.length === to.length, `${from} -> ${to}`);
  await Deno.writeTextFile(path, text.replace(from, to));
  await Deno.utime(path, time, time);
  assertEquals(statOf(path), before);
}
