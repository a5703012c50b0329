/**
 * The archive's lock: one run at a time. The lock file holds the running process's id for the
 * message another run prints; the lock itself is the kernel's exclusive lock on that file, so
 * a run killed with SIGKILL leaves a file that the next run takes over (the kernel let go of
 * the lock with the process): a stale lock needs no guess from a pid.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { FILE_MODE } from "./_durable.ts";

/** Another run holds the archive's lock. */
export class ArchiveInUseError extends TurnlogError {
  /** An error naming the archive and the process that holds it. */
  constructor(root: string, pid: string, options?: ErrorOptions) {
    const who = pid === "" ? "another run" : `another run (process ${pid})`;
    super("in_use", `The archive is in use: ${who} holds ${root}`, options);
    this.name = "ArchiveInUseError";
  }
}

/** A held lock; dispose it to let go. */
export interface ArchiveLock extends Disposable {
  /** The lock file. */
  readonly path: string;
}

/**
 * Takes the archive's lock at `path`, or throws at once when another run holds it.
 *
 * @throws {ArchiveInUseError} when another run holds it
 */
export async function lockArchive(path: string, root: string): Promise<ArchiveLock> {
  const file = await Deno.open(path, { read: true, write: true, create: true, mode: FILE_MODE });
  if (!(await file.tryLock(true))) {
    const pid = await Deno.readTextFile(path).catch(() => "");
    file.close();
    throw new ArchiveInUseError(root, pid.trim());
  }
  await file.truncate(0);
  await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  return {
    path,
    [Symbol.dispose]() {
      try {
        file.truncateSync(0);
      } finally {
        file.close();
      }
    },
  };
}
