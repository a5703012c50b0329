/**
 * The search: every session of the sources, most recently written first, each file streamed
 * through the byte prefilter, the few lines that can match parsed and checked against the
 * conversation they hold; a session's hits come out by the session's own start, newest first,
 * as soon as no session still to read can have started after it.
 *
 * @module
 */
import { basename } from "../_path.ts";
import { isPostgresUrl } from "../store/_postgres_url.ts";
import { type CompiledQuery, compileQuery, type SearchQuery } from "./_query.ts";
import type { InheritedPart, Piece } from "../formats/mod.ts";
import type { SearchProfile } from "./_profile.ts";
import { searchProfile } from "./_profiles.ts";
import { candidateLines, type CandidateOptions, placeLines, scanBuffer } from "./_scan.ts";
import type { ScanBuffer } from "./_simd.ts";
import { hitOf, matchLine } from "./_hits.ts";
import { newestSessionFirst, sessionTime } from "./_order.ts";
import type { SearchEvent, SearchHit, SessionSummary } from "./_types.ts";
import {
  type SearchSource,
  searchSources,
  sessionsOf,
  type SourceChoice,
  type SourcedSession,
  type WalkedSources,
} from "./_sources.ts";
import { late } from "../_late.ts";
import { isoTime } from "../text/mod.ts";

/** A database store's search, loaded for one alone, out of Deno's sight at start (src/_late.ts). */
const databaseModule = () =>
  late<typeof import("./_database.ts")>("./_database.ts", import.meta.url);

export type { SearchEvent, SearchHit, SessionSummary } from "./_types.ts";

/** Options of {@linkcode searchSessions}. */
export interface SearchOptions {
  /** Where to look (see {@linkcode searchSources}). @default {every source} */
  sources?: readonly SearchSource[] | SourceChoice;
  /** Sessions with hits given at most; a `limit` event says when another one matches. */
  limit?: number;
  /**
   * Only sessions whose own last date is on or after this time (from `dates`; a session they
   * do not know, by its file's last write).
   */
  since?: Date;
  /**
   * Only sessions that started on or before this time (from `dates`; a session they do not
   * know, by the start its head names, else its file's last write).
   */
  until?: Date;
  /**
   * The sessions' own first and last dates by their file's path (the catalog's), where known:
   * `since` and `until` go by them instead of file times.
   */
  dates?: ((path: string) => SessionDates | undefined) | undefined;
  /** Only sessions whose working directory or project folder holds this text. */
  project?: string;
  /** Stops the search. */
  signal?: AbortSignal;
  /**
   * An index that tells a file's lines that can match without reading the file (the
   * catalog's): the lines it gives are judged as a scan's are; a file it cannot answer for is
   * scanned.
   */
  index?: SearchIndex | undefined;
  /**
   * The sessions of the sources a walk just found (the catalog's update): those it gives are
   * not walked again.
   */
  walked?: WalkedSources | undefined;
}

/** A session's own dates, from its records (ISO 8601), null when they name none. */
export interface SessionDates {
  /** Its first date. */
  firstAt: string | null;
  /** Its last date. */
  lastAt: string | null;
}

const msOf = (iso: string | null | undefined): number | null => {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? null : ms;
};

/**
 * Whether a session is in `since`..`until` by its own dates: its last on or after `since`, its
 * first on or before `until`; a date its records do not name is its file's last write (the
 * first, when `started` does not name it either).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inDateWindow } from "./mod.ts";
 * const dates = { firstAt: "2025-06-01T10:00:00Z", lastAt: "2025-06-02T10:00:00Z" };
 * // A file copied today: its time says today, its records say June 2025.
 * const modified = Date.parse("2026-12-06T00:00:00Z");
 * const since = Date.parse("2026-12-01T00:00:00Z");
 * assert.equal(inDateWindow({ modified, dates }, { since }), false);
 * assert.equal(inDateWindow({ modified, dates: undefined }, { since }), true);
 * ```
 */
