/**
 * Usage kept in the catalog's database (tables of its own beside the catalog's `files`): each
 * file's responses, priced, keyed by its path and read again only when the file changed (its
 * inode, size or modification time); and, for each choice of places, the count of them all
 * folded (per session, model, cost source and 15 minutes: a few rows a session) with what
 * every file was when it was counted. A warm report, nothing changed, is those folded rows:
 * no session file read, no response parsed, no price table loaded. A cache like the catalog:
 * its own schema version, made again on a mismatch; every answer equals a fresh read.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { inWriteTransaction } from "../catalog/_transaction.ts";
import { keepSideTables } from "../catalog/_side_tables.ts";
import type { FileUsage, SessionFormat, UsageEvent } from "../formats/mod.ts";
import type { SearchSource } from "../search/mod.ts";
import {
  type CollectedUsage,
  countUsage,
  type FilePricer,
  type FileReader,
  fileSources,
  fileUsage,
  storedSessions,
  type UsageSession,
  usageSessions,
  type UsageSkip,
  withStored,
} from "./_collect.ts";
import { foldedRows, keepProbe, probeEntries, USAGE_KEPT_BY, type UsageProbe } from "./_warm.ts";
import { KeptPrices, type KeptRates } from "./_kept_prices.ts";
import { PRICE_TABLE } from "./_table.ts";
import { type PlannedFile, UsagePool } from "./_pool.ts";
import { USAGE_READERS } from "../formats/usage_readers.ts";
import { SHARED_READS_BYTES, workersFor } from "../io/_shared_reads.ts";
import { fineClock, keptClock, racy, seeClock, statKey, tickEnd, tickPassed } from "../_tick.ts";

/** What usage asks of the catalog (`src/catalog`'s `Catalog` has it): its database. */
export interface UsageCatalog {
  /** The catalog's database, where usage keeps its tables. */
  readonly db: DatabaseSync;
}

const TABLES = `
CREATE TABLE usage_version (kept_by TEXT NOT NULL);
CREATE TABLE usage_files (
  path TEXT PRIMARY KEY,
  ino INTEGER,
  size INTEGER NOT NULL,
  mtime INTEGER NOT NULL,
  provider TEXT,
  session_id TEXT,
  cwd TEXT,
  tool_cost TEXT,
  bad_lines INTEGER NOT NULL,
  events TEXT NOT NULL
);
CREATE TABLE usage_scopes (
  scope TEXT PRIMARY KEY,
  files TEXT NOT NULL,
  about TEXT NOT NULL
);
CREATE TABLE usage_folded (
  scope TEXT NOT NULL,
  time TEXT NOT NULL,
  model TEXT,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  cache_creation INTEGER NOT NULL,
  reasoning_output INTEGER NOT NULL,
  format TEXT NOT NULL,
  session_id TEXT NOT NULL,
  session_path TEXT NOT NULL,
  project TEXT,
  cost REAL,
  cost_source TEXT
);
CREATE INDEX usage_folded_scope ON usage_folded (scope);
CREATE TABLE usage_prices (
  price_table TEXT NOT NULL,
  key TEXT NOT NULL,
  rates TEXT NOT NULL,
  PRIMARY KEY (price_table, key)
);
CREATE TABLE usage_probes (
  question TEXT PRIMARY KEY,
  env TEXT NOT NULL,
  entries TEXT NOT NULL,
  scope TEXT NOT NULL,
  listed_at INTEGER NOT NULL
);
`;

/** Makes usage's tables, again when they are of another version or price table. */
function ensureTables(db: DatabaseSync): void {
  keepSideTables(db, { stampTable: "usage_version", stamp: USAGE_KEPT_BY, create: TABLES });
}

interface FileRow {
  ino: number | null;
  size: number;
  mtime: number;
  provider: string | null;
  session_id: string | null;
  cwd: string | null;
  tool_cost: string | null;
  bad_lines: number;
  events: string;
}

