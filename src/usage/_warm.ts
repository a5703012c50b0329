/**
 * A warm `usage`, answered without the readers, the formats' registry or the walk: a count
 * kept with what its question was (the command's places, its folder, the environment variables
 * they were found from) and every folder and file under those places as they were before the
 * count (`stat`). When every one of them is as it was, the count's folded rows are the answer;
 * any difference, or any doubt (a change too close to when they were listed to be told from
 * it), and the command finds its sessions and counts as without this.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { CollectedUsage } from "./_collect.ts";
import { PRICE_TABLE } from "./_table.ts";
import { sideTablesCurrent } from "../catalog/_side_tables.ts";

/**
 * The version of usage's tables: others are made again (8: a model whose prices change within a
 * day is priced at each response's time, where 7 kept its day's first response's prices).
 */
export const USAGE_TABLES_VERSION = 8;

/**
 * What usage's tables were kept by: their version and the price table whose prices they hold
 * (another table, another turnlog: counted again).
 */
export const USAGE_KEPT_BY = `${USAGE_TABLES_VERSION} ${PRICE_TABLE}`;

/** Whether the database's usage tables were kept by this version and price table. */
export function usageTablesCurrent(db: DatabaseSync): boolean {
  return sideTablesCurrent(db, "usage_version", USAGE_KEPT_BY);
}

/** What a count was asked: the command's places as given, and the folder it ran in. */
export interface UsageQuestion {
  /** The arguments that choose the places (`--codex`, `--sessions-dir DIR`), in order. */
  places: readonly string[];
  /** The folder the command ran in (a relative place is relative to it). */
  cwd: string;
}

/** A path and what it was: `[path, inode, size, modified ms]`, or `[path]` when it was not there. */
export type ProbeEntry = [string, number, number, number] | [string];

/** A change this close (ms) to the listing cannot be told from it: the count is not trusted. */
const RACY_MS = 2000;

const questionKey = (question: UsageQuestion) => JSON.stringify([question.cwd, ...question.places]);

function entryOf(path: string): ProbeEntry {
  try {
    const info = Deno.statSync(path);
    return [path, info.ino ?? 0, info.size, info.mtime?.getTime() ?? 0];
  } catch {
    return [path];
  }
}

/**
 * Every folder and file under `roots` (links followed, each folder once), and each of `paths`,
 * as they are now: what a warm run compares.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { probeEntries } from "./_warm.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/a.jsonl`, "{}\n");
 * const entries = probeEntries([dir], [`${dir}/missing`]);
 * assert.deepEqual(entries.map((entry) => [entry[0], entry[2]]), [
 *   [dir, entries[0]![2]],
 *   [`${dir}/a.jsonl`, 3],
 *   [`${dir}/missing`, undefined],
 * ]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function probeEntries(
  roots: readonly string[],
  paths: readonly string[] = [],
): ProbeEntry[] {
  const entries: ProbeEntry[] = [];
  const seen = new Set<string>();
  const visit = (path: string) => {
    const entry = entryOf(path);
    entries.push(entry);
    if (entry.length === 1) return;
    let info: Deno.FileInfo;
    try {
      info = Deno.statSync(path);
    } catch {
      return;
    }
    if (!info.isDirectory) return;
    const id = `${info.dev}:${info.ino}`;
    if (seen.has(id)) return;
    seen.add(id);
    let names: string[];
    try {
      names = [...Deno.readDirSync(path)].map((e) => e.name).sort();
    } catch {
      return;
    }
    // Joined by hand: node:path is tens of milliseconds of a warm start.
    for (const name of names) visit(`${path}/${name}`);
  };
  for (const root of roots) visit(root);
  for (const path of paths) entries.push(entryOf(path));
  return entries;
}

/** Whether every entry is as it was, and none changed too close to when it was listed. */
function unchanged(entries: readonly ProbeEntry[], listedAt: number): boolean {
  for (const entry of entries) {
    const now = entryOf(entry[0]);
    if (now.length !== entry.length) return false;
    if (now.length === 1) continue;
    if (now[1] !== entry[1] || now[2] !== entry[2] || now[3] !== entry[3]) return false;
    if (now[3] >= listedAt - RACY_MS) return false;
  }
  return true;
}

