/**
 * The browser's list: the sessions of turnlog's store and of every home, newest first by the
 * last write of their files, in pages of a bounded size behind a cursor; a page's sessions in
 * the order of their own last records. Every session is
 * known from names and a `stat` alone; only the sessions of the page asked for are opened,
 * each for its head (the prompt, the project, the first time) and a bounded tail (the last
 * time). Turns and health come from a full read when one told them (a session's page, or
 * the reads the browser makes after answering).
 *
 * @module
 */
import type { BrowsedPage, BrowsedSession } from "../html/mod.ts";
import { uniquePrefixes } from "../search/mod.ts";
import {
  type ListedSession,
  type SessionLocation,
  type SessionStore,
  walkSessions,
} from "../store/mod.ts";
import {
  lastFieldOf,
  type ListedForeignSession,
  PREVIEW_HEAD_BYTES,
  turnlogAdapter,
  TurnlogHeadReader,
} from "../formats/mod.ts";
import { oneLine } from "../text/mod.ts";
import {
  type Catalog,
  type CatalogSession,
  type CatalogSource,
  rankByOwnDates,
} from "../catalog/mod.ts";
import { type BrowseHome, type FactsMemo, homeTool } from "./_homes.ts";

/** A file written to within this many milliseconds is said to be being written. */
export const WRITING_MS = 60_000;

/** How far a file's last write may be from its last record's time for them to be one write. */
const SAME_WRITE_MS = 5 * 60_000;

/**
 * Whether a session is being written: its file changed a moment ago, and that change wrote
 * its last record (a file copied, touched or restored a moment ago has old records: it is not
 * being written). With no time in the file, the file's change alone tells.
 */
export function beingWritten(modifiedMs: number, lastAt: string | null, now: number): boolean {
  if (!(modifiedMs > 0 && now - modifiedMs < WRITING_MS)) return false;
  const last = timeOf(lastAt);
  return last === 0 || Math.abs(modifiedMs - last) < SAME_WRITE_MS;
}

/** A session known from names and a `stat`: where it is and when its file was last written. */
type Candidate =
  & { key: string; time: number; id: string; sizeBytes: number }
  & (
    | { kind: "store"; location: SessionLocation; listed?: ListedSession }
    | { kind: "home"; home: BrowseHome; found: ListedForeignSession }
  );

/** A time of an ISO string, 0 when there is none. */
function timeOf(iso: string | null | undefined): number {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

async function storeCandidates(store: SessionStore): Promise<Candidate[]> {
  if (store.folder === undefined) {
    // A database keeps no files to stat: its own newest sessions, by creation.
    const listing = await store.list({ limit: 500 });
    return listing.sessions.map((listed) => ({
      kind: "store",
      key: listed.path,
      time: timeOf(listed.created),
      id: listed.id,
      sizeBytes: listed.sizeBytes,
      location: { id: listed.id, path: listed.path, createdAt: listed.created },
      listed,
    }));
  }
  const found: Candidate[] = [];
  for await (const location of walkSessions(store.folder)) {
    const info = await Deno.stat(location.path).catch(() => undefined);
    if (info === undefined) continue;
    const time = info.mtime?.getTime() ?? timeOf(location.createdAt);
    found.push({
      kind: "store",
      key: location.path,
      time,
      id: location.id,
      sizeBytes: info.size,
      location,
    });
  }
  return found;
}

async function homeCandidates(home: BrowseHome): Promise<Candidate[]> {
  const listing = await home.adapter.list(home.root, { limit: Infinity, heads: false });
  return listing.sessions.map((found) => ({
    kind: "home",
    key: found.path,
    time: timeOf(found.modified) || timeOf(found.created),
    id: found.id,
    sizeBytes: found.sizeBytes,
    home,
    found,
  }));
}

/** Newest first; the path breaks ties, so a cursor is a place in one order. */
function newestFirst(a: Candidate, b: Candidate): number {
  return b.time - a.time || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);
}