/**
 * A file's events as its row keeps them: one JSON array of arrays (a row per event costs far
 * more to read back than one string parsed): time, model, input, output, cache read, cache
 * write, reasoning, key, message id, side chain (0/1), cost.
 */
type KeptEvent = [
  string,
  string | null,
  number,
  number,
  number,
  number,
  number,
  string | null,
  string | null,
  number,
  number | null,
];

const kept = (event: UsageEvent, cost: number | null): KeptEvent => [
  event.time,
  event.model,
  event.input,
  event.output,
  event.cacheRead,
  event.cacheCreation,
  event.reasoningOutput,
  event.key ?? null,
  event.messageId ?? null,
  event.sidechain ? 1 : 0,
  cost,
];

function eventOf(row: KeptEvent): UsageEvent {
  const [time, model, input, output, cacheRead, cacheCreation, reasoningOutput] = row;
  const event: UsageEvent = {
    time,
    model,
    input,
    output,
    cacheRead,
    cacheCreation,
    reasoningOutput,
  };
  if (row[7] !== null) event.key = row[7];
  if (row[8] !== null) event.messageId = row[8];
  if (row[9] === 1) event.sidechain = true;
  return event;
}

class Statements {
  readonly file: StatementSync;
  readonly saveFile: StatementSync;

