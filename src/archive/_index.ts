/**
 * The archive's index: which chunks make each version of each archived file. It is a folder
 * of segments, each written whole by one commit of a run and never changed; a file's version
 * is the last line that names it (a grown file's line replaces the shorter one of the same
 * version, whose bytes are a prefix of it, so nothing is lost).
 *
 * @module
 */
import { join } from "node:path";
import { TurnlogError } from "../errors/mod.ts";
import type { ArchiveLayout } from "./_layout.ts";

/** A piece of a file's bytes, stored once under its hash. */
export interface ChunkRef {
  /** The sha256 of its raw bytes, in hex. */
  sha256: string;
  /** Its raw size in bytes. */
  size: number;
}

/** One version of one archived file: a line of an index segment. */
export interface ArchivedFile {
  /** The file's name in the archive: its format and its place under its root (`codex/2026/…`). */
  key: string;
  /** Its format (`turnlog`, or an adapter's name). */
  format: string;
  /** The session it belongs to. */
  session: string;
  /** The session's own file, or one of its subagents'. */
  role: "session" | "subagent";
  /** The sessions root it was archived from. */
  root: string;
  /** Its place under the root, `/`-separated. */
  rel: string;
  /** Its version: 1, then one more each time the file was found rewritten in place. */
  version: number;
  /** Its size in bytes. */
  size: number;
  /** Its modification time when archived, ms since the epoch. */
  mtime: number;
  /** Its inode when archived (0 where the platform has none). */
  ino: number;
  /** The sha256 of all its bytes, in hex. */
  sha256: string;
  /** The chunks that, in order, make its bytes. */
  chunks: ChunkRef[];
  /** When this line was written, ISO 8601. */
  archivedAt: string;
  /**
   * Its `stat` was in the tick of its last write, one not waited for (a file system of whole
   * seconds): its inode, size and time cannot say the file is unchanged, so the next run hashes
   * it again.
   */
  racy?: true;
}

/** An index segment's line that is not an archived file. */
export class ArchiveIndexError extends TurnlogError {
  /** An error naming the segment and line. */
  constructor(path: string, line: number, what: string, options?: ErrorOptions) {
    super("store", `${path}:${line}: ${what}`, options);
    this.name = "ArchiveIndexError";
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

function isChunk(value: unknown): value is ChunkRef {
  if (typeof value !== "object" || value === null) return false;
  const chunk = value as Record<string, unknown>;
  return typeof chunk.sha256 === "string" && HEX64.test(chunk.sha256) &&
    Number.isSafeInteger(chunk.size) && (chunk.size as number) > 0;
}

/** What is wrong with a parsed index line, or undefined when it is an archived file. */
export function fileProblem(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "not a JSON object";
  }
  const v = value as Record<string, unknown>;
  for (const field of ["key", "format", "session", "root", "rel", "sha256", "archivedAt"]) {
    if (typeof v[field] !== "string") return `no ${field}`;
  }
  if (v.role !== "session" && v.role !== "subagent") return "no role";
  for (const field of ["version", "size", "mtime", "ino"]) {
    if (!Number.isSafeInteger(v[field])) return `no ${field}`;
  }
  if (!HEX64.test(v.sha256 as string)) return "a sha256 that is not 64 hex digits";
  if (!Array.isArray(v.chunks) || !v.chunks.every(isChunk)) return "a chunk list that is not";
  const total = (v.chunks as ChunkRef[]).reduce((sum, chunk) => sum + chunk.size, 0);
  if (total !== v.size) return `chunks of ${total} bytes for a file of ${v.size}`;
  return undefined;
}

/** Every version of every archived file, as the index segments say. */
export class ArchiveIndex {
  /** Each file's versions by key, each version's last line. */
  readonly files = new Map<string, Map<number, ArchivedFile>>();
  /** The segments read, in order. */
  readonly segments: string[] = [];

  /** Takes a line in (a later line of the same key and version replaces the earlier). */
  add(file: ArchivedFile): void {
    let versions = this.files.get(file.key);
    if (versions === undefined) this.files.set(file.key, versions = new Map());
    versions.set(file.version, file);
  }

  /** A file's latest version, or undefined. */
  latest(key: string): ArchivedFile | undefined {
    const versions = this.files.get(key);
    if (versions === undefined) return undefined;
    let latest: ArchivedFile | undefined;
    for (const file of versions.values()) {
      if (latest === undefined || file.version > latest.version) latest = file;
    }
    return latest;
  }

  /** Every file's versions, oldest first. */
  *versions(): Iterable<ArchivedFile[]> {
    for (const versions of this.files.values()) {
      yield [...versions.values()].sort((a, b) => a.version - b.version);
    }
  }
}

/** The segment names of the index, in the order they were written. */
export async function segmentNames(layout: ArchiveLayout): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(layout.index)) {
      if (entry.isFile && entry.name.endsWith(".jsonl")) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

/**
 * Reads the index. Each segment was written whole, so a line that is not an archived file
 * means damage: it throws, naming the segment and line.
 *
 * @throws {ArchiveIndexError} for a line that is not an archived file
 */
export async function readIndex(layout: ArchiveLayout): Promise<ArchiveIndex> {
  const index = new ArchiveIndex();
  for (const name of await segmentNames(layout)) {
    const path = join(layout.index, name);
    const text = await Deno.readTextFile(path);
    index.segments.push(path);
    text.split("\n").forEach((line, i) => {
      if (line === "") return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new ArchiveIndexError(path, i + 1, "not a JSON line");
      }
      const problem = fileProblem(value);
      if (problem !== undefined) throw new ArchiveIndexError(path, i + 1, problem);
      index.add(value as ArchivedFile);
    });
  }
  return index;
}

let segments = 0;

/** The name of a new segment: its time first, so names sort in the order they were written. */
export function segmentName(now: Date = new Date()): string {
  const time = now.toISOString().replace(/[:.]/g, "-");
  return `${time}-${Deno.pid}-${String(++segments).padStart(4, "0")}.jsonl`;
}
