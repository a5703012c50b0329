/**
 * The catalog as a command holds it: the database opened (or made again, with a line saying
 * why), brought up to date for the sources a command reads, and asked for their sessions. Its
 * calls run one at a time: an update is one transaction per file across reads of the disk.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { TokenTotals } from "../formats/mod.ts";
import { isDamage, openDatabase, remakeDatabase, returningArrays } from "./_database.ts";
import { resolveCatalogPath } from "./_location.ts";
import type { SearchIndex } from "../search/mod.ts";
import {
  type CatalogSource,
  type UpdateOptions,
  type UpdateSummary,
  walkedKey,
  type WalkedSession,
  walkSources,
} from "./_walk.ts";
import { late } from "../_late.ts";

/**
 * The indexing (and every reader), loaded when a file changed, out of Deno's sight at start
 * (src/_late.ts): an update that finds none reads none of it.
 */
const updateModule = () => late<typeof import("./_update.ts")>("./_update.ts", import.meta.url);

/** The index's lookups (and io's reader behind them), loaded for a search alone. */
const searchModule = () => late<typeof import("./_search.ts")>("./_search.ts", import.meta.url);

/** Options of {@linkcode Catalog.open}. */
export interface CatalogOptions {
  /** The catalog's file. @default {resolveCatalogPath()} */
  path?: string | undefined;
  /** Told, in one line, when the catalog was damaged or of another version and made again. */
  onRebuilt?: ((line: string) => void) | undefined;
}

/** A session as the catalog holds it: its file's place, its dates and what a full read told. */
export interface CatalogSession {
  /** The session's file. */
  path: string;
  /** Its format (an adapter's name, or turnlog's). */
  format: string;
  /** The sessions root it was found under. */
  root: string;
  /** Only in the archive (the archive's view). */
  archived: boolean;
  /** The session id its file's name gives. */
  id: string;
  /** The project folder the tool filed it under (Claude Code), else null. */
  project: string | null;
  /** Its file's size when it was read. */
  sizeBytes: number;
  /** The bytes of its files together (its subagents' transcripts too). */
  bytes: number;
  /** Its file's last write when it was read, ms since the epoch (a listing's `modified`). */
  fileModified: number;
  /** The last write of its files (the session's own and its subagents'), ms since the epoch. */
  modified: number;
  /** The session's first date, from its records. */
  firstAt: string | null;
  /** The session's last date, from its records. */
  lastAt: string | null;
  /** Its first working directory. */
  cwd: string | null;
  /** A title the file gives it. */
  title: string | null;
  /** The first prompt a person typed. */
  firstPrompt: string | null;
  /** What the file holds (`records`, `empty`, `metadata-only`), null when it cannot be read. */
  state: string | null;
  /** Its turns. */
  turns: number | null;
  /** The inspector's verdict: healthy or not. */
  healthy: boolean | null;
  /** The verdict in words (`healthy`, `1 orphan call`). */
  verdict: string | null;
  /** Problems and orphan calls the inspector found. */
  findings: number | null;
  /** Tokens used, as the file reports them. */
  tokens: TokenTotals | null;
  /** Models in the order they first answered. */
  models: string[];
  /** The session it was forked from, as the inspector reports it (Codex). */
  forkedFrom: unknown;
  /** Branches that are not the conversation (Claude Code). */
  forks: number;
  /** Its subagents' transcripts. */
  subagents: string[];
  /** Why the file could not be read, when it could not. */
  unreadable: string | null;
}

/**
 * What a listing shows of a session: the fields of a {@linkcode CatalogSession} it reads, as
 * {@linkcode Catalog.listing} gives them (`models` holds the first model alone).
 */
export type ListingSession = Pick<
  CatalogSession,
  | "path"
  | "format"
  | "id"
  | "project"
  | "sizeBytes"
  | "fileModified"
  | "modified"
  | "firstAt"
  | "lastAt"
  | "cwd"
  | "title"
  | "firstPrompt"
  | "turns"
  | "verdict"
  | "unreadable"
  | "models"
>;

interface SessionRow {
  path: string;
  format: string;
  root: string;
  archived: number;
  session_id: string;
  project: string | null;
  size: number;
  mtime: number;
  bytes: number;
  modified: number;
  first_at: string | null;
  last_at: string | null;
  cwd: string | null;
  title: string | null;
  first_prompt: string | null;
  state: string | null;
  turns: number | null;
  healthy: number | null;
  verdict: string | null;
  findings: number | null;
  tokens: string | null;
  models: string | null;
  forked_from: string | null;
  forks: number | null;
  subagents: string | null;
  unreadable: string | null;
}

/** A session's last write: its own file's, or a later one of its subagents' files. */
const MODIFIED_SQL = `max(f.mtime, coalesce((SELECT max(s.mtime) FROM files s
    WHERE s.session = f.path AND s.path != f.path AND s.deleted = 0), 0)) AS modified`;

/** The rows of a source's sessions (a subagent's file is its session's, not a row). */
const SESSION_ROWS_SQL = "FROM files f\nWHERE f.root = ? AND f.deleted = 0 AND f.path = f.session";

