/**
 * A search of turnlog's store in a database (`--store postgres://...`): every session of its
 * listing, newest first, its records read in order; a record's stored text passes the same
 * prefilter as a file's line (its fragments, case-insensitively) before it is parsed.
 *
 * @module
 */
import { errorMessage } from "../errors/mod.ts";
import { openStore, type SessionStore, storeName } from "../store/mod.ts";
import type { CompiledQuery } from "./_query.ts";
import { hitOf, matchLine } from "./_hits.ts";
import { searchProfile } from "./_profiles.ts";
import type { SearchSource } from "./_sources.ts";
import type { SearchEvent, SearchHit, SessionSummary } from "./_types.ts";

/** What narrows a database's sessions. */
export interface DatabaseOptions {
  /** Only sessions created on or after this time. */
  since?: Date;
  /** Only sessions created on or before this time. */
  until?: Date;
  /** Only sessions whose working directory holds this text. */
  project?: string;
}

type Listed = Awaited<ReturnType<SessionStore["list"]>>["sessions"][number];

const locationOf = (listed: Listed) => ({
  id: listed.id,
  path: listed.path,
  createdAt: listed.created,
});

/** The working directory its `session_meta` names. */
async function cwdOf(store: SessionStore, listed: Listed): Promise<string | null> {
  const head = await store.head(locationOf(listed));
  return head?.record?.type === "session_meta" ? head.record.payload.cwd : null;
}

/** A hit session's summary: its source without the open store (a summary is JSON data). */
function summaryOf(
  { store: _store, ...source }: SearchSource,
  listed: Listed,
  cwd: string | null,
): SessionSummary {
  const profile = searchProfile(source.format);
  return {
    id: listed.id,
    shortId: listed.shortId,
    format: source.format,
    tool: profile.tool,
    continuedBy: profile.continuedBy,
    path: listed.path,
    source,
    project: null,
    cwd,
    started: listed.created,
    modified: null,
    firstPrompt: listed.firstUserMessage,
    title: null,
  };
}

async function sessionHits(
  store: SessionStore,
  source: SearchSource,
  listed: Listed,
  query: CompiledQuery,
): Promise<SearchHit[]> {
  const location = locationOf(listed);
  const profile = searchProfile(source.format);
  const turns = profile.turns();
  const hits: SearchHit[] = [];
  for await (const entry of store.read(location)) {
    const turn = turns.turnOf(entry.text);
    const lower = query.fragments.length === 0 ? "" : entry.text.toLowerCase();
    if (!query.fragments.every((fragment) => lower.includes(fragment))) continue;
    const piece = matchLine(entry.text, profile, query);
    if (piece === undefined || piece === "bad") continue;
    const where = { path: listed.path, line: entry.line, turn, sessionId: listed.id };
    hits.push(hitOf(piece, query, { ...where, format: source.format, subagent: null }));
  }
  return hits;
}

/**
 * The events of a store's sessions (a database's, or the open store a source carries), newest
 * first, each once its records are read.
 */
export async function* searchDatabase(
  source: SearchSource,
  query: CompiledQuery,
  options: DatabaseOptions = {},
): AsyncGenerator<SearchEvent> {
  const store = source.store ?? await openStore(source.root);
  try {
    let listing;
    try {
      listing = await store.list({ limit: Number.MAX_SAFE_INTEGER });
    } catch (error) {
      const name = storeName(source.root);
      const reason = `${errorMessage(error).replace(` at ${name}`, "")}, skipped`;
      yield { kind: "skipped", path: name, line: null, reason };
      return;
    }
    const since = options.since?.toISOString() ?? "";
    const until = options.until?.toISOString();
    const project = options.project?.toLowerCase();
    for (const listed of listing.sessions) {
      if (listed.created < since) continue;
      if (until !== undefined && listed.created > until) continue;
      const cwd = project === undefined ? null : await cwdOf(store, listed);
      if (project !== undefined && !cwd?.toLowerCase().includes(project)) continue;
      const hits = await sessionHits(store, source, listed, query);
      if (hits.length === 0) continue;
      const summary = summaryOf(source, listed, cwd ?? await cwdOf(store, listed));
      yield { kind: "session", session: summary, hits };
    }
  } finally {
    if (source.store === undefined) await store.close();
  }
}
