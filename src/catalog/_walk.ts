/**
 * The catalog's update, its first half: every session file of the sources walked from names
 * alone and `stat`ed against what the catalog holds; an unchanged file costs nothing more, a
 * gone one is marked. The files that changed go to `_update.ts`, loaded only then: a command
 * answered from a catalog already up to date loads no reader (another tool's walk is its
 * `ToolStart`'s profile, from `src/formats/_tool_starts.ts`, loaded for its home alone).
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inWriteTransaction } from "./_transaction.ts";
import { returningArrays } from "./_database.ts";
import type { FormatSearch, SessionFiles } from "../formats/mod.ts";
import type { ReaderFindings } from "../inspect/mod.ts";
import { toolStartOf } from "../formats/_tool_starts.ts";
import { late } from "../_late.ts";
import { fineClock, keptClock, racy, seeClock, tickEnd, tickPassed } from "../_tick.ts";

/** Search's profiles of turnlog's own store, out of Deno's sight at start (src/_late.ts). */
const searchModule = () =>
  late<typeof import("../search/mod.ts")>("../search/mod.ts", import.meta.url);

/** A place of sessions the catalog keeps: a root of one format, maybe the archive's view. */
export interface CatalogSource {
  /** The format of its sessions (an adapter's name, or turnlog's). */
  format: string;
  /** Its sessions root. */
  root: string;
  /** The archive's view of sessions whose original is gone. @default {false} */
  archived?: boolean | undefined;
}

/** How far an update has gone: files and bytes read so far, of how many. */
export interface UpdateProgress {
  /** Files read so far. */
  files: number;
  /** Files to read. */
  filesTotal: number;
  /** Bytes read so far. */
  bytes: number;
  /** Bytes to read. */
  bytesTotal: number;
}

/** What an update did. */
export interface UpdateSummary {
  /** Files seen (walked and `stat`ed). */
  seen: number;
  /** Files read whole (new or rewritten). */
  read: number;
  /** Files that grew, read from their indexed offset. */
  grown: number;
  /**
   * Grown files whose facts could not be continued from their last turn (a rewind, a fork, a
   * compaction, a format without line rules): their facts were read from the whole file.
   */
  fallbacks: number;
  /**
   * Unchanged files whose text is in the full-text index now (put in by this update, or by
   * another command meanwhile); one that was not as its row said is read again by the next.
   */
  texted: number;
  /** Unchanged files whose text is not in the index, left for the next update (`textBytes`). */
  textLeft: number;
  /** Files gone since the last update, marked. */
  gone: number;
  /** Bytes read. */
  bytes: number;
  /** The sources whose root cannot be read, each with why (their files are left as they were). */
  unread: { root: string; reason: string }[];
}

/** Options of an update (`Catalog.update`, `updateCatalog`). */
export interface UpdateOptions {
  /**
   * Index the conversation text of every file too, as a search needs it; false keeps the facts
   * alone (a listing's), and the text of a file read now waits for the first update that asks
   * for it; so does the text of the lines a file already indexed grew by, when its facts are
   * continued from its last turn (else its new lines' text is put in with them).
   * @default {true}
   */
  text?: boolean | undefined;
  /**
   * With `text`, the bytes of files whose facts are kept and whose text is not indexed yet that
   * this update indexes at most (at least one such file when more than 0, in the walk's order):
   * the rest wait for the next update, and a search scans them meanwhile: serve builds the
   * index this way after a search, a step at a time. Files read for their facts have their text
   * put in with them whatever their size, and so have the lines a file already indexed grew by.
   * @default {Infinity}
   */
  textBytes?: number | undefined;
  /**
   * How many workers read the facts of the files beside this thread, which reads them too while
   * it waits for a worker's file (0: this thread alone). The transactions and the text index are
   * always this thread's, in the files' order.
   * @default {one per core but one, up to 4, on 2 cores or more when the files to read for their facts alone are two or more and hold 32 MB or more; else 0}
   */
  workers?: number | undefined;
  /** Told after each file read (never for unchanged files). */
  onProgress?: ((progress: UpdateProgress) => void) | undefined;
  /**
   * Told, once a file read whole for its facts is kept, what its reader found beside them
   * (another tool's file), so a caller that keeps its own reading of files (the doctor) reads
   * it no more. Not told for a file whose facts were continued from its last turn.
   */
  onRead?: ((read: ReaderRead) => void) | undefined;
}