const SESSIONS_SQL = `
SELECT f.path, f.format, f.root, f.archived, f.session_id, f.project, f.size, f.mtime,
  f.first_at, f.last_at, f.cwd, f.title, f.first_prompt, f.state, f.turns, f.healthy,
  f.verdict, f.findings, f.tokens, f.models, f.forked_from, f.forks, f.unreadable,
  ${MODIFIED_SQL},
  f.size + coalesce((SELECT sum(s.size) FROM files s
    WHERE s.session = f.path AND s.path != f.path AND s.deleted = 0), 0) AS bytes,
  (SELECT json_group_array(s.path) FROM (SELECT path FROM files s
    WHERE s.session = f.path AND s.path != f.path AND s.deleted = 0 ORDER BY path) s)
    AS subagents
${SESSION_ROWS_SQL}`;

/**
 * A listing's columns alone, in this order (rows as arrays: no object of 26 keys a row, no JSON
 * parsed but the first model's, which SQLite takes out).
 */
const LISTING_SQL = `
SELECT f.path, f.format, f.session_id, f.project, f.size, f.mtime, ${MODIFIED_SQL},
  f.first_at, f.last_at, f.cwd, f.title, f.first_prompt, f.turns, f.verdict, f.unreadable,
  json_extract(f.models, '$[0]') AS model
${SESSION_ROWS_SQL}`;

type ListingRow = [
  path: string,
  format: string,
  id: string,
  project: string | null,
  size: number,
  mtime: number,
  modified: number,
  firstAt: string | null,
  lastAt: string | null,
  cwd: string | null,
  title: string | null,
  firstPrompt: string | null,
  turns: number | null,
  verdict: string | null,
  unreadable: string | null,
  model: string | null,
];

/** The listing's statement of each database (one a catalog made again has its own). */
const listings = new WeakMap<DatabaseSync, StatementSync>();

function listingOf(row: ListingRow): ListingSession {
  // By index: an array pattern takes the iterator's path, which costs a cold process more.
  const model = row[15];
  return {
    path: row[0],
    format: row[1],
    id: row[2],
    project: row[3],
    sizeBytes: row[4],
    fileModified: row[5],
    modified: row[6],
    firstAt: row[7],
    lastAt: row[8],
    cwd: row[9],
    title: row[10],
    firstPrompt: row[11],
    turns: row[12],
    verdict: row[13],
    unreadable: row[14],
    models: model === null ? [] : [model],
  };
}

function sessionOf(row: SessionRow): CatalogSession {
  return {
    path: row.path,
    format: row.format,
    root: row.root,
    archived: row.archived === 1,
    id: row.session_id,
    project: row.project,
    sizeBytes: row.size,
    bytes: row.bytes,
    fileModified: row.mtime,
    modified: row.modified,
    firstAt: row.first_at,
    lastAt: row.last_at,
    cwd: row.cwd,
    title: row.title,
    firstPrompt: row.first_prompt,
    state: row.state,
    turns: row.turns,
    healthy: row.healthy === null ? null : row.healthy === 1,
    verdict: row.verdict,
    findings: row.findings,
    tokens: row.tokens === null ? null : JSON.parse(row.tokens),
    models: row.models === null ? [] : JSON.parse(row.models),
    forkedFrom: row.forked_from === null ? null : JSON.parse(row.forked_from),
    forks: row.forks ?? 0,
    subagents: row.subagents === null ? [] : JSON.parse(row.subagents),
    unreadable: row.unreadable,
  };
}

/**
 * The catalog: an SQLite index of every session file of the homes and the archive a command
 * reads, kept up to date incrementally, that answers listings and searches at once. A cache:
 * deleting its file loses nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { Catalog } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * using catalog = Catalog.open({ path: join(dir, "catalog.sqlite") });
 * const summary = await catalog.update([{ format: "turnlog", root: join(dir, "sessions") }]);
 * assert.equal(summary.seen, 0);
 * assert.deepEqual(catalog.sessions([{ format: "turnlog", root: join(dir, "sessions") }]), []);
 * ```
 */
export class Catalog implements Disposable {
  /** The catalog's file. */
  readonly path: string;
  #db: DatabaseSync;
  #queue: Promise<unknown> = Promise.resolve();
  #walked = new Map<string, WalkedSession[]>();

  private constructor(path: string, db: DatabaseSync) {
    this.path = path;
    this.#db = db;
  }

  /**
   * Opens the catalog (see {@linkcode CatalogOptions}), making it when it is missing and again
   * when it is damaged or of another version.
   */
  static open(options: CatalogOptions = {}): Catalog {
    const path = resolveCatalogPath(options.path);
    const { db, rebuilt } = openDatabase(path);
    if (rebuilt !== null) options.onRebuilt?.(rebuilt);
    return new Catalog(path, db);
  }

  /**
   * The open database, for a module that keeps tables of its own in the catalog's file (the
   * usage reports keep theirs beside `files`, keyed by a session's path).
   */
  get db(): DatabaseSync {
    return this.#db;
  }

