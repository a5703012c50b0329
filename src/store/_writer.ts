/**
 * The one writer of a session file, which appends: it holds the file's lock (`_lock.ts`) while
 * open, seals a torn tail before its first append (`_seal.ts`), and only ever appends. A new
 * session file starts with its `session_meta`.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { writeAll } from "../io/mod.ts";
import {
  encodeRecords,
  makeRecord,
  type SessionMeta,
  type SessionMetaRecord,
  type SessionRecord,
} from "../record/mod.ts";
import { createLocked, openLocked } from "./_lock.ts";
import { removeStaleRepairFiles } from "./_repair_temp.ts";
import { sealTornTail } from "./_seal.ts";
import type { StoreWriter } from "./_session_store.ts";

/** A writer used after it was closed: a bug in the caller. */
export class ClosedWriterError extends TurnlogError {
  /** An error naming the session whose writer is closed. */
  constructor(path: string, options?: ErrorOptions) {
    super("internal", `Session writer for ${path} is closed`, options);
    this.name = "ClosedWriterError";
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
    const writer = new SessionWriter(path, await createLocked(path));
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
    if (!this.#file) throw new ClosedWriterError(this.path);
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
