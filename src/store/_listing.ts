/**
 * The store's listing: the newest sessions first, with what a person picks one by (the first
 * user message, turns, size), reading only the files listed: ids and times from their names,
 * the first user message from their heads, counts from a byte scan.
 *
 * @module
 */
import { concatBytes, indexOfBytes, readFull } from "../io/mod.ts";
import { isUuidV7, parseRecordLine } from "../record/mod.ts";
import { oneLine } from "../text/mod.ts";
import { TURN_CONTEXT_MARK, TurnlogHeadReader } from "../formats/mod.ts";
import { shortestUniquePrefix } from "./_find.ts";
import { type SessionLocation, walkSessions } from "./_layout.ts";

/** The version of the listing's JSON document. */
export const LISTING_VERSION = 1;

/** One session in a listing. */
export interface ListedSession {
  /** The session id. */
  id: string;
  /** The shortest prefix of the id, at least 8 characters, that finds only this session. */
  shortId: string;
  /** Creation time, ISO 8601, from the file name. */
  created: string;
  /** The session file. */
  path: string;
  /** The file's size in bytes. */
  sizeBytes: number;
  /** `turn_context` records, counted by a byte scan (no validation). */
  turns: number;
  /** Non-empty lines, counted by a byte scan. */
  records: number;
  /** The first user message, on one line, shortened; null when the head holds none. */
  firstUserMessage: string | null;
  /** The id of the session this one was forked from, or null. */
  forkedFrom: string | null;
  /** Why the file could not be read (its size and counts are then 0); absent when it was. */
  unreadable?: string | undefined;
}

/** A listing of a store's newest sessions (`inspect --list --json`). */
export interface SessionListing {
  /** Always `"turnlog-sessions"`. */
  format: "turnlog-sessions";
  /** {@linkcode LISTING_VERSION}. */
  version: 1;
  /** The sessions root listed. */
  root: string;
  /** The sessions, newest first. */
  sessions: ListedSession[];
  /** True when more sessions exist than the limit showed. */
  more: boolean;
}

/** How far into a file a listing reads to find the first user message. */
const HEAD_BYTES = 256 * 1024;

const NEWLINE = 10;
const CR = 13;
const TURN_MARK = new TextEncoder().encode(TURN_CONTEXT_MARK);
const decoder = new TextDecoder();

/** What one read of a session file tells a listing, without validating anything. */
export interface FileSummary {
  /** The file's size in bytes. */
  sizeBytes: number;
  /** Non-empty lines. */
  records: number;
  /**
   * Lines holding `"type":"turn_context"`: a record's own `"type"` is the only place the marker
   * can stand unescaped (inside a string, JSON escapes its quotes).
   */
  turns: number;
  /** The first user message, when one starts in the first 256 KiB. */
  firstUserMessage: string | undefined;
  /** The session this one was forked from, when its `session_meta` says so. */
  forkedFrom: string | undefined;
}

/** Notes what a head line tells (turnlog's head reader): the fork's source, the first user message. */
function noteHeadLine(
  path: string,
  line: Uint8Array,
  summary: FileSummary,
  head: TurnlogHeadReader,
): void {
  const text = decoder.decode(line[line.length - 1] === CR ? line.subarray(0, -1) : line);
  const { record } = parseRecordLine(path, { line: 0, text, start: 0, end: 0, terminated: true });
  if (record === undefined || !head.see(record)) {
    summary.forkedFrom = head.head.forkedFrom ?? undefined;
    return;
  }
  summary.firstUserMessage = head.head.firstPrompt ?? undefined;
}

/** Counts lines and turn markers in a chunk with native searches; `previous` is the byte before. */
function countChunk(bytes: Uint8Array, previous: number[]): { records: number; turns: number } {
  let records = 0;
  for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) {
    const before = at > 0 ? bytes[at - 1] : previous[1];
    const twoBefore = at > 1 ? bytes[at - 2] : at === 1 ? previous[1] : previous[0];
    const empty = before === NEWLINE || before === undefined ||
      (before === CR && (twoBefore === NEWLINE || twoBefore === undefined));
    if (!empty) records++;
  }
  let turns = 0;
  for (
    let at = indexOfBytes(bytes, TURN_MARK);
    at !== -1;
    at = indexOfBytes(bytes, TURN_MARK, at + 1)
  ) {
    turns++;
  }
  return { records, turns };
}

/**
 * One read of a session file for a listing: its lines and turns counted by native byte
 * searches (no JSON parsed), and the first user message parsed from the head. The file is
 * opened once.
 */
export async function summarizeSessionFile(
  path: string,
  chunkSize = 1 << 20,
): Promise<FileSummary> {
  using file = await Deno.open(path, { read: true });
  // A marker can then straddle two chunks at most.
  const buffer = new Uint8Array(Math.max(chunkSize, TURN_MARK.length));
  const summary: FileSummary = {
    sizeBytes: 0,
    records: 0,
    turns: 0,
    firstUserMessage: undefined,
    forkedFrom: undefined,
  };
  let head: Uint8Array[] | undefined = []; // the line being read while still in the head
  const reader = new TurnlogHeadReader();
  let previous: number[] = [];
  let tail = new Uint8Array(0); // a marker's start split off the previous chunk
  while (true) {
    const read = await readFull(file, buffer);
    if (read === 0) break;
    const chunk = buffer.subarray(0, read);
    if (head) head = headLines(path, chunk, summary, head, reader);
    const counted = countChunk(chunk, previous);
    summary.records += counted.records;
    summary.turns += counted.turns + splitMarkers(tail, chunk);
    summary.sizeBytes += read;
    previous = [chunk[read - 2] ?? previous[1]!, chunk[read - 1]!];
    tail = chunk.slice(Math.max(0, read - TURN_MARK.length + 1));
    if (read < buffer.length) break;
  }
  const last = previous[1];
  if (last !== undefined && last !== NEWLINE && !(last === CR && previous[0] === NEWLINE)) {
    summary.records++;
  }
  return summary;
}