/** A cursor: the time and key of the last session of the page before. */
export function cursorOf(time: number, key: string): string {
  return `${time}:${key}`;
}

function afterCursor(all: Candidate[], cursor: string | undefined): Candidate[] {
  if (cursor === undefined) return all;
  const at = cursor.indexOf(":");
  const time = Number(cursor.slice(0, at));
  const key = cursor.slice(at + 1);
  if (at === -1 || !Number.isFinite(time)) return all;
  const mark = { time, key } as Candidate;
  return all.filter((candidate) => newestFirst(mark, candidate) < 0);
}

/** What the browser lists, and what it knows of files already read whole. */
export interface CatalogOptions {
  /** turnlog's store. */
  store: SessionStore;
  /** Other tools' homes. */
  homes: readonly BrowseHome[];
  /** Turns and health told by full reads. */
  facts: FactsMemo;
  /** Sessions on a page. */
  pageSize: number;
  /** The cursor of the page: after which session it starts; absent: the first page. */
  cursor?: string | undefined;
  /** The time now, in ms (for "being written"). @default {Date.now()} */
  now?: number;
  /**
   * The catalog to answer from (brought up to date first): every session with its turns and
   * health, in one order by the sessions' own dates across pages. Absent: files and heads.
   */
  catalog?: Catalog | undefined;
}

/** One page of the list: which sessions, their rows, and the cursor of the next page. */
export async function browsePage(options: CatalogOptions): Promise<BrowsedPage> {
  if (options.catalog !== undefined) return await catalogPage(options, options.catalog);
  const { store, homes } = options;
  const unread: string[] = [];
  const orSay = async (place: string, candidates: Promise<Candidate[]>) => {
    try {
      return await candidates;
    } catch (error) {
      unread.push(`${place} cannot be read: ${error instanceof Error ? error.message : error}`);
      return [];
    }
  };
  const all = (await Promise.all([
    orSay(store.name, storeCandidates(store)),
    ...homes.map((home) => orSay(home.root, homeCandidates(home))),
  ])).flat().sort(newestFirst);
  const prefixes = uniquePrefixes(all.map((candidate) => candidate.id));
  const rest = afterCursor(all, options.cursor);
  const page = rest.slice(0, options.pageSize);
  const now = options.now ?? Date.now();
  const rows = await Promise.all(
    page.map((candidate) => rowOf(candidate, options, prefixes.get(candidate.id), now)),
  );
  // The page's sessions by their own last record, as the terminal's listing orders them (a
  // copied home's files all have the minute of the copy); a session that names no time (a
  // Claude Code file of file-history lines only) goes last, by its file's time: its file's
  // time would pull its project above newer ones.
  const times = new Map(page.map((candidate, i) => [rows[i]!, candidate.time]));
  const dateOf = (row: BrowsedSession) => timeOf(row.lastAt) || timeOf(row.firstAt);
  const sessions = rows.sort((a, b) =>
    Number(dateOf(a) === 0) - Number(dateOf(b) === 0) || dateOf(b) - dateOf(a) ||
    times.get(b)! - times.get(a)!
  );
  const last = page.at(-1);
  const next = rest.length > page.length && last
    ? `/?after=${encodeURIComponent(cursorOf(last.time, last.key))}`
    : null;
  const places = [
    { tool: turnlogAdapter.tool, root: store.name },
    ...homes.map((home) => ({ tool: homeTool(home), root: home.root })),
  ];
  const first = options.cursor === undefined;
  return { sessions, next, first, places, total: all.length, unread };
}

