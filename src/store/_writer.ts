/**
 * The one writer of a session file: it holds the file's exclusive lock while open and only
 * ever appends. A new session file starts with its `session_meta`.
 *
 * @module
 */
import { SessionRecordSchema } from "../record/schemas.ts";
import { basename, dirname, join } from "node:path";
import { TurnlogError } from "../errors/mod.ts";
import { readFull, writeAll } from "../io/mod.ts";
import {
  clock,
  encodeRecords,
  FORMAT_VERSION,
  idTime,
  makeRecord,
  newId,
  type SessionMeta,
  type SessionMetaRecord,
  type SessionRecord,
} from "../record/mod.ts";
import type { SessionLocation } from "./_layout.ts";
import type { SessionStore, StoreWriter } from "./_session_store.ts";
import { FileStore } from "./_file_store.ts";
import { quarantineLines } from "./_sidecar.ts";

/** Another run holds the session file's lock. */
export class SessionInUseError extends TurnlogError {
  /** An error naming the locked file. */
  constructor(path: string, options?: ErrorOptions) {
    super("in_use", `Session is in use: another run holds the lock on ${path}`, options);
    this.name = "SessionInUseError";
  }
}

/**
 * The one writer of a session file. It holds an exclusive lock on the file while open, so a
 * second run on the same session fails at once instead of interleaving appends, and it only
 * ever appends.
 */
export class SessionWriter implements StoreWriter {
  /** The session file. */
  readonly path: string;
  #file: Deno.FsFile | undefined;
  #appended = 0;

  private constructor(path: string, file: Deno.FsFile) {
    this.path = path;
    this.#file = file;
  }

  /**
   * Opens an existing session file for appending and takes its lock. With `seal` (the
   * default), a torn last line (a crash in the middle of an append) is moved to the quarantine
   * sidecar first, so the next record starts on a line of its own; a caller that must first
   * check the file (resume refuses a file without its `session_meta`) seals later, through
   * {@linkcode SessionWriter.seal}. Temp files an interrupted repair left beside the file are
   * removed.
   *
   * The lock is taken on the file the path names when the lock is held: a repair that renamed
   * its rewritten file over the path in between is noticed (the inode changed) and the new
   * file is opened and locked instead, so nothing is appended to a file no path names.
   *
   * @throws {SessionInUseError} when another writer holds the lock
   */
  static async open(path: string, options: OpenWriterOptions = {}): Promise<SessionWriter> {
    const file = await openLocked(path, options.open ?? Deno.open);
    const writer = new SessionWriter(path, file);
    try {
      await removeStaleRepairFiles(path);
      if (options.seal !== false) await writer.seal();
    } catch (error) {
      writer.close();
      throw error;
    }
    return writer;
  }

  /** Creates a new session file holding `meta` as its first line, locked. */
  static create(path: string, meta: SessionMeta, time?: Date): Promise<SessionWriter> {
    return SessionWriter.createWith(path, makeRecord("session_meta", meta, time));
  }

  /** Creates a new session file whose first line is the record `first`, locked. */
  static async createWith(path: string, first: SessionMetaRecord): Promise<SessionWriter> {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    const file = await Deno.open(path, { read: true, append: true, createNew: true });
    if (!(await file.tryLock(true))) {
      file.close();
      throw new SessionInUseError(path);
    }
    const writer = new SessionWriter(path, file);
    await writer.append([first]);
    return writer;
  }

  /**
   * Makes sure the file ends with a newline: a complete record without its newline just gets
   * one; a torn fragment is copied to the quarantine sidecar (flushed) and only then cut off.
   */
  async seal(): Promise<void> {
    await sealTornTail(this.path, this.#open());
  }

  /**
   * Cuts the file at byte `offset` (a repair taking the last line out, once the sidecar keeps
   * it); the next append starts there.
   */
  async cutAt(offset: number): Promise<void> {
    await this.#open().truncate(offset);
  }

  #open(): Deno.FsFile {
    if (!this.#file) throw new Error(`Session writer for ${this.path} is closed`);
    return this.#file;
  }

  /** Appends records in one write, each on its own line. */
  async append(records: readonly SessionRecord[]): Promise<void> {
    const file = this.#open();
    if (records.length === 0) return;
    await writeAll(file, encodeRecords(records));
    this.#appended += records.length;
  }

  /** Records appended through this writer so far. */
  get appendedRecords(): number {
    return this.#appended;
  }

  /** Releases the lock and closes the file. */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
  }

