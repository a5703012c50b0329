/**
 * What the doctor reads of a session file, kept in the catalog's database (a table of its own
 * beside the catalog's `files`, keyed by a file's path): the tool's version, its check's
 * findings, the record types and fields turnlog has never seen. A file unchanged since (its
 * inode, size and modification time) is answered from its row, so a warm doctor reads no
 * session file. A cache like the catalog: its own version, made again on a mismatch.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { keepSideTables } from "../catalog/_side_tables.ts";
import type { ReaderRead } from "../catalog/_walk.ts";
import { fineClock, keptClock, seeClock, settle } from "../_tick.ts";
import {
  type FieldSighting,
  type FormatAdapter,
  readForeignSession,
  type ValidationFinding,
} from "../formats/mod.ts";
import type { ReaderFindings } from "../inspect/mod.ts";
import { readableBytes } from "../io/mod.ts";

/** What one read of a session file tells the doctor. */
export interface FileExamination {
  /** The tool version that wrote it (null: the file names none). */
  version: string | null;
  /** How many findings the tool's check has. */
  findings: number;
  /** The first finding, `path:line: what is wrong` (null: none). */
  first: string | null;
  /** Of the findings, lines that are not the format's (not JSON, torn): `bad_line` ones. */
  badLines: number;
  /** Lines of each kind turnlog has no rule for (`unknown:<type>`). */
  drift: Record<string, number>;
  /** Fields of known records turnlog has never seen, by `<where>.<key>`. */
  fields: Record<string, FieldSighting>;
}

const DRIFT = "unknown:";

/** What the doctor wants of what a file's reader found. */
function examinationOf(found: ReaderFindings): FileExamination {
  const drift: Record<string, number> = {};
  for (const [kind, lines] of Object.entries(found.ignored)) {
    if (kind.startsWith(DRIFT)) drift[kind] = lines;
  }
  return {
    version: found.version,
    findings: found.findings.length,
    first: found.findings[0]?.message ?? null,
    badLines: found.findings.filter((finding) => finding.kind === "bad_line").length,
    drift,
    fields: found.unknownFields,
  };
}

/**
 * Reads a session file once (the facts, and the check made on the way; a file with bad lines
 * is checked again, through the view its repair reads): what the doctor wants of it.
 */
export async function examineFile(
  adapter: FormatAdapter,
  path: string,
  size: number,
): Promise<FileExamination> {
  const read = readForeignSession(path, adapter.name, { subagents: false });
  for await (const _ of read.batches()) { /* the facts are what is wanted */ }
  const facts = read.facts;
  const findings: ValidationFinding[] = facts.checked ??
    await adapter.check(path, readableBytes(path, size));
  return examinationOf({
    version: facts.version,
    findings,
    ignored: facts.ignored,
    unknownFields: facts.unknownFields ?? {},
  });
}

/** The version of the doctor's tables: others are made again. */
export const DOCTOR_TABLES_VERSION = 2;

const TABLES = `
CREATE TABLE doctor_version (version INTEGER NOT NULL);
CREATE TABLE doctor_files (
  path TEXT PRIMARY KEY,
  ino INTEGER,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  examination TEXT,
  unreadable TEXT
);
`;

/** Makes the doctor's tables, again when they are of another version. */
function ensureTables(db: DatabaseSync): void {
  const stamp = String(DOCTOR_TABLES_VERSION);
  keepSideTables(db, { stampTable: "doctor_version", stamp, create: TABLES });
}

interface FileRow {
  ino: number | null;
  size: number;
  mtime: number;
  examination: string | null;
  unreadable: string | null;
}

/** A file's examination, or why it could not be read (`path: why`). */
export type Examined = { examination: FileExamination } | { unreadable: string };

/** Examines a file, saying why when it cannot be read. */
export async function examineOrWhy(
  adapter: FormatAdapter,
  path: string,
  size: number,
): Promise<Examined> {
  try {
    return { examination: await examineFile(adapter, path, size) };
  } catch (error) {
    return { unreadable: `${path}: ${(error as Error).message}` };
  }
}

/** The time kept for a file read in the tick of its last write, one not waited for: no file's. */
const RACY_MTIME = -1;

/** The doctor's reads kept in the catalog's database: asked for, and given by the catalog's. */
export interface KeptExaminer {
  /**
   * A file's examination: from its row when the file is unchanged since, else read
   * ({@linkcode examineFile}) and kept.
   */
  examine(
    adapter: FormatAdapter,
    path: string,
  ): Promise<(Examined & { modified: Date }) | { unreadable: string; modified: null }>;
  /**
   * Keeps what the catalog's update read of a file whole (`UpdateOptions.onRead`): the doctor
   * reads it no more.
   */
  keep(read: ReaderRead): void;
}

/**
 * The examiner of files through the catalog's database: a file unchanged since its row was
 * kept is answered from it; another is read ({@linkcode examineFile}) and kept, or kept as the
 * catalog's update read it. A file written in the tick of its `stat` is read once that tick is
 * past, or kept with no time when it cannot be waited for (a file system of seconds): read
 * again next time (as the catalog's update does, `src/catalog/_walk.ts`'s `racy`).
 */
export function keptExaminer(db: DatabaseSync): KeptExaminer {
  ensureTables(db);
  const get: StatementSync = db.prepare(
    "SELECT ino, size, mtime, examination, unreadable FROM doctor_files WHERE path = ?",
  );
  const save: StatementSync = db.prepare(
    "INSERT OR REPLACE INTO doctor_files (path, ino, size, mtime, examination, unreadable) " +
      "VALUES (?, ?, ?, ?, ?, ?)",
  );
  const examine: KeptExaminer["examine"] = async (adapter, path) => {
    let info: Deno.FileInfo;
    const since = Date.now();
    try {
      info = Deno.statSync(path);
    } catch (error) {
      return { unreadable: `${path}: ${(error as Error).message}`, modified: null };
    }
    seeClock(info);
    const modified = info.mtime ?? new Date();
    const mtime = info.mtime?.getTime() ?? 0;
    const row = get.get(path) as FileRow | undefined;
    if (
      row !== undefined && row.size === info.size && row.mtime === mtime &&
      row.ino === (info.ino ?? null)
    ) {
      return row.examination === null
        ? { unreadable: row.unreadable ?? `${path}: cannot be read`, modified }
        : { examination: JSON.parse(row.examination), modified };
    }
    const unsure = await settle(info, since, fineClock(info, keptClock(row)));
    const examined = await examineOrWhy(adapter, path, info.size);
    save.run(
      path,
      info.ino ?? null,
      info.size,
      unsure ? RACY_MTIME : mtime,
      "examination" in examined ? JSON.stringify(examined.examination) : null,
      "unreadable" in examined ? examined.unreadable : null,
    );
    return { ...examined, modified };
  };
  const keep = ({ path, info, racy, found }: ReaderRead) => {
    const mtime = racy ? RACY_MTIME : info.mtime?.getTime() ?? 0;
    const examination = JSON.stringify(examinationOf(found));
    save.run(path, info.ino ?? null, info.size, mtime, examination, null);
  };
  return { examine, keep };
}
