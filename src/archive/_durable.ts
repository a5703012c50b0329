/**
 * The archive's one way to write: the bytes into a private temp file of `tmp/`, fsync, then a
 * rename onto a name nothing else has (a chunk, an index segment, a view file), then the
 * folder's fsync. A kill at any point leaves either no file at the name or the whole file.
 * Each step is a numbered fault point: `TURNLOG_ARCHIVE_KILL_AT=N` kills the process with
 * SIGKILL at the N-th (the fault suite's way to stop it at every write).
 *
 * @module
 */
import { basename, join } from "node:path";

/** The environment variable naming the fault point to die at (tests only). */
export const KILL_AT_ENV = "TURNLOG_ARCHIVE_KILL_AT";

/** A folder only its owner reads. */
export const DIR_MODE = 0o700;
/** A file only its owner reads and writes. */
export const FILE_MODE = 0o600;

let killAt: number | undefined | null = null;
let points = 0;

function killTarget(): number | undefined {
  if (killAt !== null) return killAt;
  const state = Deno.permissions.querySync({ name: "env", variable: KILL_AT_ENV }).state;
  const text = state === "granted" ? Deno.env.get(KILL_AT_ENV) : undefined;
  killAt = text === undefined || text === "" ? undefined : Number(text);
  return killAt;
}

/** One numbered write step: where the fault suite may kill the process. */
export function faultPoint(): void {
  points++;
  if (points === killTarget()) Deno.kill(Deno.pid, "SIGKILL");
}

/** Makes a private folder (and its parents), owner-only even under a loose umask. */
export async function makePrivateDir(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: DIR_MODE });
  await Deno.chmod(dir, DIR_MODE);
}

/** Flushes a folder's entries (a rename into it) to the disk. */
export async function syncDir(dir: string): Promise<void> {
  try {
    using folder = await Deno.open(dir, { read: true });
    await folder.sync();
  } catch (error) {
    // A platform that cannot open a folder (Windows) makes each rename durable on its own.
    if (!(error instanceof Deno.errors.PermissionDenied) && Deno.build.os !== "windows") {
      throw error;
    }
  }
}

let temps = 0;

/**
 * Writes `parts` to `path` whole or not at all: a private temp in `tmpDir` (on the same file
 * system), fsync'd, renamed onto `path`. The caller syncs `path`'s folder before it refers to
 * the file anywhere (see {@linkcode syncDir}).
 */
export async function writeWhole(
  path: string,
  parts: readonly Uint8Array[],
  tmpDir: string,
): Promise<void> {
  const temp = join(tmpDir, `${basename(path)}.${Deno.pid}.${++temps}.tmp`);
  {
    using file = await Deno.open(temp, { write: true, createNew: true, mode: FILE_MODE });
    faultPoint();
    for (const part of parts) {
      let written = 0;
      while (written < part.length) written += await file.write(part.subarray(written));
      faultPoint();
    }
    await file.sync();
  }
  faultPoint();
  await Deno.rename(temp, path);
  faultPoint();
}