/** Markers that straddle two chunks: in the previous chunk's tail and this chunk's head. */
function splitMarkers(tail: Uint8Array, chunk: Uint8Array): number {
  if (tail.length === 0) return 0;
  const joined = concatBytes([tail, chunk.subarray(0, TURN_MARK.length - 1)]);
  const at = indexOfBytes(joined, TURN_MARK);
  return at !== -1 && at < tail.length && at + TURN_MARK.length > tail.length ? 1 : 0;
}

/**
 * Parses the head's complete lines for the first user message; returns the unfinished line's
 * parts, or undefined once the message is found or the head is passed.
 */
function headLines(
  path: string,
  chunk: Uint8Array,
  summary: FileSummary,
  parts: Uint8Array[],
  reader: TurnlogHeadReader,
): Uint8Array[] | undefined {
  let start = 0;
  for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
    const line = concatBytes([...parts, chunk.subarray(start, at)]);
    const lineStart = summary.sizeBytes + start - (line.length - (at - start));
    if (lineStart >= HEAD_BYTES) return undefined;
    noteHeadLine(path, line, summary, reader);
    if (summary.firstUserMessage !== undefined) return undefined;
    parts = [];
    start = at + 1;
  }
  if (summary.sizeBytes + start >= HEAD_BYTES && parts.length === 0) return undefined;
  return [...parts, chunk.slice(start)];
}

/**
 * Lists the newest `limit` sessions of a store (default 25), opening only the files listed.
 *
 * @example
 * ```ts ignore
 * for (const session of (await listSessions("sessions")).sessions) console.log(session.shortId);
 * ```
 */
export async function listSessions(
  root: string,
  options: { limit?: number } = {},
): Promise<SessionListing> {
  const limit = options.limit ?? 25;
  // One more than asked: it says whether there are more, and it is the last one's neighbour.
  const locations: SessionLocation[] = [];
  for await (const location of walkSessions(root)) {
    locations.push(location);
    if (locations.length > limit) break;
  }
  const sessions: ListedSession[] = [];
  for (const [index, location] of locations.slice(0, limit).entries()) {
    const summary = await summarizeOrSay(location.path);
    const neighbours = [locations[index - 1]?.id, locations[index + 1]?.id];
    sessions.push({
      id: location.id,
      shortId: isUuidV7(location.id)
        ? shortPrefixAmong(location.id, neighbours)
        : await shortestUniquePrefix(root, location.id),
      created: location.createdAt,
      path: location.path,
      sizeBytes: summary.sizeBytes,
      turns: summary.turns,
      records: summary.records,
      firstUserMessage: summary.firstUserMessage === undefined
        ? null
        : oneLine(summary.firstUserMessage, 500),
      forkedFrom: summary.forkedFrom ?? null,
      ...(summary.unreadable === undefined ? {} : { unreadable: summary.unreadable }),
    });
  }
  const more = locations.length > limit;
  return { format: "turnlog-sessions", version: LISTING_VERSION, root, sessions, more };
}

/** Errors of one file that leave the rest of the listing as it is, and how a person says them. */
const FILE_ERRORS: [new (...args: never[]) => Error, string][] = [
  [Deno.errors.PermissionDenied, "permission denied"],
  [Deno.errors.NotCapable, "permission denied"],
  [Deno.errors.NotFound, "removed meanwhile"],
  [Deno.errors.IsADirectory, "a folder"],
  [Deno.errors.FilesystemLoop, "a symlink loop"],
];

/** A file's summary, or, when it cannot be read (unreadable, gone meanwhile), why not. */
async function summarizeOrSay(path: string): Promise<FileSummary & { unreadable?: string }> {
  try {
    return await summarizeSessionFile(path);
  } catch (error) {
    const known = FILE_ERRORS.find(([kind]) => error instanceof kind);
    if (known === undefined) throw error;
    return {
      sizeBytes: 0,
      records: 0,
      turns: 0,
      firstUserMessage: undefined,
      forkedFrom: undefined,
      unreadable: known[1],
    };
  }
}

/**
 * The shortest prefix of a UUIDv7 (at least `min` characters, not ending in `-`) that no
 * neighbour shares. Sessions are listed in id order, so the ids on either side are the only
 * ones that can share a longer prefix.
 */
function shortPrefixAmong(id: string, neighbours: (string | undefined)[], min = 8): string {
  let length = min;
  for (const other of neighbours) {
    if (other === undefined) continue;
    let common = 0;
    while (common < id.length && id[common] === other[common]) common++;
    length = Math.max(length, common + 1);
  }
  while (length < id.length && id[length - 1] === "-") length++;
  return id.slice(0, Math.min(length, id.length));
}