function rowOf(
  candidate: Candidate,
  options: CatalogOptions,
  shortId: string | undefined,
  now: number,
): Promise<BrowsedSession> {
  const base = {
    id: candidate.id,
    shortId: shortId ?? candidate.id,
    sizeBytes: candidate.sizeBytes,
    writing: false,
  };
  const facts = options.facts.get(candidate.key, candidate.sizeBytes);
  const row = candidate.kind === "store"
    ? storeRow(options.store, candidate, base, facts ?? null)
    : homeRow(candidate, base, facts ?? null);
  return row.then((read) => ({ ...read, writing: beingWritten(candidate.time, read.lastAt, now) }));
}

type RowBase = Pick<BrowsedSession, "id" | "shortId" | "sizeBytes" | "writing">;

async function homeRow(
  candidate: Candidate & { kind: "home" },
  base: RowBase,
  facts: { turns: number; healthy: boolean } | null,
): Promise<BrowsedSession> {
  const { adapter } = candidate.home;
  const row = {
    ...base,
    tool: homeTool(candidate.home),
    format: adapter.name,
    path: candidate.found.path,
    turns: facts?.turns ?? null,
  };
  try {
    const listed = await adapter.preview(candidate.found);
    return {
      ...row,
      project: listed.project ?? listed.cwd,
      projectLabel: listed.cwd,
      firstAt: listed.firstAt ?? listed.created,
      lastAt: listed.lastAt ?? null,
      prompt: listed.title ?? listed.preview,
      healthy: facts?.healthy ?? null,
    };
  } catch (error) {
    const unreadable = error instanceof Error ? error.message : String(error);
    return {
      ...row,
      project: candidate.found.project,
      projectLabel: candidate.found.project,
      firstAt: null,
      lastAt: null,
      prompt: null,
      healthy: null,
      unreadable,
    };
  }
}

/** What a stored session's head tells: its first record's time, its cwd, its first prompt. */
interface StoredHead {
  firstAt: string | null;
  cwd: string | null;
  prompt: string | null;
}

/**
 * Reads a stored session's first records, up to its first user message and never past the
 * head (`PREVIEW_HEAD_BYTES` of a file, as many records of a database).
 */
async function storedHead(store: SessionStore, location: SessionLocation): Promise<StoredHead> {
  const reader = new TurnlogHeadReader();
  let records = 0;
  for await (const entry of store.read(location)) {
    const done = entry.record !== undefined && reader.see(entry.record);
    if (done || ++records >= 1000 || entry.end >= PREVIEW_HEAD_BYTES) break;
  }
  const { firstAt, cwd, firstPrompt } = reader.head;
  return { firstAt, cwd, prompt: firstPrompt };
}

async function storeRow(
  store: SessionStore,
  candidate: Candidate & { kind: "store" },
  base: RowBase,
  facts: { turns: number; healthy: boolean } | null,
): Promise<BrowsedSession> {
  const { location, listed } = candidate;
  const file = store.fileOf(location);
  const row = {
    ...base,
    tool: turnlogAdapter.tool,
    format: turnlogAdapter.name,
    path: file ?? null,
    turns: facts?.turns ?? listed?.turns ?? null,
    healthy: facts?.healthy ?? null,
  };
  try {
    const head = await storedHead(store, location);
    const prompt = head.prompt ?? listed?.firstUserMessage ?? null;
    return {
      ...row,
      project: head.cwd,
      projectLabel: head.cwd,
      firstAt: head.firstAt ?? location.createdAt,
      lastAt: file === undefined ? null : await lastFieldOf(file) ?? null,
      prompt: prompt === null ? null : oneLine(prompt, 500),
    };
  } catch (error) {
    const unreadable = error instanceof Error ? error.message : String(error);
    const empty = { project: null, projectLabel: null, lastAt: null, prompt: null };
    return { ...row, ...empty, firstAt: location.createdAt, unreadable };
  }
}