  /** Runs `work` after every call before it, making the catalog again once if it is damaged. */
  #serial<T>(work: () => T | Promise<T>): Promise<T> {
    const run = async () => {
      try {
        return await work();
      } catch (error) {
        if (!isDamage(error)) throw error;
        this.#db = remakeDatabase(this.#db, this.path);
        return await work();
      }
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }

  /**
   * Brings the files of `sources` up to date with the disk. The readers load only when a file
   * is new or changed: an update that finds none is a walk and a `stat` of each file.
   */
  update(sources: readonly CatalogSource[], options: UpdateOptions = {}): Promise<UpdateSummary> {
    return this.#serial(async () => {
      const walked = await walkSources(this.#db, sources, { text: options.text ?? true });
      for (const [key, sessions] of walked.sessions) this.#walked.set(key, sessions);
      if (walked.changed.length === 0) return walked.summary;
      const { indexChanged } = await updateModule();
      return await indexChanged(this.#db, walked, options);
    });
  }

  /**
   * The sessions of `sources` as the last update left them (a session's own file; its
   * subagents' files are listed with it), in no particular order.
   */
  sessions(sources: readonly CatalogSource[]): CatalogSession[] {
    const statement = this.#db.prepare(SESSIONS_SQL);
    return sources.flatMap((source) =>
      (statement.all(source.root) as unknown as SessionRow[]).map(sessionOf)
    );
  }

  /**
   * The sessions of `source` as {@linkcode Catalog.sessions} gives them, with what a listing
   * shows of them alone (one statement, prepared once).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { join } from "node:path";
   * import { Catalog } from "./mod.ts";
   *
   * const dir = Deno.makeTempDirSync();
   * const root = join(dir, "codex");
   * const day = join(root, "2026", "02", "23");
   * Deno.mkdirSync(day, { recursive: true });
   * const id = "019c8a4c-0000-7000-8000-000000000001";
   * Deno.writeTextFileSync(join(day, `rollout-2026-02-23T10-00-00-${id}.jsonl`), "");
   * using catalog = Catalog.open({ path: join(dir, "catalog.sqlite") });
   * const source = { format: "codex", root };
   * await catalog.update([source]);
   * const [session] = catalog.sessions([source]);
   * const [listed] = catalog.listing(source);
   * assert.equal(listed!.id, id);
   * for (const [key, value] of Object.entries(listed!)) {
   *   assert.deepEqual(value, session![key as keyof typeof session], key);
   * }
   * ```
   */
  listing(source: CatalogSource): ListingSession[] {
    let statement = listings.get(this.#db);
    if (statement === undefined) {
      listings.set(this.#db, statement = returningArrays(this.#db.prepare(LISTING_SQL)));
    }
    return (statement.all(source.root) as unknown as ListingRow[]).map(listingOf);
  }

  /**
   * The sessions of `source` as this catalog's last {@linkcode Catalog.update} of it walked
   * them (the search's own walk, each with its files' last write), or undefined when no update
   * in this process walked it (a root not there or that cannot be read): a search after the
   * update walks the homes no more.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { join } from "node:path";
   * import { Catalog } from "./mod.ts";
   *
   * const dir = Deno.makeTempDirSync();
   * const root = join(dir, "codex");
   * const day = join(root, "2026", "02", "23");
   * Deno.mkdirSync(day, { recursive: true });
   * const id = "019c8a4c-0000-7000-8000-000000000001";
   * const path = join(day, `rollout-2026-02-23T10-00-00-${id}.jsonl`);
   * Deno.writeTextFileSync(path, "");
   * using catalog = Catalog.open({ path: join(dir, "catalog.sqlite") });
   * const source = { format: "codex", root };
   * assert.equal(catalog.walked(source), undefined);
   * await catalog.update([source]);
   * const modified = Deno.statSync(path).mtime!.getTime();
   * assert.deepEqual(catalog.walked(source), [
   *   { id, path, subagents: [], project: null, modified },
   * ]);
   * ```
   */
  walked(source: CatalogSource): readonly WalkedSession[] | undefined {
    return this.#walked.get(walkedKey(source));
  }

  /**
   * The catalog as a search's index (`SearchOptions.index`), as the last update left it: the
   * lines of each file that can match a query, read from the file at their offsets. Its code
   * loads when it is asked for: a listing loads none of it.
   */
  async searchIndex(): Promise<SearchIndex> {
    return (await searchModule()).catalogSearchIndex(this.#db);
  }

  /**
   * What a search asks of the catalog after an {@linkcode Catalog.update} with `text`: its
   * index ({@linkcode Catalog.searchIndex}) and its walk of the homes ({@linkcode
   * Catalog.walked}), so that the search walks them no more.
   */
  async searchOptions(): Promise<{ index: SearchIndex; walked: Catalog["walked"] }> {
    return { index: await this.searchIndex(), walked: this.walked.bind(this) };
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }

  /** Closes the database. */
  [Symbol.dispose](): void {
    this.close();
  }
}
