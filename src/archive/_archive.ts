/**
 * One archive run: every session file of the sources copied into the archive, incrementally.
 * An unchanged file (same size, modification time and inode as its latest version) costs a
 * stat; a file that grew is hashed up to its archived size and, when that prefix is the
 * archived version's, only its new bytes are stored; any other change is a new version (the
 * old ones stay). Chunks are written and synced before the index segment that names them.
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import { relative, resolve, sep } from "node:path";
import { CHUNK_BYTES, ChunkWriter } from "./_chunks.ts";
import { makePrivateDir, syncDir, writeWhole } from "./_durable.ts";
import { type ArchivedFile, type ArchiveIndex, readIndex, segmentName } from "./_index.ts";
import { type ArchiveLayout, archiveLayout } from "./_layout.ts";
import { lockArchive } from "./_lock.ts";
import type { ArchiveSource } from "./_sources.ts";
import { fineClock, keptClock, seeClock, settle } from "../_tick.ts";

/** What a run did, counted by session (a session counts once, by its most telling change). */
export interface ArchiveSummary {
  /** Sessions archived for the first time. */
  newSessions: number;
  /** Sessions some file of which grew (or got a new subagent file). */
  grown: number;
  /** Sessions some file of which was rewritten in place: kept as a new version. */
  rewritten: number;
  /** Sessions with nothing new. */
  unchanged: number;
  /** The new raw bytes archived. */
  newBytes: number;
  /** What they took on the disk, compressed (chunks already there cost nothing). */
  storedBytes: number;
  /** Files that could not be read, with why. */
  skipped: { path: string; reason: string }[];
}

/** Where a run is, for a progress line. */
export interface ArchiveProgress {
  /** Sessions looked at so far. */
  sessions: number;
  /** Raw bytes read so far. */
  bytesRead: number;
}

/** Options of {@linkcode archiveSessions}. */
export interface ArchiveOptions {
  /** The archive folder. */
  to: string;
  /** What to copy (see `archiveSources`). */
  sources: readonly ArchiveSource[];
  /** Called now and then with where the run is. */
  onProgress?: (progress: ArchiveProgress) => void;
  /** The raw bytes stored before the index is committed (a long run commits as it goes). @default {64 MiB} */
  commitBytes?: number;
}

type Change = "new" | "grown" | "rewritten" | "unchanged";

const READ_BYTES = 1024 * 1024;

/** The run's state: the archive, the lines not yet committed, the counts. */
class Run {
  readonly chunks: ChunkWriter;
  pending: ArchivedFile[] = [];
  pendingBytes = 0;
  bytesRead = 0;
  readonly buffer = new Uint8Array(READ_BYTES);

  constructor(
    readonly layout: ArchiveLayout,
    readonly index: ArchiveIndex,
    readonly summary: ArchiveSummary,
    readonly commitBytes: number,
  ) {
    this.chunks = new ChunkWriter(layout);
  }

  /** Writes the pending lines as one index segment, after the chunks they name are synced. */
  async commit(): Promise<void> {
    if (this.pending.length === 0) return;
    for (const dir of this.chunks.takeDirs()) await syncDir(dir);
    const text = this.pending.map((file) => JSON.stringify(file) + "\n").join("");
    const path = `${this.layout.index}/${segmentName()}`;
    await writeWhole(path, [new TextEncoder().encode(text)], this.layout.tmp);
    await syncDir(this.layout.index);
    this.pending = [];
    this.pendingBytes = 0;
  }

  async record(file: ArchivedFile, newBytes: number): Promise<void> {
    this.index.add(file);
    this.pending.push(file);
    this.pendingBytes += newBytes;
    if (this.pendingBytes >= this.commitBytes) await this.commit();
  }
}

