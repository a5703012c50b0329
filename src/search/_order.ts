/**
 * The order of a search's sessions: by their own start (from their records), newest first; a
 * session whose records name no time (a Claude Code file of file-history lines only) last. Not
 * by file time: a copied or restored home's files all have the minute of the copy. One
 * function, for the search that reads files and for any that answers from an index.
 *
 * @module
 */

/** What the order looks at: the session's start from its records, and its file (for ties). */
export interface DatedSession {
  /** Its start, from its records (ISO 8601), or null when they name none. */
  started: string | null;
  /** Its file. */
  path: string;
}

/** A session's start in ms since the epoch, or null when it has none that reads as a time. */
export function sessionTime(session: Pick<DatedSession, "started">): number | null {
  const time = session.started === null ? NaN : Date.parse(session.started);
  return Number.isNaN(time) ? null : time;
}

/**
 * Compares two sessions for a search's results: the one that started later first, sessions
 * without a start last, ties by path (so the order is the same every time).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newestSessionFirst } from "./mod.ts";
 * const sessions = [
 *   { started: null, path: "/h/metadata-only.jsonl" },
 *   { started: "2026-01-02T10:00:00Z", path: "/h/b.jsonl" },
 *   { started: "2026-03-01T09:00:00Z", path: "/h/a.jsonl" },
 * ];
 * assert.deepEqual(sessions.sort(newestSessionFirst).map((s) => s.path), [
 *   "/h/a.jsonl",
 *   "/h/b.jsonl",
 *   "/h/metadata-only.jsonl",
 * ]);
 * ```
 */
export function newestSessionFirst(a: DatedSession, b: DatedSession): number {
  const at = sessionTime(a);
  const bt = sessionTime(b);
  if (at === null || bt === null) {
    if (at !== bt) return at === null ? 1 : -1;
  } else if (at !== bt) return bt - at;
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
