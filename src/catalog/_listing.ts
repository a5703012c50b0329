/**
 * A home's listing from the catalog: every session in one order by its own dates (the last,
 * else the first), newest first, those that name none last by their files' time; each with
 * what a listing from the heads shows, and its turns and verdict.
 *
 * @module
 */
import type { ForeignListing, ListedForeignSession } from "../formats/mod.ts";
import type { CatalogSession, ListingSession } from "./_catalog.ts";
import { isoTime } from "../text/mod.ts";

function timeOf(iso: string | null): number {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/**
 * Where a session sits in the catalog's order: its own last (else first) date; a session that
 * names none below every dated one, by its files' last write.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rankByOwnDates } from "./mod.ts";
 * const dated = rankByOwnDates({ lastAt: "2026-01-02T00:00:00Z", firstAt: null, modified: 9e12 });
 * const dateless = rankByOwnDates({ lastAt: null, firstAt: null, modified: 9e12 });
 * assert.equal(dated > dateless, true);
 * ```
 */
export function rankByOwnDates(
  session: Pick<CatalogSession, "lastAt" | "firstAt" | "modified">,
): number {
  const date = timeOf(session.lastAt) || timeOf(session.firstAt);
  return date > 0 ? date : session.modified - 1e14;
}

interface Ranked {
  rank: number;
  path: string;
}

/** Newest first by rank, the path breaking ties. */
const newestFirst = (a: Ranked, b: Ranked): number =>
  b.rank - a.rank || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0);

/** Sessions newest first by {@linkcode rankByOwnDates}, the path breaking ties. */
export function byOwnDates(a: CatalogSession, b: CatalogSession): number {
  return newestFirst(
    { rank: rankByOwnDates(a), path: a.path },
    { rank: rankByOwnDates(b), path: b.path },
  );
}

/** A session of the catalog as a listing shows it. */
function listed(session: ListingSession): ListedForeignSession {
  return {
    format: session.format,
    id: session.id,
    path: session.path,
    created: session.firstAt,
    // The session file's own, as the listing from the files gives it (its size is its own too).
    modified: session.fileModified > 0 ? isoTime(session.fileModified) : null,
    sizeBytes: session.sizeBytes,
    project: session.project,
    // Another tool's first prompt is kept as its listing's preview: shown as it is.
    preview: session.firstPrompt,
    title: session.title,
    cwd: session.cwd,
    gitBranch: null,
    model: session.models[0] ?? null,
    firstAt: session.firstAt,
    lastAt: session.lastAt,
    turns: session.turns,
    verdict: session.unreadable === null ? session.verdict : "cannot be read",
  };
}

/**
 * The listing of a root's sessions from the catalog (its `listing` of that root, or its
 * `sessions`), newest first by their own dates, at most `limit`.
 */
export function catalogListing(
  format: string,
  root: string,
  sessions: readonly ListingSession[],
  limit: number,
): ForeignListing {
  // Each session's rank once, not twice a comparison (two dates parsed each time).
  const ranked = sessions.map((session) => ({
    session,
    rank: rankByOwnDates(session),
    path: session.path,
  }));
  ranked.sort(newestFirst);
  const sorted = ranked.map(({ session }) => session);
  return {
    format,
    root,
    sessions: sorted.slice(0, limit).map(listed),
    more: sorted.length > limit,
  };
}
