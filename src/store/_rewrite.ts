/**
 * The one way a session file is ever changed other than by appending: a copy with some byte
 * ranges replaced, written to a temp file beside it, flushed, locked, and renamed over it in
 * one step, so a crash leaves either file whole. Only repair uses it, holding the file's lock.
 *
 * @module
 */
import { dirname } from "../_path.ts";
import { TurnlogError } from "../errors/mod.ts";
import { readRange, writeAll } from "../io/mod.ts";
import { SessionInUseError } from "./_lock.ts";
import { repairTempPath } from "./_repair_temp.ts";

/** A change of a file's bytes: `[start, end)` replaced by `text` (an insertion when equal). */
export interface FileEdit {
  /** Byte offset where the replaced range starts. */
  start: number;
  /** Byte offset just past the replaced range. */
  end: number;
  /** What takes its place, as UTF-8. */
  text: string;
}

/** What tells that a file changed: its size and modification time. */
export interface FileStamp {
  /** Size in bytes. */
  size: number;
  /** Modification time in milliseconds, or null where the platform has none. */
  mtime: number | null;
}

/** The stamp of a file's info. */
export function stampOf(info: Deno.FileInfo): FileStamp {
  return { size: info.size, mtime: info.mtime?.getTime() ?? null };
}

/** A file changed while repair was working on it: another program writes it. */
export class FileChangedError extends TurnlogError {
  /** The file that changed. */
  readonly path: string;
  /** An error naming the file; nothing is written to it. */
  constructor(path: string, options?: ErrorOptions) {
    super(
      "in_use",
      `${path} changed while it was being repaired (its size or modification time): it is ` +
        "left as it was; close the program that writes it first",
      options,
    );
    this.name = "FileChangedError";
    this.path = path;
  }
}

/**
 * Throws when the file at `path` no longer has the stamp `expected`.
 *
 * @throws {FileChangedError} when its size or modification time changed
 */
export async function checkUnchanged(path: string, expected: FileStamp): Promise<void> {
  const now = stampOf(await Deno.stat(path));
  if (now.size !== expected.size || now.mtime !== expected.mtime) {
    throw new FileChangedError(path);
  }
}

/** A rewritten session file, still locked: the handle to append to, then close. */
export interface RewrittenFile {
  /** Appends bytes and flushes them. */
  append(bytes: Uint8Array): Promise<void>;
  /** Releases the lock and closes the file. */
  close(): void;
}

/** Options of {@linkcode rewriteFile}. */
export interface RewriteOptions {
  /** Refuse (before the rename) when the file no longer has this stamp. */
  unchanged?: FileStamp | undefined;
  /**
   * Programs may append to the file without taking its lock (another tool's session): after
   * the rename, whatever they appended to the old file since the last check is put back at
   * the end of the new one, until the old file has stayed the same for a moment.
   *
   * @default {false}
   */
  putBack?: boolean | undefined;
  /** Called after the last check, just before the rename (a test delays it there). */
  beforeRename?: (() => Promise<void>) | undefined;
}

/** How long the old file must stay the same after a rename before put-back stops. */
const SETTLE_WAITS_MS = [10, 20, 40, 80];

const encoder = new TextEncoder();

/**
 * Replaces the file at `path` with a copy whose `edits` are made: written to a temp file in the
 * same folder (with the file's permissions), flushed, locked, then renamed over it, so a crash
 * leaves either file whole. Returns the new file, still locked. The caller holds the lock of
 * the file the path names, so no run appends meanwhile.
 *
 * @throws {FileChangedError} when `unchanged` is given and the file changed meanwhile
 */
export async function rewriteFile(
  path: string,
  edits: readonly FileEdit[],
  options: RewriteOptions = {},
): Promise<RewrittenFile> {
  const temp = repairTempPath(path);
  // Insertions go before a replacement that starts where they are.
  const ordered = [...edits].sort((a, b) => a.start - b.start || a.end - b.end);
  const target = await Deno.open(temp, { write: true, append: true, createNew: true });
  try {
    if (!(await target.tryLock(true))) throw new SessionInUseError(temp);
    using source = await Deno.open(path, { read: true });
    const info = await source.stat();
    if (info.mode !== null) await Deno.chmod(temp, info.mode & 0o7777).catch(() => {});
    let at = 0;
    for (const edit of [...ordered, { start: info.size, end: info.size, text: "" }]) {
      await copyRange(source, target, at, edit.start);
      if (edit.text.length > 0) await writeAll(target, encoder.encode(edit.text));
      at = Math.max(at, edit.end);
    }
    await target.syncData();
    if (options.unchanged) await checkUnchanged(path, options.unchanged);
    await options.beforeRename?.();
    await Deno.rename(temp, path);
    if (options.putBack) await putBack(source, target, info.size);
  } catch (error) {
    target.close();
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
  return {
    append: async (bytes) => {
      await writeAll(target, bytes);
      await target.syncData();
    },
    close: () => target.close(),
  };
}

/**
 * Copies to the new file what was appended to the old one (open as `source`) past `copied`:
 * an appender that opened the path before the rename writes there. Stops once the old file
 * has not grown through every wait of {@linkcode SETTLE_WAITS_MS}.
 */
async function putBack(source: Deno.FsFile, target: Deno.FsFile, copied: number): Promise<void> {
  for (let quiet = 0; quiet <= SETTLE_WAITS_MS.length;) {
    const { size } = await source.stat();
    if (size > copied) {
      await copyRange(source, target, copied, size);
      await target.syncData();
      copied = size;
      quiet = 0;
    } else if (quiet++ < SETTLE_WAITS_MS.length) {
      await new Promise((done) => setTimeout(done, SETTLE_WAITS_MS[quiet - 1]));
    }
  }
}

async function copyRange(
  source: Deno.FsFile,
  target: Deno.FsFile,
  start: number,
  end: number,
): Promise<void> {
  const chunk = 1 << 20;
  for (let at = start; at < end; at += chunk) {
    await writeAll(target, await readRange(source, { start: at, end: Math.min(end, at + chunk) }));
  }
}

/** Flushes a directory entry change (the rename) where the platform allows it. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    using handle = await Deno.open(dir, { read: true });
    await handle.syncData();
  } catch {
    // Not every platform lets a directory be opened or synced; the rename itself is atomic.
  }
}