interface ProbeRow {
  env: string;
  entries: string;
  scope: string;
  listed_at: number;
}

interface KeptRows {
  about: string;
}

/**
 * The count kept for `question` when nothing it was found from changed: the same environment
 * variables, every folder and file as it was. Undefined otherwise, or when the database keeps
 * none (another version, no table).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DatabaseSync } from "node:sqlite";
 * import { warmUsage } from "./_warm.ts";
 * const db = new DatabaseSync(":memory:");
 * assert.equal(warmUsage(db, { places: ["--codex"], cwd: "/" }), undefined);
 * ```
 */
export function warmUsage(db: DatabaseSync, question: UsageQuestion): CollectedUsage | undefined {
  // One read transaction: the probe, the count and its rows of one moment, whatever a run
  // beside this one writes.
  db.exec("BEGIN");
  try {
    return keptAnswer(db, question);
  } finally {
    db.exec("COMMIT");
  }
}

function keptAnswer(db: DatabaseSync, question: UsageQuestion): CollectedUsage | undefined {
  if (!usageTablesCurrent(db)) return undefined;
  const probe = db.prepare(
    "SELECT env, entries, scope, listed_at FROM usage_probes WHERE question = ?",
  ).get(questionKey(question)) as ProbeRow | undefined;
  if (probe === undefined) return undefined;
  const env = JSON.parse(probe.env) as Record<string, string | null>;
  for (const [name, value] of Object.entries(env)) {
    if ((Deno.env.get(name) ?? null) !== value) return undefined;
  }
  if (!unchanged(JSON.parse(probe.entries) as ProbeEntry[], probe.listed_at)) return undefined;
  const scope = db.prepare("SELECT about FROM usage_scopes WHERE scope = ?").get(probe.scope) as
    | KeptRows
    | undefined;
  if (scope === undefined) return undefined;
  const about = JSON.parse(scope.about) as Omit<CollectedUsage, "rows">;
  return { ...about, rows: foldedRows(db, probe.scope) };
}

/** The folded rows of a kept count, in the order they were counted. */
export function foldedRows(db: DatabaseSync, scope: string): CollectedUsage["rows"] {
  return db.prepare(
    "SELECT time, model, input, output, cache_read AS cacheRead, " +
      "cache_creation AS cacheCreation, reasoning_output AS reasoningOutput, format, " +
      "session_id AS sessionId, session_path AS sessionPath, project, cost, " +
      "cost_source AS costSource FROM usage_folded WHERE scope = ? ORDER BY rowid",
  ).all(scope) as unknown as CollectedUsage["rows"];
}

/** What a count's question was found from, kept with it ({@linkcode keepProbe}). */
export interface UsageProbe {
  /** The question. */
  question: UsageQuestion;
  /** The environment variables its places were found from, and their values (null: unset). */
  env: Record<string, string | null>;
  /** Every folder and file under its places before the count ({@linkcode probeEntries}). */
  entries: ProbeEntry[];
  /** When they were listed (ms since the epoch). */
  listedAt: number;
}

/** Questions kept at most (the latest asked): each keeps a listing of its places. */
const KEPT_QUESTIONS = 32;

/**
 * Keeps what a count's question was found from, beside the count of `scope`; the questions
 * asked longest ago beyond the latest 32 are let go (their next run counts again).
 */
export function keepProbe(db: DatabaseSync, scope: string, probe: UsageProbe): void {
  db.prepare(
    "INSERT OR REPLACE INTO usage_probes (question, env, entries, scope, listed_at) " +
      "VALUES (?, ?, ?, ?, ?)",
  ).run(
    questionKey(probe.question),
    JSON.stringify(probe.env),
    JSON.stringify(probe.entries),
    scope,
    probe.listedAt,
  );
  db.prepare(
    "DELETE FROM usage_probes WHERE question NOT IN " +
      "(SELECT question FROM usage_probes ORDER BY listed_at DESC LIMIT ?)",
  ).run(KEPT_QUESTIONS);
}
