/**
 * Usage kept in the catalog's database (a table of its own beside the catalog's `files`, keyed
 * by a file's path): each file's responses, priced, read again only when the file changed
 * (its inode, size or modification time), so a warm report reads no session file and loads no
 * price table. A cache like the catalog: its own schema version, made again on a mismatch;
 * every answer equals a fresh read of the files.
 *
 * @module
 */
import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { SessionFormat, UsageEvent } from "../formats/mod.ts";
import type { SearchSource } from "../search/mod.ts";
import {
  type CollectedUsage,
  countUsage,
  type FileReader,
  fileReader,
  fileSources,
  usageSessions,
  type UsageSkip,
} from "./_collect.ts";

/** What usage asks of the catalog (`src/catalog`'s `Catalog` has it): its database. */
export interface UsageCatalog {
  /** The catalog's database, where usage keeps its tables. */
  readonly db: DatabaseSync;
}

/** The version of usage's tables: others are made again. */
export const USAGE_TABLES_VERSION = 3;

const TABLES = `
CREATE TABLE usage_version (version INTEGER NOT NULL);
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
`;

const DROP = `
DROP TABLE IF EXISTS usage_version;
DROP TABLE IF EXISTS usage_files;
`;

/** Makes usage's tables, again when they are of another version. */
function ensureTables(db: DatabaseSync): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    const exists = db.prepare(
      "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'usage_version'",
    ).get();
    const version = exists
      ? (db.prepare("SELECT version FROM usage_version").get() as { version: number } | undefined)
        ?.version
      : undefined;
    if (version !== USAGE_TABLES_VERSION) {
      db.exec(DROP);
      db.exec(TABLES);
      db.prepare("INSERT INTO usage_version (version) VALUES (?)").run(USAGE_TABLES_VERSION);
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
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
 * The reader of files through the catalog's database: a file unchanged since its usage was
 * kept is answered from its rows; another is read (each format's `usage`, priced) and kept.
 */
export function catalogReader(db: DatabaseSync): FileReader {
  ensureTables(db);
  const s = new Statements(db);
  let fresh: FileReader | undefined;
  return async (path: string, format: SessionFormat) => {
    const info = Deno.statSync(path);
    const mtime = info.mtime?.getTime() ?? 0;
    const row = s.file.get(path) as FileRow | undefined;
    if (
      row !== undefined && row.size === info.size && row.mtime === mtime &&
      row.ino === (info.ino ?? null)
    ) {
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
    fresh ??= await fileReader();
    const read = await fresh(path, format);
    const { usage, costs } = read;
    s.saveFile.run(
      path,
      info.ino ?? null,
      info.size,
      mtime,
      usage.provider,
      usage.sessionId,
      usage.cwd,
      usage.toolCost === null ? null : JSON.stringify(usage.toolCost),
      usage.badLines,
      JSON.stringify(usage.events.map((event, i) => kept(event, costs[i] ?? null))),
    );
    return read;
  };
}
/**
 * Every model response of the sources, as {@linkcode collectUsage} counts them, each file
 * unchanged since usage last read it answered from the rows it kept in the catalog's database.
 * The sessions are found from names (as a fresh read finds them) and each file is `stat`ed:
 * usage needs none of what the catalog's own update reads (the text, the inspector's facts).
 */
export async function collectCatalogUsage(
  catalog: UsageCatalog,
  sources: readonly SearchSource[],
): Promise<CollectedUsage> {
  const skipped: UsageSkip[] = [];
  const sessions = await usageSessions(fileSources(sources, skipped));
  return countUsage(sessions, catalogReader(catalog.db), skipped);
}
