/**
 * The session store: append-only JSONL files under `<root>/YYYY/MM/DD/<time>-<id>.jsonl`,
 * found by id from file names alone and written by one locked writer at a time.
 *
 * @module
 */
import { join } from "node:path";
import { checkSessionId, idTime, newId, prefixTimeRange } from "../record/_ids.ts";
import { quarantineLines, writeAll } from "./_sidecar.ts";
import { readLines } from "../io/_lines.ts";
import { parseRecordLine } from "../record/_parse.ts";
import {
  FORMAT_VERSION,
  makeRecord,
  type SessionMeta,
  type SessionRecord,
  SessionRecordSchema,
} from "../record/_schemas.ts";

export { InvalidSessionIdError } from "../record/_ids.ts";

/** The environment variable that overrides the default sessions root. */
export const SESSIONS_DIR_ENV = "TURNLOG_SESSIONS_DIR";

/** No session has this id or id prefix. */
export class SessionNotFoundError extends Error {
  readonly sessionId: string;
  constructor(sessionId: string, root: string, options?: ErrorOptions) {
    super(`Session not found: no session with id or prefix "${sessionId}" in ${root}`, options);
    this.name = "SessionNotFoundError";
    this.sessionId = sessionId;
  }
}

/** An id prefix that matches more than one session. */
export class AmbiguousSessionError extends Error {
  readonly candidates: SessionLocation[];
  constructor(prefix: string, candidates: SessionLocation[], options?: ErrorOptions) {
    const listed = candidates.map((c) => `  ${c.id}  ${c.createdAt}`).join("\n");
    super(
      `Ambiguous session id "${prefix}": it matches ${candidates.length} sessions:\n${listed}`,
      options,
    );
    this.name = "AmbiguousSessionError";
    this.candidates = candidates;
  }
}

/** Another run holds the session file's lock. */
export class SessionInUseError extends Error {
  constructor(path: string, options?: ErrorOptions) {
    super(`Session is in use: another run holds the lock on ${path}`, options);
    this.name = "SessionInUseError";
  }
}

/** Where a session's file is, as its name tells. */
export interface SessionLocation {
  id: string;
  path: string;
  /** Creation time, ISO 8601, from the file name. */
  createdAt: string;
}

/**
 * The sessions root: the explicit one (a `--sessions-dir` flag), else `TURNLOG_SESSIONS_DIR`,
 * else `./sessions`.
 */
export function resolveSessionsRoot(explicit?: string): string {
  return explicit ?? Deno.env.get(SESSIONS_DIR_ENV) ?? "sessions";
}

const FILE_NAME =
  /^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)-([0-9A-Za-z][0-9A-Za-z_-]*)\.jsonl$/;

/** `2026-11-30T02:48:20.123Z` written as `2026-11-30T02-48-20-123Z`, safe in any file system. */
function fileTime(time: Date): string {
  return time.toISOString().replace(/[:.]/g, "-");
}

function parseFileTime(text: string): string {
  const [date, rest] = text.split("T") as [string, string];
  const [h, m, s, ms] = rest.slice(0, -1).split("-");
  return `${date}T${h}:${m}:${s}.${ms}Z`;
}

/** Parses a session file name, or returns undefined for any other file. */
export function parseSessionFileName(name: string, dir: string): SessionLocation | undefined {
  const match = FILE_NAME.exec(name);
  if (!match) return undefined;
  return { id: match[2]!, path: join(dir, name), createdAt: parseFileTime(match[1]!) };
}

/** The path of a session file from its id and creation time. */
export function sessionFilePath(root: string, id: string, createdAt: Date): string {
  const iso = createdAt.toISOString();
  return join(
    root,
    iso.slice(0, 4),
    iso.slice(5, 7),
    iso.slice(8, 10),
    `${fileTime(createdAt)}-${id}.jsonl`,
  );
}

/** The UTC time span one date folder covers: a year, a month or a day. */
function folderSpan(year: number, month?: number, day?: number): { from: number; to: number } {
  if (month === undefined) return { from: Date.UTC(year, 0, 1), to: Date.UTC(year + 1, 0, 1) - 1 };
  if (day === undefined) {
    return { from: Date.UTC(year, month - 1, 1), to: Date.UTC(year, month, 1) - 1 };
  }
  return { from: Date.UTC(year, month - 1, day), to: Date.UTC(year, month - 1, day + 1) - 1 };
}