  constructor(db: DatabaseSync) {
    this.file = db.prepare("SELECT * FROM usage_files WHERE path = ?");
    this.saveFile = db.prepare(
      "INSERT OR REPLACE INTO usage_files (path, ino, size, mtime, provider, session_id, cwd, " +
        "tool_cost, bad_lines, events) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
  }
}

/**
 * Prices kept in the catalog's database, by the price table's version, provider, model and
 * day (`KeptPrices`): a file read again is priced without the table (about 0.2 s and 15 MB to
 * load) unless a model or day is new, or its prices are tiered (they depend on each request's
 * size or time of day).
 */
function keptPrices(db: DatabaseSync): (
  events: readonly UsageEvent[],
  provider: string | null,
) => Promise<(number | null)[]> {
  const kept = new Map<string, KeptRates>();
  for (
    const row of db.prepare("SELECT key, rates FROM usage_prices WHERE price_table = ?").all(
      PRICE_TABLE,
    ) as unknown as { key: string; rates: string }[]
  ) kept.set(row.key, JSON.parse(row.rates));
  const save = db.prepare(
    "INSERT OR REPLACE INTO usage_prices (price_table, key, rates) VALUES (?, ?, ?)",
  );
  const prices = new KeptPrices(
    kept,
    undefined,
    (key, rates) => save.run(PRICE_TABLE, key, JSON.stringify(rates)),
  );
  return async (events, provider) => {
    const costs: (number | null)[] = [];
    for (const event of events) {
      let cost = prices.price(event, event.model, provider, event.time);
      if (cost === undefined) {
        await prices.loadTable();
        cost = prices.price(event, event.model, provider, event.time);
      }
      costs.push(cost ?? null);
    }
    return costs;
  };
}

/**
 * Whether a file's kept row is of the file as it is (its inode, size and modification time). A
 * row kept from a `stat` in the tick of the file's last write has no time (`NOT_KEPT`): a
 * rewrite in place after it could leave the three as they were.
 */
const keptFor = (row: FileRow | undefined, info: Deno.FileInfo): row is FileRow =>
  row !== undefined && row.size === info.size && row.mtime === (info.mtime?.getTime() ?? 0) &&
  row.ino === (info.ino ?? null);

/** The time of a row whose `stat` was racy (`src/_tick.ts`): no file's, so never kept. */
const NOT_KEPT = -1;

/** Files of a count read by another thread too (a worker's: `UsagePool` in `_pool.ts`). */
export interface UsageReadAhead {
  /** The `stat` a file had before the other thread could read it; undefined: not its file. */
  infoOf(path: string): Deno.FileInfo | undefined;
  /** The file's usage, read by either thread; null when it is to be read by the caller. */
  read(path: string): Promise<FileUsage | null>;
}

/** Options of {@linkcode catalogReader}. */
export interface CatalogReaderOptions {
  /** The worker that reads files of the count beside this thread. */
  pool?: UsageReadAhead | undefined;
  /**
   * When the count began, before any of its `stat`s (ms since the epoch): a file written in
   * its tick or after is read and kept with no time, read again next time.
   * @default {Date.now()}
   */
  since?: number | undefined;
  /**
   * Files whose tick the count waited out before `since`, by path, with their inode, size and
   * time then: one that still has them was written before that tick was past, so what is read
   * of it is kept with its time (a time ahead of the clock stays racy however long one waits).
   */
  waited?: ReadonlyMap<string, string> | undefined;
}

/**
 * The reader of files through the catalog's database: a file unchanged since its usage was
 * kept is answered from its rows; another is read (each format's `usage`, by `pool`'s worker
 * when it took the file, else here), priced and kept.
 */
export function catalogReader(db: DatabaseSync, options: CatalogReaderOptions = {}): FileReader {
  const { pool, since = Date.now(), waited } = options;
  ensureTables(db);
  const s = new Statements(db);
  let prices: FilePricer | undefined;
  return async (path: string, format: SessionFormat) => {
    // The worker read its file after this `stat`.
    const info = pool?.infoOf(path) ?? Deno.statSync(path);
    const row = s.file.get(path) as FileRow | undefined;
    const clock = keptClock(row);
    if (keptFor(row, info)) {
      const events = JSON.parse(row.events) as KeptEvent[];
      return {
        usage: {
          events: events.map(eventOf),
          sessionId: row.session_id,
          cwd: row.cwd,
          provider: row.provider,
          toolCost: row.tool_cost === null ? null : JSON.parse(row.tool_cost),
          badLines: row.bad_lines,
        },
        costs: events.map((event) => event[10]),
      };
    }
    const usage = await pool?.read(path) ?? await fileUsage(path, format);
    prices ??= keptPrices(db);
    const costs = await prices(usage.events, usage.provider);
    s.saveFile.run(
      path,
      info.ino ?? null,
      info.size,
      racy(info, since, fineClock(info, clock)) && waited?.get(path) !== statKey(info)
        ? NOT_KEPT
        : info.mtime?.getTime() ?? 0,
      usage.provider,
      usage.sessionId,
      usage.cwd,
      usage.toolCost === null ? null : JSON.stringify(usage.toolCost),
      usage.badLines,
      JSON.stringify(usage.events.map((event, i) => kept(event, costs[i] ?? null))),
    );
    return { usage, costs };
  };
}

/**
 * The files of the sessions a count reads (not kept, or changed since), in its order, with
 * their `stat`: the worker's share of them is read after it.
 */
function filesToRead(db: DatabaseSync, sessions: readonly UsageSession[]): PlannedFile[] {
  const file = db.prepare("SELECT ino, size, mtime FROM usage_files WHERE path = ?");
  const planned: PlannedFile[] = [];
  for (const session of sessions) {
    for (const path of [session.path, ...session.subagents]) {
      let info: Deno.FileInfo;
      try {
        info = Deno.statSync(path);
      } catch {
        // Read (and skipped, saying why) in its turn.
        continue;
      }
      if (
        !keptFor(file.get(path) as FileRow | undefined, info) && USAGE_READERS.has(session.format)
      ) {
        planned.push({ path, format: session.format, info });
      }
    }
  }
  return planned;
}

/**
 * A worker for the count's reading when it pays: at least `parallelBytes` to read and a
 * second core; else none.
 */
function poolFor(
  db: DatabaseSync,
  sessions: readonly UsageSession[],
  parallelBytes: number,
): UsagePool | undefined {
  if (navigator.hardwareConcurrency < 2) return undefined;
  const planned = filesToRead(db, sessions);
  const sizes = planned.map((file) => file.info.size);
  if (workersFor(sizes, { max: 1, fromBytes: parallelBytes }) === 0) return undefined;
  try {
    return new UsagePool(planned);
  } catch {
    // No worker can be started here: this thread reads every file, as below the threshold.
    return undefined;
  }
}

/** What the files of a count were, and when the tick of the latest write among them is past. */
interface CountedFiles {
  /** Each file's inode, size and time (or gone), per session; undefined: not to be kept. */
  files: string | undefined;
  /** When the tick of a file written in its `stat`'s tick is past (ms since the epoch, 0 none). */
  settled: number;
  /** Each file whose tick `settled` waits out, by path: its inode, size and time then. */
  waited: Map<string, string>;
}

/**
 * The sessions and what each of their files is now: equal, nothing changed since. A file
 * `stat`ed (after `since`) in the tick of its last write (or with a time ahead of the clock) is
 * read once that tick is past (`settled`); one of a file system of seconds makes the count one not
 * kept (`files` undefined): a rewrite in place after the `stat` could leave its inode, size and
 * time as they were.
 */
function filesOf(sessions: readonly UsageSession[], since: number): CountedFiles {
  const rows: (string | null)[][] = [];
  const waited = new Map<string, string>();
  let settled = 0;
  let kept = true;
  for (const session of sessions) {
    const row = [session.id, session.format, session.project];
    for (const path of [session.path, ...session.subagents]) {
      let info: Deno.FileInfo;
      try {
        info = Deno.statSync(path);
      } catch {
        row.push(path, "-");
        continue;
      }
      seeClock(info);
      const key = statKey(info);
      if (racy(info, since)) {
        const end = tickEnd(info, Date.now());
        if (end === undefined) kept = false;
        else {
          settled = Math.max(settled, end);
          waited.set(path, key);
        }
      }
      row.push(path, key);
    }
    rows.push(row);
  }
  return { files: kept ? JSON.stringify(rows) : undefined, settled, waited };
}

/** What a count says beside its rows, kept with them. */
interface About {
  sessions: number;
  toolCosts: string[];
  toolCostSources: string[];
  skipped: UsageSkip[];
}

/** The folded count of a choice of places, when every file is what it was then. */
function keptCount(db: DatabaseSync, scope: string, files: string): CollectedUsage | undefined {
  const kept = db.prepare("SELECT files, about FROM usage_scopes WHERE scope = ?").get(scope) as
    | { files: string; about: string }
    | undefined;
  if (kept === undefined || kept.files !== files) return undefined;
  const about = JSON.parse(kept.about) as About;
  return { rows: foldedRows(db, scope), ...about };
}

/** Keeps a choice of places' folded count, in place of the one before. */
function keepCount(
  db: DatabaseSync,
  scope: string,
  files: string,
  collected: CollectedUsage,
  skipped: UsageSkip[],
): void {
  const about: About = {
    sessions: collected.sessions,
    toolCosts: collected.toolCosts,
    toolCostSources: collected.toolCostSources,
    skipped,
  };
  const insert = db.prepare(
    "INSERT INTO usage_folded (scope, time, model, input, output, cache_read, cache_creation, " +
      "reasoning_output, format, session_id, session_path, project, cost, cost_source) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  inWriteTransaction(db, () => {
    db.prepare("DELETE FROM usage_folded WHERE scope = ?").run(scope);
    for (const row of collected.rows) {
      insert.run(
        scope,
        row.time,
        row.model,
        row.input,
        row.output,
        row.cacheRead,
        row.cacheCreation,
        row.reasoningOutput,
        row.format,
        row.sessionId,
        row.sessionPath,
        row.project,
        row.cost,
        row.costSource,
      );
    }
    db.prepare("INSERT OR REPLACE INTO usage_scopes (scope, files, about) VALUES (?, ?, ?)")
      .run(scope, files, JSON.stringify(about));
  });
}