/** The file's bytes from `start` to `end` read into `hash`, stored as chunks when `store`. */
async function readInto(
  run: Run,
  file: Deno.FsFile,
  span: { start: number; end: number },
  hash: Hash,
  store: boolean,
): Promise<{ chunks: ArchivedFile["chunks"]; stored: number }> {
  await file.seek(span.start, Deno.SeekMode.Start);
  const chunks: ArchivedFile["chunks"] = [];
  let stored = 0;
  let pieces: Uint8Array[] = [];
  let piecesBytes = 0;
  const flush = async () => {
    if (piecesBytes === 0) return;
    const bytes = pieces.length === 1 ? pieces[0]! : concat(pieces, piecesBytes);
    const chunk = await run.chunks.write(bytes);
    chunks.push({ sha256: chunk.sha256, size: chunk.size });
    stored += chunk.stored;
    pieces = [];
    piecesBytes = 0;
  };
  let at = span.start;
  while (at < span.end) {
    const room = store ? CHUNK_BYTES - piecesBytes : READ_BYTES;
    const want = Math.min(READ_BYTES, span.end - at, room);
    const n = await file.read(run.buffer.subarray(0, want));
    if (n === null || n === 0) throw new Error(`the file ended at byte ${at} of ${span.end}`);
    const bytes = run.buffer.subarray(0, n);
    hash.update(bytes);
    if (store) {
      pieces.push(bytes.slice());
      piecesBytes += n;
      if (piecesBytes === CHUNK_BYTES) await flush();
    }
    at += n;
    run.bytesRead += n;
  }
  if (store) await flush();
  return { chunks, stored };
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** What a file is in the archive: its key and the facts every line of it carries. */
interface Subject {
  source: ArchiveSource;
  path: string;
  session: string;
  role: ArchivedFile["role"];
}

/** A file's place under its root, `/`-separated. */
function relOf(root: string, path: string): string {
  return relative(resolve(root), resolve(path)).split(sep).join("/");
}

/**
 * Archives one file `stat`ed (`info`) after `since` (ms since the epoch); says what changed. A
 * file written in the tick of its `stat` is read once that tick is past, or, when that cannot be
 * known (a file system of seconds), its line says it is `racy`: its inode, size and time cannot
 * say it is unchanged, so the next run hashes it again.
 */
async function archiveFile(
  run: Run,
  subject: Subject,
  stated: { info: Deno.FileInfo; since: number },
): Promise<Change> {
  const { source, path } = subject;
  const { info, since } = stated;
  const rel = relOf(source.root, path);
  const key = `${source.format}/${rel}`;
  const latest = run.index.latest(key);
  const stat = { size: info.size, mtime: info.mtime?.getTime() ?? 0, ino: info.ino ?? 0 };
  if (
    latest !== undefined && latest.racy !== true && latest.size === stat.size &&
    latest.mtime === stat.mtime && latest.ino === stat.ino
  ) {
    return "unchanged";
  }
  const unsure = await settle(info, since, fineClock(info, keptClock(latest)));
  const line = (version: number, sha256: string, chunks: ArchivedFile["chunks"]) => ({
    key,
    format: source.format,
    session: subject.session,
    role: subject.role,
    root: resolve(source.root),
    rel,
    version,
    ...stat,
    sha256,
    chunks,
    archivedAt: new Date().toISOString(),
    ...(unsure ? { racy: true as const } : {}),
  });
  using file = await Deno.open(path, { read: true });
  if (latest !== undefined && stat.size >= latest.size) {
    const hash = createHash("sha256");
    await readInto(run, file, { start: 0, end: latest.size }, hash, false);
    if (hash.copy().digest("hex") === latest.sha256) {
      const grown = await readInto(run, file, { start: latest.size, end: stat.size }, hash, true);
      const chunks = [...latest.chunks, ...grown.chunks];
      await run.record(line(latest.version, hash.digest("hex"), chunks), stat.size - latest.size);
      run.summary.storedBytes += grown.stored;
      run.summary.newBytes += stat.size - latest.size;
      return stat.size === latest.size ? "unchanged" : "grown";
    }
  }
  const hash = createHash("sha256");
  const whole = await readInto(run, file, { start: 0, end: stat.size }, hash, true);
  const version = latest === undefined ? 1 : latest.version + 1;
  await run.record(line(version, hash.digest("hex"), whole.chunks), stat.size);
  run.summary.storedBytes += whole.stored;
  run.summary.newBytes += stat.size;
  return latest === undefined ? "new" : "rewritten";
}

const RANK: Record<Change, number> = { unchanged: 0, grown: 1, rewritten: 2, new: 3 };

/**
 * Archives every session file of the sources into the archive at `options.to` (made, private,
 * when missing), under its lock; returns what it did.
 *
 * @throws {ArchiveInUseError} when another run holds the archive
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { archiveSessions, restoreSession } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const root = join(dir, "sessions", "2026", "01", "15");
 * await Deno.mkdir(root, { recursive: true });
 * const name = "2026-01-15T10-00-00-000Z-019bc000-0000-7000-8000-000000000001.jsonl";
 * await Deno.writeTextFile(join(root, name), '{"type":"session_start"}\n');
 * const sources = [{ format: "turnlog", root: join(dir, "sessions"), walk: async function* () {
 *   yield { id: "019bc000-0000-7000-8000-000000000001", path: join(root, name), subagents: [], project: null };
 * } }];
 * const first = await archiveSessions({ to: join(dir, "archive"), sources });
 * assert.equal(first.newSessions, 1);
 * const again = await archiveSessions({ to: join(dir, "archive"), sources });
 * assert.equal(again.unchanged, 1);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function archiveSessions(options: ArchiveOptions): Promise<ArchiveSummary> {
  const layout = archiveLayout(resolve(options.to));
  await makePrivateDir(layout.root);
  using _lock = await lockArchive(layout.lock, layout.root);
  for (const dir of [layout.chunks, layout.index, layout.tmp]) await makePrivateDir(dir);
  await clearTemps(layout.tmp);
  const index = await readIndex(layout);
  const summary: ArchiveSummary = {
    newSessions: 0,
    grown: 0,
    rewritten: 0,
    unchanged: 0,
    newBytes: 0,
    storedBytes: 0,
    skipped: [],
  };
  const run = new Run(layout, index, summary, options.commitBytes ?? 64 * 1024 * 1024);
  let sessions = 0;
  let lastProgress = performance.now();
  for (const source of options.sources) {
    const root = await folderStat(source.root);
    if (root === undefined) continue;
    // The root's time tells its device's clock before any file is judged (src/_tick.ts).
    seeClock(root);
    for await (const session of source.walk(source.root)) {
      const files: [string, ArchivedFile["role"]][] = [
        [session.path, "session"],
        ...session.subagents.map((path): [string, ArchivedFile["role"]] => [path, "subagent"]),
      ];
      let change: Change = "unchanged";
      for (const [path, role] of files) {
        let info: Deno.FileInfo;
        try {
          // Before the `stat`: a file written since is racy (src/_tick.ts).
          const since = Date.now();
          info = await Deno.stat(path);
          if (!info.isFile) continue;
          seeClock(info);
          const subject = { source, path, session: session.id, role };
          let changed = await archiveFile(run, subject, { info, since });
          // A subagent file new to the archive makes its session's grown, not new.
          if (changed === "new" && role === "subagent") changed = "grown";
          if (RANK[changed] > RANK[change]) change = changed;
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) continue;
          const reason = error instanceof Error ? error.message : String(error);
          summary.skipped.push({ path, reason });
        }
      }
      summary[change === "new" ? "newSessions" : change]++;
      sessions++;
      if (options.onProgress && performance.now() - lastProgress > 250) {
        lastProgress = performance.now();
        options.onProgress({ sessions, bytesRead: run.bytesRead });
      }
    }
  }
  await run.commit();
  return summary;
}

/** The `stat` of the folder at `path`; undefined when there is none. */
async function folderStat(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    const info = await Deno.stat(path);
    return info.isDirectory ? info : undefined;
  } catch {
    return undefined;
  }
}

/** Removes what killed runs left in `tmp/` (never referenced: a write is renamed out whole). */
async function clearTemps(tmp: string): Promise<void> {
  for await (const entry of Deno.readDir(tmp)) {
    await Deno.remove(`${tmp}/${entry.name}`);
  }
}