async function numberedDirs(dir: string, digits: number): Promise<number[]> {
  const pattern = new RegExp(`^\\d{${digits}}$`);
  const found: number[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory && pattern.test(entry.name)) found.push(Number(entry.name));
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return found.sort((a, b) => b - a);
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Yields the day folders of the store, newest first, skipping every folder whose time span
 * cannot hold a session created within `range`.
 */
async function* dayFolders(
  root: string,
  range?: { from: number; to: number },
): AsyncGenerator<string> {
  const overlaps = (span: { from: number; to: number }) =>
    !range || (span.from <= range.to && span.to >= range.from);
  for (const year of await numberedDirs(root, 4)) {
    if (!overlaps(folderSpan(year))) continue;
    const yearDir = join(root, String(year));
    for (const month of await numberedDirs(yearDir, 2)) {
      if (!overlaps(folderSpan(year, month))) continue;
      const monthDir = join(yearDir, pad(month));
      for (const day of await numberedDirs(monthDir, 2)) {
        if (overlaps(folderSpan(year, month, day))) yield join(monthDir, pad(day));
      }
    }
  }
}

async function sessionsIn(dir: string): Promise<SessionLocation[]> {
  const found: SessionLocation[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const location = parseSessionFileName(entry.name, dir);
      if (location) found.push(location);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((
    a,
    b,
  ) => (a.createdAt === b.createdAt
    ? b.id.localeCompare(a.id)
    : b.createdAt.localeCompare(a.createdAt))
  );
}

/**
 * Finds a session by full id or unique prefix, from file names alone. A session id is a
 * UUIDv7, so the id's leading digits name the only date folders that can hold it; no file
 * is opened.
 *
 * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
 * @throws {SessionNotFoundError} when no session matches
 * @throws {AmbiguousSessionError} when several match
 */
export async function findSession(root: string, idOrPrefix: string): Promise<SessionLocation> {
  const prefix = checkSessionId(idOrPrefix);
  const matches: SessionLocation[] = [];
  for await (const dir of dayFolders(root, prefixTimeRange(prefix))) {
    for (const location of await sessionsIn(dir)) {
      if (location.id === prefix) return location;
      if (location.id.startsWith(prefix)) matches.push(location);
    }
  }
  if (matches.length === 0) throw new SessionNotFoundError(idOrPrefix, root);
  if (matches.length > 1) throw new AmbiguousSessionError(idOrPrefix, matches);
  return matches[0]!;
}

/**
 * The shortest prefix of `id`, at least `min` characters and not ending in `-`, that finds
 * only this session in `root`; the whole id when no shorter one does.
 */
export async function shortestUniquePrefix(root: string, id: string, min = 8): Promise<string> {
  for (let length = Math.min(min, id.length); length < id.length; length++) {
    const prefix = id.slice(0, length);
    if (prefix.endsWith("-")) continue;
    try {
      if ((await findSession(root, prefix)).id === id) return prefix;
    } catch (error) {
      if (!(error instanceof AmbiguousSessionError)) throw error;
    }
  }
  return id;
}

/**
 * Yields every session of the store, newest first, from folder and file names alone.
 */
export async function* walkSessions(root: string): AsyncGenerator<SessionLocation> {
  for await (const dir of dayFolders(root)) yield* await sessionsIn(dir);
}

/** A session in a listing. */
export interface SessionSummary extends SessionLocation {
  /** The first user message, shortened; undefined when the head holds none. */
  preview: string | undefined;
}

/** How far into a file a listing reads to find the first user message. */
const HEAD_BYTES = 256 * 1024;

/**
 * The first user message of a session, reading only the head of its file (at most 256 KiB).
 */
export async function readFirstUserMessage(path: string): Promise<string | undefined> {
  for await (const line of readLines(path, { chunkSize: 16 * 1024 })) {
    if (line.start >= HEAD_BYTES) return undefined;
    const record = parseRecordLine(path, line).record;
    if (
      record?.type === "response_item" && record.payload.type === "message" &&
      record.payload.role === "user"
    ) {
      return record.payload.content;
    }
  }
  return undefined;
}

/** Lists the newest `limit` sessions with a one-line preview, reading only their heads. */
export async function listSessions(
  root: string,
  options: { limit?: number } = {},
): Promise<SessionSummary[]> {
  const limit = options.limit ?? 25;
  const summaries: SessionSummary[] = [];
  for await (const location of walkSessions(root)) {
    if (summaries.length >= limit) break;
    const first = await readFirstUserMessage(location.path);
    summaries.push({ ...location, preview: first === undefined ? undefined : oneLine(first) });
  }
  return summaries;
}

/** Collapses whitespace and shortens text to one line of at most `max` characters. */
export function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

const encoder = new TextEncoder();

/** Encodes records as JSONL, one line each, in one buffer. */
export function encodeRecords(records: readonly SessionRecord[]): Uint8Array {
  return encoder.encode(records.map((r) => JSON.stringify(r) + "\n").join(""));
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
    await writeAll(file, encoder.encode("\n"));
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

async function readFull(file: Deno.FsFile, into: Uint8Array): Promise<void> {
  let at = 0;
  while (at < into.length) {
    const n = await file.read(into.subarray(at));
    if (n === null) break;
    at += n;
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