/**
 * Every model response of the sources as {@linkcode collectUsage} counts them, folded (per
 * session, model, cost source and 15 minutes). The sessions are found from names (as a fresh
 * read finds them) and each file is `stat`ed: when none changed since the last count of the
 * same places, that count's folded rows are the answer; else each file unchanged is answered
 * from the responses it kept, the others read, and the new count kept. Usage needs none of what
 * the catalog's own update reads (the text, the inspector's facts).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { collectCatalogUsage } from "./mod.ts";
 * const db = new DatabaseSync(":memory:");
 * const got = await collectCatalogUsage({ db }, []);
 * assert.deepEqual([got.rows, got.sessions], [[], 0]);
 * ```
 */
export async function collectCatalogUsage(
  catalog: UsageCatalog,
  sources: readonly SearchSource[],
  options: CollectCatalogUsageOptions = {},
): Promise<CollectedUsage> {
  const skipped: UsageSkip[] = [];
  const db = catalog.db;
  ensureTables(db);
  if (sources.some((source) => source.root.includes("://"))) {
    // A database store's sessions change with no file to tell: counted each time.
    const stored = await storedSessions(sources, skipped);
    try {
      const sessions = await usageSessions(fileSources(sources));
      const prices = keptPrices(db);
      const read = withStored(stored, catalogReader(db), prices);
      return await countUsage([...sessions, ...stored.sessions], read, skipped, { fold: true });
    } finally {
      await stored.close();
    }
  }
  // Listed before the sessions are found: a change after it is a change the next run sees.
  const probe = probeOf(sources, options.question);
  const sessions = await usageSessions(fileSources(sources));
  const scope = JSON.stringify(sources.map((source) => [source.format, source.root]));
  // Before any file's `stat`: a file written since is racy (src/_tick.ts).
  const { files, settled, waited } = filesOf(sessions, Date.now());
  let counted = files === undefined ? undefined : keptCount(db, scope, files);
  if (counted !== undefined) counted = { ...counted, skipped: [...skipped, ...counted.skipped] };
  else {
    const before = skipped.length;
    // A file written in the tick of its `stat` is read once that tick is past: what is read of
    // it is then what its inode, size and time stand for (a write after has another time).
    await tickPassed(settled);
    const since = Date.now();
    using pool = poolFor(db, sessions, options.parallelBytes ?? SHARED_READS_BYTES);
    const reader = catalogReader(db, { pool, since, waited });
    counted = await countUsage(sessions, reader, skipped, { fold: true });
    if (files !== undefined) keepCount(db, scope, files, counted, skipped.slice(before));
  }
  if (probe !== undefined) keepProbe(db, scope, probe);
  return counted;
}

