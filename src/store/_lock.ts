/**
 * The session file's single-writer lock: an exclusive lock on the open file, taken at once or
 * refused, on the file the path still names.
 *
 * @module
 */
import { join } from "../_path.ts";
import { TurnlogError } from "../errors/mod.ts";

/** Another run holds the session file's lock. */
export class SessionInUseError extends TurnlogError {
  /** An error naming the locked file. */
  constructor(path: string, options?: ErrorOptions) {
    super("in_use", `Session is in use: another run holds the lock on ${path}`, options);
    this.name = "SessionInUseError";
  }
}

/** The waits before trying a held lock again, in milliseconds: about a tenth of a second. */
const LOCK_RETRIES = [5, 15, 30, 50];

/**
 * Takes the file's exclusive lock, trying again for about a tenth of a second: a writer this
 * process has just closed can hold its lock a moment longer (the platform may still be
 * finishing an operation on a copy of its handle). A lock another run holds stays held, and
 * the caller still hears so at once, to a person's eye.
 */
async function tryLockSoon(file: Deno.FsFile): Promise<boolean> {
  if (file.tryLockSync(true)) return true;
  for (const wait of LOCK_RETRIES) {
    await new Promise((done) => setTimeout(done, wait));
    if (file.tryLockSync(true)) return true;
  }
  return false;
}

/** How often the path may be found replaced under the lock before giving up. */
const REOPENS = 5;

/**
 * Opens the file at `path` for appending and locks it, making sure the locked file is the one
 * the path still names (a rename over the path between the open and the lock is seen as a new
 * inode: the new file is opened and locked instead).
 *
 * @throws {SessionInUseError} when another writer holds the lock
 */
export async function openLocked(
  path: string,
  open: typeof Deno.open = Deno.open,
): Promise<Deno.FsFile> {
  for (let attempt = 0; attempt < REOPENS; attempt++) {
    const file = await open(path, { read: true, append: true });
    try {
      if (!(await tryLockSoon(file))) throw new SessionInUseError(path);
      if (await namesFile(path, file)) return file;
    } catch (error) {
      file.close();
      throw error;
    }
    file.close();
  }
  throw new SessionInUseError(path);
}

/**
 * Creates the file at `path` (and its folders), which must not exist, open for appending and
 * locked. A session holds what was said and what tools printed: the file is the owner's alone
 * (0600), and so is every folder made for it (0700).
 *
 * @throws {Deno.errors.AlreadyExists} when a file is there
 */
export async function createLocked(path: string): Promise<Deno.FsFile> {
  await Deno.mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
  const file = await Deno.open(path, { read: true, append: true, createNew: true, mode: 0o600 });
  if (!(await file.tryLock(true))) {
    file.close();
    throw new SessionInUseError(path);
  }
  return file;
}

/** Whether `path` names the open `file` (same device and inode). */
async function namesFile(path: string, file: Deno.FsFile): Promise<boolean> {
  const [named, open] = await Promise.all([Deno.stat(path), file.stat()]);
  return named.ino === open.ino && named.dev === open.dev;
}