export function inDateWindow(
  session: { modified: number; dates: SessionDates | undefined; started?: string | null },
  window: { since?: number | undefined; until?: number | undefined },
): boolean {
  const last = msOf(session.dates?.lastAt) ?? session.modified;
  const first = msOf(session.dates?.firstAt) ?? msOf(session.started) ?? session.modified;
  return (window.since === undefined || last >= window.since) &&
    (window.until === undefined || first <= window.until);
}

/** A line an index says can match: its text, where it starts, its number and its turn. */
export interface IndexedLine {
  /** The line's text, without its terminator. */
  text: string;
  /** Byte offset of its first byte. */
  offset: number;
  /** 1-based line number. */
  line: number;
  /** Its turn (0 before the first). */
  turn: number;
}

/** An index of the sessions' lines (the catalog's full-text index). */
export interface SearchIndex {
  /**
   * For a query of words, the lines of a file that can hold every term (a superset of those
   * that do, in order), or undefined for a file the index cannot answer for (it is scanned).
   */
  lookup(query: CompiledQuery): (path: string) => IndexedLine[] | undefined;
}

interface FileHits {
  hits: SearchHit[];
  skipped: SearchEvent[];
}

/**
 * Leaves out a piece a checkpoint wrote again (`again`) when an earlier hit of the file is the
 * same piece: the history it repeats was found where it was first written, as `inspect` shows
 * it once.
 */
function dropRepeats(found: { offset: number; piece: Piece }[]): void {
  const key = (piece: Piece) => JSON.stringify([piece.role, piece.tool ?? null, piece.text]);
  const seen = new Set<string>();
  let kept = 0;
  for (const hit of found) {
    const k = key(hit.piece);
    if (hit.piece.again && seen.has(k)) continue;
    seen.add(k);
    found[kept++] = hit;
  }
  found.length = kept;
}

/** The hits of one file, with line numbers and turns from a second, parse-free pass. */
async function searchFile(
  path: string,
  session: SourcedSession,
  profile: SearchProfile,
  query: CompiledQuery,
  buffer: ScanBuffer,
  indexed?: (path: string) => IndexedLine[] | undefined,
): Promise<FileHits> {
  const lines = indexed?.(path);
  if (lines !== undefined) return indexedHits(path, session, profile, query, lines);
  let head: string | undefined;
  const options = profile.inherited && path === session.path
    ? { headMarker: profile.inherited.marker, onHead: (text: string) => head = text }
    : {};
  const own = await searchLines(path, session, profile, query, buffer, options);
  if (head === undefined || !profile.inherited) return own;
  // A fork: the parts of the history it inherits come first, with their own files' lines.
  const { parts, missing } = await profile.inherited.parts(path, head);
  const before: FileHits = { hits: [], skipped: [] };
  if (missing !== null) {
    before.skipped.push({
      kind: "skipped",
      path,
      line: 1,
      reason: `its history is not all here (${missing}): searched without it`,
    });
  }
  for (const part of parts) {
    const found = await searchLines(part.path, session, profile, query, buffer, {}, part);
    before.hits.push(...found.hits);
    before.skipped.push(...found.skipped);
  }
  return { hits: [...before.hits, ...own.hits], skipped: [...before.skipped, ...own.skipped] };
}

/** Whether a candidate line of a part of another file is in the part. */
function inPart(part: InheritedPart | undefined, text: string, offset: number): boolean {
  if (part === undefined) return true;
  if (offset >= part.endByte) return false;
  try {
    const value = JSON.parse(text);
    return typeof value === "object" && value !== null && part.holds(value);
  } catch {
    return false;
  }
}

/** The hits of a file from the lines an index says can match, judged as a scan judges them. */
function indexedHits(
  path: string,
  session: SourcedSession,
  profile: SearchProfile,
  query: CompiledQuery,
  lines: IndexedLine[],
): FileHits {
  const found: { offset: number; piece: Piece }[] = [];
  const places = new Map<number, IndexedLine>();
  const bad: number[] = [];
  for (const candidate of lines) {
    places.set(candidate.offset, candidate);
    const piece = matchLine(candidate.text, profile, query);
    if (piece === "bad") bad.push(candidate.offset);
    else if (piece) found.push({ offset: candidate.offset, piece });
  }
  dropRepeats(found);
  const subagent = path === session.path ? null : basename(path).replace(/\.jsonl$/, "");
  const hits = found.map(({ offset, piece }): SearchHit => {
    const { line, turn } = places.get(offset)!;
    const where = { path, line, turn, sessionId: session.id, format: session.source.format };
    return hitOf(piece, query, { ...where, subagent });
  });
  const skipped = bad.map((offset): SearchEvent => ({
    kind: "skipped",
    path,
    line: places.get(offset)!.line,
    reason: "not a JSON line, skipped",
  }));
  return { hits, skipped };
}