  /** Same as {@linkcode SessionWriter.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/** Options of {@linkcode SessionWriter.open}. */
export interface OpenWriterOptions {
  /** Seal a torn last line at once (default true). */
  seal?: boolean;
  /** How the file is opened (tests replace it to make a repair rename race the lock). */
  open?: typeof Deno.open;
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
 * Opens the file at `path` and locks it, making sure the locked file is the one the path
 * still names (a rename over the path between the open and the lock is seen as a new inode).
 */
async function openLocked(path: string, open: typeof Deno.open): Promise<Deno.FsFile> {
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

/** Whether `path` names the open `file` (same device and inode). */
async function namesFile(path: string, file: Deno.FsFile): Promise<boolean> {
  const [named, open] = await Promise.all([Deno.stat(path), file.stat()]);
  return named.ino === open.ino && named.dev === open.dev;
}

/** A new temp file name for a repair of `path`, beside it: `.<name>.repair-<uuid>.tmp`. */
export function repairTempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.repair-${crypto.randomUUID()}.tmp`);
}

/** The temp files a repair of `path` writes beside it (see {@linkcode repairTempPath}). */
export function repairTempPattern(path: string): RegExp {
  const name = basename(path).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\.${name}\\.repair-[0-9a-f-]+\\.tmp$`);
}

/**
 * Removes the temp files an interrupted repair left beside `path`. Called under the file's
 * lock, which every repair holds while its temp file exists: any such file is stale.
 */
async function removeStaleRepairFiles(path: string): Promise<void> {
  const pattern = repairTempPattern(path);
  for await (const entry of Deno.readDir(dirname(path))) {
    if (entry.isFile && pattern.test(entry.name)) {
      await Deno.remove(join(dirname(path), entry.name)).catch(() => {});
    }
  }
}

/**
 * Makes sure a file ends with a newline before anything is appended. A complete record
 * without its newline just gets one; a torn fragment is copied to the quarantine sidecar
 * (flushed) and only then cut off, so every original byte is kept.
 */
async function sealTornTail(path: string, file: Deno.FsFile): Promise<void> {
  const { size } = await file.stat();
  if (size === 0) return;
  const last = new Uint8Array(1);
  await file.seek(size - 1, Deno.SeekMode.Start);
  await file.read(last);
  if (last[0] === 10) return;
  const block = 64 * 1024;
  let start = size;
  let tailStart = 0;
  search: while (start > 0) {
    const from = Math.max(0, start - block);
    const bytes = new Uint8Array(start - from);
    await file.seek(from, Deno.SeekMode.Start);
    await readFull(file, bytes);
    for (let i = bytes.length - 1; i >= 0; i--) {
      if (bytes[i] === 10) {
        tailStart = from + i + 1;
        break search;
      }
    }
    start = from;
  }
  const tail = new Uint8Array(size - tailStart);
  await file.seek(tailStart, Deno.SeekMode.Start);
  await readFull(file, tail);
  if (isCompleteRecord(tail)) {
    await writeAll(file, new Uint8Array([10]));
    return;
  }
  await quarantineLines(path, [{
    line: undefined,
    kind: "torn_tail",
    start: tailStart,
    bytes: tail,
  }]);
  await file.truncate(tailStart);
}

function isCompleteRecord(bytes: Uint8Array): boolean {
  try {
    return SessionRecordSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes))).success;
  } catch {
    return false;
  }
}

/** What a new session file starts with. */
export interface NewSession {
  /** The workspace folder of the first run. */
  cwd: string;
  /** Who serves the model. */
  modelProvider: string;
  /** The model of the first run. */
  model: string;
  /** The wire API of the first run. */
  wireApi: SessionMeta["wireApi"];
  /** The policy of the first run. */
  policy: SessionMeta["policy"];
  /** Where an imported session came from. */
  importedFrom?: SessionMeta["importedFrom"];
  /** Where a fork came from. */
  forkedFrom?: SessionMeta["forkedFrom"];
}

/**
 * Creates a session whose id is `id` (the first run's id, a UUIDv7), writing `session_meta`,
 * and returns its locked writer with the written meta. `store` is a store, or a sessions folder
 * (the file store there).
 */
export async function createSession(
  store: string | SessionStore,
  init: NewSession & { id?: string },
): Promise<{ writer: StoreWriter; meta: SessionMeta; location: SessionLocation }> {
  const id = init.id ?? newId();
  const createdAt = idTime(id) ?? clock().now();
  const meta: SessionMeta = {
    version: FORMAT_VERSION,
    id,
    createdAt: createdAt.toISOString(),
    cwd: init.cwd,
    modelProvider: init.modelProvider,
    model: init.model,
    wireApi: init.wireApi,
    policy: init.policy,
    ...(init.importedFrom === undefined ? {} : { importedFrom: init.importedFrom }),
    ...(init.forkedFrom === undefined ? {} : { forkedFrom: init.forkedFrom }),
  };
  const target = typeof store === "string" ? new FileStore(store) : store;
  const { writer, location } = await target.create(makeRecord("session_meta", meta, createdAt));
  return { writer, meta, location };
}
