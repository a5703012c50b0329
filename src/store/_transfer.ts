/**
 * Moving sessions between stores: a stored session written out as a JSONL file whose lines are
 * the stored records' texts, and a turnlog JSONL file brought into a store as the same session
 * (its id, its records, in order).
 *
 * @module
 */
import { basename, dirname, join } from "../_path.ts";
import { TurnlogError } from "../errors/mod.ts";
import { readLines, writeAll } from "../io/mod.ts";
import {
  keepText,
  parseRecordLine,
  type SessionMetaRecord,
  type SessionRecord,
} from "../record/mod.ts";
import type { SessionLocation } from "./_layout.ts";
import type { SessionStore } from "./_session_store.ts";

/** What an export wrote. */
export interface ExportedSession {
  /** The file written. */
  path: string;
  /** Lines written: one per stored record. */
  records: number;
  /** Bytes written. */
  bytes: number;
}

const encoder = new TextEncoder();

/** Bytes an export or import gathers before one write or append. */
const BATCH_BYTES = 1 << 20;

/**
 * Writes the session at `location` to the file `target` as JSONL, each stored record's text
 * exactly, one a line, in append order; through a temporary file beside it, renamed into
 * place, so nobody sees half a session.
 */
export async function exportSession(
  store: SessionStore,
  location: SessionLocation,
  target: string,
): Promise<ExportedSession> {
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  let records = 0;
  let bytes = 0;
  try {
    using file = await Deno.open(temporary, { write: true, createNew: true, mode: 0o600 });
    let pending: string[] = [];
    let pendingChars = 0;
    const flush = async () => {
      const chunk = encoder.encode(pending.join(""));
      await writeAll(file, chunk);
      bytes += chunk.length;
      pending = [];
      pendingChars = 0;
    };
    for await (const entry of store.read(location)) {
      pending.push(entry.text, "\n");
      pendingChars += entry.text.length + 1;
      records++;
      if (pendingChars >= BATCH_BYTES) await flush();
    }
    await flush();
    await file.syncData();
    await Deno.rename(temporary, target);
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
  return { path: target, records, bytes };
}

/** A session file that cannot be imported as it is. */
export class ImportError extends TurnlogError {
  /** An error naming the file and the line. */
  constructor(message: string, options?: ErrorOptions) {
    super("session_file", message, options);
    this.name = "ImportError";
  }
}

/** What an import wrote. */
export interface ImportedFile {
  /** Where the session is now. */
  location: SessionLocation;
  /** Records stored, `session_meta` included. */
  records: number;
}

/**
 * The record a line holds, validated, kept with the line's text (what the store then writes),
 * or an {@linkcode ImportError} naming the line.
 */
function recordOf(path: string, line: Parameters<typeof parseRecordLine>[1]): SessionRecord {
  const entry = parseRecordLine(path, line);
  if (entry.problem) {
    throw new ImportError(
      `${entry.problem.message}; repair the file first (inspect --repair)`,
    );
  }
  // Stored as the line holds it: the same characters come back out of any store.
  return keepText(JSON.parse(line.text) as SessionRecord, line.text);
}

/**
 * Brings the turnlog session file at `path` into `store` as the same session: its id, and
 * every record, in order, each line's characters exactly as the file holds them. A file with a bad
 * line is refused (repair it first); nothing is stored then. The session is locked while it is
 * written, and a failure part way removes nothing: the records stored so far stay, and a
 * second import of the file is refused as the session exists.
 *
 * @throws {ImportError} for a bad line, or a file that does not start with its `session_meta`
 * @throws {SessionExistsError} when the store has a session with this id
 */
export async function importTurnlogFile(store: SessionStore, path: string): Promise<ImportedFile> {
  // Every line is checked before the first is stored.
  let count = 0;
  for await (const line of readLines(path)) {
    if (line.text.length === 0 && line.terminated) continue;
    const record = recordOf(path, line);
    if (count === 0 && record.type !== "session_meta") {
      throw new ImportError(
        `${path}:${line.line}: expected the session_meta record first, found ${record.type}`,
      );
    }
    count++;
  }
  if (count === 0) throw new ImportError(`${path}:1: empty session file, no session_meta record`);
  let writer: Awaited<ReturnType<SessionStore["create"]>>["writer"] | undefined;
  let location: SessionLocation | undefined;
  try {
    let batch: SessionRecord[] = [];
    let batchChars = 0;
    for await (const line of readLines(path)) {
      if (line.text.length === 0 && line.terminated) continue;
      const record = recordOf(path, line);
      if (writer === undefined) {
        ({ writer, location } = await store.create(record as SessionMetaRecord));
        continue;
      }
      batch.push(record);
      batchChars += line.text.length;
      if (batchChars >= BATCH_BYTES) {
        await writer.append(batch);
        batch = [];
        batchChars = 0;
      }
    }
    await writer!.append(batch);
  } finally {
    await writer?.close();
  }
  return { location: location!, records: count };
}