async function searchLines(
  path: string,
  session: SourcedSession,
  profile: SearchProfile,
  query: CompiledQuery,
  buffer: ScanBuffer,
  options: CandidateOptions,
  part?: InheritedPart,
): Promise<FileHits> {
  const found: { offset: number; piece: Piece }[] = [];
  const bad: number[] = [];
  for await (const candidate of candidateLines(path, query, buffer, options)) {
    if (part !== undefined && candidate.offset >= part.endByte) break;
    const piece = matchLine(candidate.text, profile, query);
    if (piece === "bad") {
      if (part === undefined) bad.push(candidate.offset);
    } else if (piece && inPart(part, candidate.text, candidate.offset)) {
      found.push({ offset: candidate.offset, piece });
    }
  }
  dropRepeats(found);
  const offsets = [...found.map((f) => f.offset), ...bad].sort((a, b) => a - b);
  const places = await placeLines(path, offsets, profile.turns(), buffer);
  const subagent = path === session.path || part !== undefined
    ? null
    : basename(path).replace(/\.jsonl$/, "");
  const hits = found.map(({ offset, piece }): SearchHit => {
    const place = places.get(offset) ?? { line: 0, turn: 0 };
    const where = { path, ...place, sessionId: session.id, format: session.source.format };
    return hitOf(piece, query, { ...where, subagent });
  });
  const skipped = bad.map((offset): SearchEvent => ({
    kind: "skipped",
    path,
    line: places.get(offset)?.line ?? null,
    reason: "not a JSON line, skipped",
  }));
  return { hits, skipped };
}

async function summaryOf(session: SourcedSession): Promise<SessionSummary> {
  const profile = searchProfile(session.source.format);
  const head = await profile.head(session).catch(() => undefined);
  return {
    id: session.id,
    shortId: session.shortId,
    format: session.source.format,
    tool: session.source.archived ? `${profile.tool} (only in the archive)` : profile.tool,
    continuedBy: profile.continuedBy,
    path: session.path,
    source: session.source,
    project: session.project,
    cwd: head?.cwd ?? null,
    started: head?.started ?? null,
    // isoTime: toISOString's text without V8's first date set-up (about 1 ms of a search).
    modified: session.modified > 0 ? isoTime(session.modified) : null,
    firstPrompt: head?.firstPrompt ?? null,
    title: head?.title ?? null,
  };
}

function inProject(summary: SessionSummary, project: string): boolean {
  const wanted = project.toLowerCase();
  return [summary.cwd, summary.project].some((place) =>
    place?.toLowerCase().includes(wanted) ||
    place?.toLowerCase().includes(wanted.replaceAll("/", "-"))
  );
}

function unreadable(path: string, error: unknown): SearchEvent {
  const why = error instanceof Error ? error.message.replace(/:.*$/s, "") : String(error);
  return { kind: "skipped", path, line: null, reason: `cannot be read (${why}), skipped` };
}

/** The events of one session: its skipped lines and files, then its hits if it has any. */
async function* searchSession(
  session: SourcedSession,
  query: CompiledQuery,
  project: string | undefined,
  buffer: ScanBuffer,
  indexed?: (path: string) => IndexedLine[] | undefined,
): AsyncGenerator<SearchEvent> {
  const summary = project === undefined ? undefined : await summaryOf(session);
  if (summary && project !== undefined && !inProject(summary, project)) return;
  const profile = searchProfile(session.source.format);
  const hits: SearchHit[] = [];
  for (const path of [session.path, ...session.subagents]) {
    try {
      const found = await searchFile(path, session, profile, query, buffer, indexed);
      yield* found.skipped;
      hits.push(...found.hits);
    } catch (error) {
      yield unreadable(path, error);
    }
  }
  if (hits.length > 0) {
    yield { kind: "session", session: summary ?? await summaryOf(session), hits };
  }
}