/** A session's row of the list, from what the catalog holds. */
function catalogRow(
  session: CatalogSession,
  tool: string,
  shortId: string | undefined,
  now: number,
): BrowsedSession {
  const prompt = session.title ?? session.firstPrompt;
  return {
    id: session.id,
    shortId: shortId ?? session.id,
    tool,
    format: session.format,
    project: session.project ?? session.cwd,
    projectLabel: session.cwd,
    firstAt: session.firstAt,
    lastAt: session.lastAt,
    prompt: prompt === null ? null : oneLine(prompt, 500),
    turns: session.turns,
    sizeBytes: session.sizeBytes,
    path: session.path,
    healthy: session.healthy,
    writing: beingWritten(session.modified, session.lastAt, now),
    ...(session.unreadable === null ? {} : { unreadable: session.unreadable }),
  };
}

/**
 * The catalog's sources of a browser's places, each with the tool its sessions are listed
 * under: the store's folder (a database has none) and the homes.
 */
export function catalogSourcesOf(
  store: SessionStore,
  homes: readonly BrowseHome[],
): (CatalogSource & { tool: string })[] {
  return [
    ...(store.folder === undefined
      ? []
      : [{ format: turnlogAdapter.name, root: store.folder, tool: turnlogAdapter.tool }]),
    ...homes.map((home) => ({
      format: home.adapter.name,
      root: home.root,
      archived: home.archived,
      tool: homeTool(home),
    })),
  ];
}

/**
 * One page of the list from the catalog, brought up to date for the store's folder and the
 * homes first: every session's turns and health known, one order by the sessions' own dates
 * across pages. A store without a folder (a database) is listed as without the catalog.
 */
async function catalogPage(options: CatalogOptions, catalog: Catalog): Promise<BrowsedPage> {
  const { store, homes } = options;
  const unread: string[] = [];
  const sources = catalogSourcesOf(store, homes);
  for (const { root, reason } of (await catalog.update(sources, { text: false })).unread) {
    unread.push(`${root} cannot be read: ${reason}`);
  }
  const tools = new Map(sources.map((source) => [source.root, source.tool]));
  // A home's sessions are those its tool's listing has (names alone), as the catalog knows them.
  const listed = new Set<string>();
  await Promise.all(homes.map(async (home) => {
    const names = await home.adapter.list(home.root, { limit: Infinity, heads: false })
      .catch(() => ({ sessions: [] }));
    for (const session of names.sessions) listed.add(session.path);
  }));
  const homeRoots = new Set(homes.map((home) => home.root));
  const kept = catalog.sessions(sources).filter((session) =>
    !homeRoots.has(session.root) || listed.has(session.path)
  );
  const ranked = kept.map((session) => ({
    session,
    time: rankByOwnDates(session),
    key: session.path,
  }));
  const fromDatabase = store.folder === undefined
    ? await storeCandidates(store).catch((error) => {
      unread.push(
        `${store.name} cannot be read: ${error instanceof Error ? error.message : error}`,
      );
      return [];
    })
    : [];
  const all: (Candidate | (typeof ranked)[number])[] = [...ranked, ...fromDatabase];
  all.sort((a, b) => newestFirst(a as Candidate, b as Candidate));
  const prefixes = uniquePrefixes(all.map((item) => "session" in item ? item.session.id : item.id));
  const rest = afterCursor(all as Candidate[], options.cursor) as typeof all;
  const page = rest.slice(0, options.pageSize);
  const now = options.now ?? Date.now();
  const sessions = await Promise.all(
    page.map((item) =>
      "session" in item
        ? catalogRow(
          item.session,
          tools.get(item.session.root)!,
          prefixes.get(item.session.id),
          now,
        )
        : rowOf(item, options, prefixes.get(item.id), now)
    ),
  );
  const last = page.at(-1);
  const next = rest.length > page.length && last
    ? `/?after=${encodeURIComponent(cursorOf(last.time, last.key))}`
    : null;
  const places = [
    { tool: turnlogAdapter.tool, root: store.name },
    ...homes.map((home) => ({ tool: homeTool(home), root: home.root })),
  ];
  const first = options.cursor === undefined;
  return { sessions, next, first, places, total: all.length, unread };
}
