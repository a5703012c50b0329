/**
 * The one writer of a session file: it holds the file's exclusive lock while open and only
 * ever appends. A new session file starts with its `session_meta`.
 *
 * @module
 */
import { join } from "node:path";
import { TurnlogError } from "../errors/mod.ts";
import { readFull, writeAll } from "../io/mod.ts";
import {
  encodeRecords,
  FORMAT_VERSION,
  idTime,
  makeRecord,
  newId,
  type SessionMeta,
  type SessionRecord,
  SessionRecordSchema,
} from "../record/mod.ts";
import { sessionFilePath, type SessionLocation } from "./_layout.ts";
import { quarantineLines } from "./_sidecar.ts";

/** Another run holds the session file's lock. */
export class SessionInUseError extends TurnlogError {
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
export class SessionWriter {
  readonly path: string;
  #file: Deno.FsFile | undefined;
  #appended = 0;

  private constructor(path: string, file: Deno.FsFile) {
    this.path = path;
    this.#file = file;
  }

  /**
   * Opens an existing session file for appending and takes its lock. A torn last line (a
   * crash in the middle of an append) is moved to the quarantine sidecar first, so the next
   * record starts on a line of its own.
   *
   * @throws {SessionInUseError} when another writer holds the lock
   */
  static async open(path: string): Promise<SessionWriter> {
    const file = await Deno.open(path, { read: true, append: true });
    return await SessionWriter.#locked(path, file, true);
  }

  /** Creates a new session file holding `meta` as its first line, locked. */
  static async create(path: string, meta: SessionMeta, time?: Date): Promise<SessionWriter> {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    const file = await Deno.open(path, { read: true, append: true, createNew: true });
    const writer = await SessionWriter.#locked(path, file, false);
    await writer.append([makeRecord("session_meta", meta, time)]);
    return writer;
  }

  static async #locked(path: string, file: Deno.FsFile, seal: boolean): Promise<SessionWriter> {
    try {
      if (!(await file.tryLock(true))) throw new SessionInUseError(path);
      if (seal) await sealTornTail(path, file);
    } catch (error) {
      file.close();
      throw error;
    }
    return new SessionWriter(path, file);
  }

  /** Appends records in one write, each on its own line. */
  async append(records: readonly SessionRecord[]): Promise<void> {
    if (!this.#file) throw new Error(`Session writer for ${this.path} is closed`);
    if (records.length === 0) return;
    await writeAll(this.#file, encodeRecords(records));
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

  [Symbol.dispose](): void {
    this.close();
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
  await quarantineLines(path, [{ line: undefined, kind: "torn_tail", bytes: tail }]);
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
  cwd: string;
  modelProvider: string;
  model: string;
  wireApi: SessionMeta["wireApi"];
  policy: SessionMeta["policy"];
}

/**
 * Creates a session whose id is `id` (the first run's id, a UUIDv7), writing `session_meta`,
 * and returns its locked writer with the written meta.
 */
export async function createSession(
  root: string,
  init: NewSession & { id?: string },
): Promise<{ writer: SessionWriter; meta: SessionMeta; location: SessionLocation }> {
  const id = init.id ?? newId();
  const createdAt = idTime(id) ?? new Date();
  const meta: SessionMeta = {
    version: FORMAT_VERSION,
    id,
    createdAt: createdAt.toISOString(),
    cwd: init.cwd,
    modelProvider: init.modelProvider,
    model: init.model,
    wireApi: init.wireApi,
    policy: init.policy,
  };
  const path = sessionFilePath(root, id, createdAt);
  const writer = await SessionWriter.create(path, meta, createdAt);
  return { writer, meta, location: { id, path, createdAt: meta.createdAt } };
}