/** What a command asked, kept with the count so that its next run can be answered warm. */
export interface UsageQuestionOf {
  /** The command's places and folder (`UsageQuestion`). */
  question: UsageProbe["question"];
  /** The environment variables the places were found from, with their values. */
  env: UsageProbe["env"];
  /** Paths the places were told from beyond their roots (a named folder, the archive's index). */
  paths?: readonly string[];
}

/** Options of {@linkcode collectCatalogUsage}. */
export interface CollectCatalogUsageOptions {
  /**
   * The command's question: kept with the count (`warmUsage` answers it again while nothing
   * changed). Not kept for places that are not folders (a database store, the archive's view).
   */
  question?: UsageQuestionOf | undefined;
  /**
   * Bytes of files to read (not kept, or changed) from which they are read by this thread and
   * a worker together, when there are two cores: below it a worker's start costs more than it
   * saves. @default {33554432} (32 MiB)
   */
  parallelBytes?: number;
}

function probeOf(
  sources: readonly SearchSource[],
  asked: UsageQuestionOf | undefined,
): UsageProbe | undefined {
  if (asked === undefined) return undefined;
  if (sources.some((source) => source.archived === true || source.root.includes("://"))) {
    return undefined;
  }
  const listedAt = Date.now();
  const entries = probeEntries(sources.map((source) => source.root), asked.paths ?? []);
  return { question: asked.question, env: asked.env, entries, listedAt };
}