/** A file an update read whole, and what its reader found beside its facts. */
export interface ReaderRead {
  /** The file. */
  path: string;
  /** Its `stat` when it was read. */
  info: Deno.FileInfo;
  /** That `stat` was in the tick of its last write, one not waited for: read it again next time. */
  racy: boolean;
  /** What its reader found. */
  found: ReaderFindings;
}

/** A session file the walk found: its session, and the source it is of. */
export interface WantedFile {
  path: string;
  source: CatalogSource;
  session: string;
  sessionId: string;
  project: string | null;
}

/** A file as the catalog holds it, as far as the walk compares it with the disk. */
export interface KnownFile {
  id: number;
  path: string;
  ino: number | null;
  size: number;
  mtime: number;
  indexed: number;
  tail_hash: string;
  lines: number;
  texted: number;
  deleted: number;
  /**
   * Read in the tick of its last write, one not waited for (see {@linkcode tickEnd}): its inode,
   * size and time cannot say it is unchanged, so the next update reads it again.
   */
  racy: number;
}

/**
 * A file new or changed since the catalog read it, or unchanged with its text asked for and not
 * yet indexed: what the walk found, and what it knew.
 */
export interface ChangedFile {
  wanted: WantedFile;
  info: Deno.FileInfo;
  known: KnownFile | undefined;
  /** Its `stat` was in the tick of its last write, one not waited for: its row says so. */
  racy: boolean;
}

/** A session as a walk found it, with the last write of its files (ms since the epoch, 0 unknown). */
export interface WalkedSession extends SessionFiles {
  /** The last write of its files (its own and its subagents'), ms since the epoch (0 unknown). */
  modified: number;
}

/**
 * What a walk found: its summary so far (files seen, gone, roots unread), what changed, and
 * the sessions of each root it could read (keyed by {@linkcode walkedKey}), as its walk gave
 * them: a search of the same roots after the update walks them no more.
 */
export interface Walked {
  summary: UpdateSummary;
  changed: ChangedFile[];
  sessions: Map<string, WalkedSession[]>;
}

/** The key of a source's sessions in {@linkcode Walked.sessions}: its format, root and view. */
export function walkedKey(source: CatalogSource): string {
  return `${source.format}\0${source.root}\0${source.archived === true}`;
}

function statOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(path);
  } catch {
    return undefined;
  }
}

/** A format's walk: another tool's from its home alone; turnlog's own store's from search. */
async function walkOf(format: string): Promise<FormatSearch["walk"]> {
  const start = toolStartOf(format);
  if (start !== undefined) return await start.loadWalk();
  return (await searchModule()).searchProfile(format).walk;
}

async function wantedFiles(
  source: CatalogSource,
  sessions: SessionFiles[],
): Promise<WantedFile[]> {
  const found: WantedFile[] = [];
  for await (const session of (await walkOf(source.format))(source.root)) {
    sessions.push(session);
    const base = { source, session: session.path, sessionId: session.id };
    found.push({ ...base, path: session.path, project: session.project });
    for (const path of session.subagents) found.push({ ...base, path, project: session.project });
  }
  return found;
}

/**
 * Whether a file is as the catalog read it: the same inode, size and time, and read after the
 * tick of its last write (not {@linkcode racy}).
 */
export const unchanged = (info: Deno.FileInfo, known: KnownFile | undefined): boolean =>
  known !== undefined && known.deleted === 0 && known.racy === 0 &&
  known.ino === (info.ino ?? null) && known.size === info.size &&
  known.mtime === (info.mtime?.getTime() ?? 0);

/**
 * A file's row as the walk's query gives it, an array (a row of 11 keys made as an object costs
 * node:sqlite an object in dictionary mode a file): `id, path, ino, size, mtime, indexed,
 * tail_hash, lines, texted, deleted, racy`.
 */
type KnownRow = [
  id: number,
  path: string,
  ino: number | null,
  size: number,
  mtime: number,
  indexed: number,
  tailHash: string,
  lines: number,
  texted: number,
  deleted: number,
  racy: number,
];

function knownFile(row: KnownRow): KnownFile {
  const [id, path, ino, size, mtime, indexed, tail_hash, lines, texted, deleted, racy] = row;
  return { id, path, ino, size, mtime, indexed, tail_hash, lines, texted, deleted, racy };
}

/** The statements that mark a file gone, prepared when a walk first finds one. */
interface GoneStatements {
  dropText: StatementSync;
  dropLines: StatementSync;
  markGone: StatementSync;
}

