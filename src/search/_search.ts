/**
 * The search: every session of the sources, most recently written first, each file streamed
 * through the byte prefilter, the few lines that can match parsed and checked against the
 * conversation they hold; a session's hits come out as soon as its files are read.
 *
 * @module
 */
import { basename } from "node:path";
import { isPostgresUrl, storeName } from "../store/mod.ts";
import type { Json } from "../formats/_line.ts";
import type { SessionFormat } from "../formats/mod.ts";
import { type CompiledQuery, compileQuery, matchAll, type SearchQuery } from "./_query.ts";
import type { HitRole, Piece, SearchProfile } from "./_profile.ts";
import { SEARCH_PROFILES } from "./_profiles.ts";
import { candidateLines, placeLines, scanBuffer } from "./_scan.ts";
import type { ScanBuffer } from "./_simd.ts";
import { snippetOf } from "./_snippet.ts";
import {
  type SearchSource,
  searchSources,
  sessionsOf,
  type SourceChoice,
  type SourcedSession,
} from "./_sources.ts";

/** One line whose conversation holds every term. */
export interface SearchHit {
  /** The file the line is in (a subagent's transcript, for a subagent's line). */
  path: string;
  /** 1-based line number in that file. */
  line: number;
  /** The turn of that file the line is in (its prompts counted from the start), 0 before one. */
  turn: number;
  /** Who said the matching piece. */
  role: HitRole;
  /** The tool called, when the piece is a call or an output that names it. */
  tool: string | null;
  /** The session's id. */
  sessionId: string;
  /** The session's format. */
  format: SessionFormat;
  /** The subagent transcript's name (`agent-…`), when the line is a subagent's. */
  subagent: string | null;
  /** The text around the first match, on one line (raw: escape it before printing). */
  snippet: string;
  /** The matches in `snippet`, as `[start, end)` ranges. */
  marks: [number, number][];
}

/** A session with hits, as a result shows it. */
export interface SessionSummary {
  /** The session id. */
  id: string;
  /** Its shortest unique prefix in its source (at least 8 characters). */
  shortId: string;
  /** Its format. */
  format: SessionFormat;
  /** The tool that wrote it, for people. */
  tool: string;
  /** What continues it: `resume` (turnlog's own), or `import` into turnlog first. */
  continuedBy: "resume" | "import";
  /** Its file. */
  path: string;
  /** Where it was found. */
  source: SearchSource;
  /** The project folder it is filed under (Claude Code), else null. */
  project: string | null;
  /** Its working directory, from its records. */
  cwd: string | null;
  /** Its start, from its records. */
  started: string | null;
  /** When its files were last written (ISO 8601). */
  modified: string | null;
  /** Its first prompt, on one line. */
  firstPrompt: string | null;
  /** A title the file gives it. */
  title: string | null;
}

/** What a search yields, as it goes. */
export type SearchEvent =
  | { kind: "session"; session: SessionSummary; hits: SearchHit[] }
  | { kind: "skipped"; path: string; line: number | null; reason: string }
  | { kind: "limit"; limit: number };

/** Options of {@linkcode searchSessions}. */
export interface SearchOptions {
  /** Where to look (see {@linkcode searchSources}). @default {every source} */
  sources?: readonly SearchSource[] | SourceChoice;
  /** Sessions with hits given at most; a `limit` event says when more may match. */
  limit?: number;
  /** Only sessions written on or after this time. */
  since?: Date;
  /** Only sessions whose working directory or project folder holds this text. */
  project?: string;
  /** Stops the search. */
  signal?: AbortSignal;
}

interface FileHits {
  hits: SearchHit[];
  skipped: SearchEvent[];
}

function pieceHit(pieces: Piece[], query: CompiledQuery): Piece | undefined {
  if (!matchAll(query, pieces.map((piece) => piece.text))) return undefined;
  return pieces.find((piece) => query.tests.some((test) => test.test(piece.text)));
}

/** The hits of one file, with line numbers and turns from a second, parse-free pass. */
async function searchFile(
  path: string,
  session: SourcedSession,
  profile: SearchProfile,
  query: CompiledQuery,
  buffer: ScanBuffer,
): Promise<FileHits> {
  const found: { offset: number; piece: Piece }[] = [];
  const bad: number[] = [];
  for await (const candidate of candidateLines(path, query, buffer)) {
    let value: unknown;
    try {
      value = JSON.parse(candidate.text);
    } catch {
      bad.push(candidate.offset);
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const piece = pieceHit(profile.pieces(value as Json), query);
    if (piece) found.push({ offset: candidate.offset, piece });
  }
  const offsets = [...found.map((f) => f.offset), ...bad].sort((a, b) => a - b);
  const places = await placeLines(path, offsets, profile.turns(), buffer);
  const subagent = path === session.path ? null : basename(path).replace(/\.jsonl$/, "");
  const hits = found.map(({ offset, piece }): SearchHit => {
    const place = places.get(offset) ?? { line: 0, turn: 0 };
    const { text, marks } = snippetOf(piece.text, query);
    return {
      path,
      line: place.line,
      turn: place.turn,
      role: piece.role,
      tool: piece.tool ?? null,
      sessionId: session.id,
      format: session.source.format,
      subagent,
      snippet: text,
      marks,
    };
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
  const profile = SEARCH_PROFILES[session.source.format];
  const head = await profile.head(session).catch(() => undefined);
  return {
    id: session.id,
    shortId: session.shortId,
    format: session.source.format,
    tool: profile.tool,
    continuedBy: profile.continuedBy,
    path: session.path,
    source: session.source,
    project: session.project,
    cwd: head?.cwd ?? null,
    started: head?.started ?? null,
    modified: session.modified > 0 ? new Date(session.modified).toISOString() : null,
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
): AsyncGenerator<SearchEvent> {
  const summary = project === undefined ? undefined : await summaryOf(session);
  if (summary && project !== undefined && !inProject(summary, project)) return;
  const profile = SEARCH_PROFILES[session.source.format];
  const hits: SearchHit[] = [];
  for (const path of [session.path, ...session.subagents]) {
    try {
      const found = await searchFile(path, session, profile, query, buffer);
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
 * lines that hold every term, case-insensitively. Sessions come most recently written first,
 * each as soon as its files are read; a subagent's lines belong to its session. A line that
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
  for (const source of sources.filter((source) => isPostgresUrl(source.root))) {
    yield {
      kind: "skipped",
      path: storeName(source.root),
      line: null,
      reason: "a database store is not searched (inspect --export brings a session out)",
    };
  }
  const since = options.since?.getTime() ?? 0;
  let given = 0;
  const buffer = scanBuffer();
  for (const session of await sessionsOf(sources.filter((s) => !isPostgresUrl(s.root)))) {
    if (options.signal?.aborted) return;
    if (session.modified < since) continue;
    if (options.limit !== undefined && given >= options.limit) {
      yield { kind: "limit", limit: options.limit };
      return;
    }
    for await (const event of searchSession(session, compiled, options.project, buffer)) {
      if (event.kind === "session") given++;
      yield event;
    }
  }
}