/**
 * Searches the conversations of every session of the sources (user and assistant text, tool
 * call inputs, tool outputs, compaction summaries; not metadata, progress or hook lines) for
 * lines that hold every term, case-insensitively. Sessions come by their own start, newest
 * first (those whose records name none last; a database's after the folders'), each as soon as
 * no session still to read can be newer; a subagent's lines belong to its session. A line that
 * is not JSON, or a file that cannot be read, is a `skipped` event and the search goes on.
 *
 * @throws {SearchQueryError} for a query that cannot run
 *
 * @example
 * ```ts ignore
 * for await (const event of searchSessions({ terms: ["tokenizer"] }, { limit: 10 })) {
 *   if (event.kind === "session") console.log(event.session.shortId, event.hits.length);
 * }
 * ```
 */
export async function* searchSessions(
  query: SearchQuery | CompiledQuery,
  options: SearchOptions = {},
): AsyncGenerator<SearchEvent> {
  const compiled = "tests" in query ? query : compileQuery(query);
  const sources = Array.isArray(options.sources)
    ? options.sources as readonly SearchSource[]
    : await searchSources(options.sources as SourceChoice | undefined);
  const window = { since: options.since?.getTime(), until: options.until?.getTime() };
  const datesOf = (path: string) => options.dates?.(path);
  const limit = options.limit ?? Infinity;
  const buffer = scanBuffer();
  const inStore = (source: SearchSource) =>
    source.store !== undefined || isPostgresUrl(source.root);
  const folders = sources.filter((source) => !inStore(source));
  const databases = sources.filter(inStore);
  // The index knows words: a pattern (or a query compiled before) is scanned.
  const words = !("tests" in query) && query.regex === undefined;
  const indexed = words ? options.index?.lookup(compiled) : undefined;
  const given = { count: 0 };
  const emit = function* (event: SearchEvent): Generator<SearchEvent, boolean> {
    if (event.kind === "session" && given.count >= limit) {
      yield { kind: "limit", limit };
      return false;
    }
    if (event.kind === "session") given.count++;
    yield event;
    return true;
  };
  // Files are read newest written first, and each session's hits held until no session still
  // to read can have started after it: a session starts before its file's last write, so one
  // that started at or after the next file's time is newer than all that are left.
  // By the sessions' own dates where known; `until` without them waits for the head's start.
  const sessions = (await sessionsOf(folders, options.walked)).filter((session) => {
    const dates = datesOf(session.path);
    const known = dates === undefined ? { since: window.since } : window;
    return inDateWindow({ modified: session.modified, dates }, known);
  });
  const held: Extract<SearchEvent, { kind: "session" }>[] = [];
  const release = function* (until: number): Generator<SearchEvent, boolean> {
    held.sort((a, b) => newestSessionFirst(a.session, b.session));
    while (held.length > 0 && (sessionTime(held[0]!.session) ?? -Infinity) >= until) {
      if (!(yield* emit(held.shift()!))) return false;
    }
    return true;
  };
  for (const [at, session] of sessions.entries()) {
    for await (
      const event of searchSession(session, compiled, options.project, buffer, indexed)
    ) {
      if (options.signal?.aborted) return;
      if (event.kind === "session") {
        const dated = {
          modified: session.modified,
          dates: datesOf(session.path),
          started: event.session.started,
        };
        if (inDateWindow(dated, window)) held.push(event);
      } else if (!(yield* emit(event))) return;
    }
    if (!(yield* release(sessions[at + 1]?.modified ?? -Infinity))) return;
  }
  // Everything held, what names no start last.
  if (!(yield* release(-Infinity))) return;
  for (const source of databases) {
    // Imported for a database alone: a search of files loads no store.
    const { searchDatabase } = await databaseModule();
    for await (const event of searchDatabase(source, compiled, options)) {
      if (options.signal?.aborted) return;
      if (!(yield* emit(event))) return;
    }
  }
}