/** The statements a walk runs, each prepared once per database. */
interface WalkStatements {
  known: StatementSync;
  gone?: GoneStatements;
}

const statements = new WeakMap<DatabaseSync, WalkStatements>();

function statementsOf(db: DatabaseSync): WalkStatements {
  let found = statements.get(db);
  if (found === undefined) {
    const known = returningArrays(db.prepare(
      "SELECT id, path, ino, size, mtime, indexed, tail_hash, lines, texted, deleted, racy " +
        "FROM files WHERE root = ?",
    ));
    statements.set(db, found = { known });
  }
  return found;
}

/** Marks a file gone and drops its text, in one transaction. */
function markGone(db: DatabaseSync, id: number): void {
  const s = statementsOf(db);
  const gone = s.gone ??= {
    dropText: db.prepare("DELETE FROM text WHERE rowid IN (SELECT id FROM lines WHERE file = ?)"),
    dropLines: db.prepare("DELETE FROM lines WHERE file = ?"),
    markGone: db.prepare("UPDATE files SET deleted = 1 WHERE id = ?"),
  };
  inWriteTransaction(db, () => {
    gone.dropText.run(id);
    gone.dropLines.run(id);
    gone.markGone.run(id);
  });
}

/**
 * Walks the files of `sources` and `stat`s them against the catalog: the files gone are
 * marked, the new and changed ones returned for `_update.ts` to read (with `text`, the unchanged
 * ones whose text is not indexed too); other roots' files are left as they are.
 */
export async function walkSources(
  db: DatabaseSync,
  sources: readonly CatalogSource[],
  options: { text?: boolean } = {},
): Promise<Walked> {
  const s = statementsOf(db);
  // Before any `stat`: a file written since is racy.
  const since = Date.now();
  // When the last tick of a racy file's write is past: the walk returns then.
  let settled = 0;
  const changed: ChangedFile[] = [];
  const summary: UpdateSummary = {
    seen: 0,
    read: 0,
    grown: 0,
    fallbacks: 0,
    texted: 0,
    textLeft: 0,
    gone: 0,
    bytes: 0,
    unread: [],
  };
  const walked = new Map<string, WalkedSession[]>();
  for (const source of sources) {
    const known = new Map<string, KnownRow>();
    for (const row of s.known.all(source.root) as unknown as KnownRow[]) known.set(row[1], row);
    const seen = new Set<string>();
    let found: WantedFile[];
    const sessions: SessionFiles[] = [];
    const mtimes = new Map<string, number>();
    try {
      found = await wantedFiles(source, sessions);
    } catch (error) {
      // A root not there is left to the search's own walk, as one that cannot be read.
      if (error instanceof Deno.errors.NotFound) found = [];
      else {
        const reason = error instanceof Error ? error.message : String(error);
        summary.unread.push({ root: source.root, reason });
        continue;
      }
    }
    // The root's time tells its device's clock before any file is judged (src/_tick.ts).
    seeClock(statOrUndefined(source.root));
    for (const wanted of found) {
      if (seen.has(wanted.path)) continue;
      const info = statOrUndefined(wanted.path);
      seeClock(info);
      mtimes.set(wanted.path, info?.mtime?.getTime() ?? 0);
      if (info === undefined || !info.isFile) continue;
      seen.add(wanted.path);
      summary.seen++;
      const row = known.get(wanted.path);
      const before = row === undefined ? undefined : knownFile(row);
      const untexted = options.text === true && before?.texted === 0;
      if (!unchanged(info, before) || untexted) {
        const fine = fineClock(info, keptClock(before));
        const end = racy(info, since, fine) ? tickEnd(info, Date.now(), fine) ?? Infinity : 0;
        if (end !== Infinity) settled = Math.max(settled, end);
        changed.push({ wanted, info, known: before, racy: end === Infinity });
      }
    }
    for (const [path, [id, , , , , , , , , deleted]] of known) {
      if (deleted === 0 && !seen.has(path)) {
        markGone(db, id);
        summary.gone++;
      }
    }
    if (found.length === 0) continue;
    walked.set(
      walkedKey(source),
      sessions.map((session) => ({
        ...session,
        modified: Math.max(...[session.path, ...session.subagents].map((p) => mtimes.get(p) ?? 0)),
      })),
    );
  }
  // A file written in the tick of its `stat` is read once that tick is past: what is read of
  // it is then what its inode, size and time stand for (a write after has another time).
  await tickPassed(settled);
  return { summary, changed, sessions: walked };
}
