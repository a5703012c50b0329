/**
 * The catalog as a search's index: for a query, the lines of each file whose conversation
 * text holds every trigram of every term of three characters or more (FTS5's trigram index,
 * without positions: a superset of the lines holding the terms), with their numbers and turns; the search reads those lines alone and judges
 * them as a scan would. A file the catalog has not read as it is now (grown, torn at its end,
 * compressed, a fork whose history is another file's, or read in the tick of its last write: a
 * rewrite since may have kept its size and time) or whose text it has not indexed (an update
 * without `text`) is scanned instead.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { isCompressed, readRangeSync } from "../io/forward.ts";
import type { CompiledQuery, IndexedLine, SearchIndex } from "../search/mod.ts";

/** The shortest term the trigram index can look up. */
const TRIGRAM = 3;

/**
 * The FTS5 query of a search's words: every trigram (three characters) of each term of three
 * characters or more, each as a token, all of them ANDed; null when no term is that long: the
 * index cannot narrow the lines. The index keeps no positions (`detail = none`: a third of the
 * size and of the time to build), so it cannot ask for a term's trigrams in a row: a line with
 * all of them is a candidate, a superset of the lines holding the term, which the search judges
 * as a scan would. (A pattern is never asked: `searchSessions` scans for it.)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ftsQuery } from "./mod.ts";
 * import { compileQuery } from "../search/mod.ts";
 * assert.equal(
 *   ftsQuery(compileQuery({ terms: ["token", 'a"b', "ok"] })),
 *   '"tok" AND "oke" AND "ken" AND "a""b"',
 * );
 * assert.equal(ftsQuery(compileQuery({ terms: ["ok"] })), null);
 * ```
 */
export function ftsQuery(query: CompiledQuery): string | null {
  const trigrams = new Set<string>();
  for (const term of query.terms) {
    const chars = [...term];
    for (let at = 0; at + TRIGRAM <= chars.length; at++) {
      trigrams.add(chars.slice(at, at + TRIGRAM).join(""));
    }
  }
  if (trigrams.size === 0) return null;
  return [...trigrams].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(" AND ");
}

interface FileRow {
  path: string;
  texted: number;
  size: number;
  mtime: number;
  indexed: number;
  inherits: number;
  racy: number;
}

interface HitRow {
  path: string;
  line: number;
  turn: number;
  start: number;
  end: number;
}

const decoder = new TextDecoder();

/** The lines' texts, read from the file at their offsets, without their terminators. */
function readLines(path: string, rows: readonly HitRow[]): IndexedLine[] {
  if (rows.length === 0) return [];
  using file = Deno.openSync(path, { read: true });
  return rows.map((row) => {
    let text = decoder.decode(readRangeSync(file, { start: row.start, end: row.end }));
    if (text.endsWith("\n")) text = text.slice(0, -1);
    if (text.endsWith("\r")) text = text.slice(0, -1);
    return { text, offset: row.start, line: row.line, turn: row.turn };
  });
}

/**
 * The catalog's database as a search's index (see the module's comment). A lookup takes the
 * files' rows with the lines that match, at once: an update that runs while the search reads
 * (serve's list, the index's build after a search, another command) changes neither, so a file
 * is judged by the rows its lines came with.
 */
export function catalogSearchIndex(db: DatabaseSync): SearchIndex {
  const filesNow = db.prepare(
    "SELECT path, texted, size, mtime, indexed, inherits, racy FROM files WHERE deleted = 0",
  );
  const matching = db.prepare(
    `SELECT f.path, l.line, l.turn, l.start, l.end FROM text
     JOIN lines l ON l.id = text.rowid JOIN files f ON f.id = l.file
     WHERE text MATCH ? AND f.deleted = 0 ORDER BY l.file, l.line`,
  );
  return {
    lookup(query) {
      const match = ftsQuery(query);
      if (match === null) return () => undefined;
      const files = new Map<string, FileRow>();
      for (const row of filesNow.all() as unknown as FileRow[]) files.set(row.path, row);
      const byPath = new Map<string, HitRow[]>();
      for (const row of matching.all(match) as unknown as HitRow[]) {
        const rows = byPath.get(row.path);
        if (rows === undefined) byPath.set(row.path, [row]);
        else rows.push(row);
      }
      return (path) => {
        const file = files.get(path);
        if (file === undefined || file.texted === 0 || file.inherits === 1) return undefined;
        if (file.racy === 1) return undefined;
        if (isCompressed(path)) return undefined;
        if (file.indexed !== file.size) return undefined;
        let info: Deno.FileInfo;
        try {
          info = Deno.statSync(path);
        } catch {
          return undefined;
        }
        if (info.size !== file.size || (info.mtime?.getTime() ?? 0) !== file.mtime) {
          return undefined;
        }
        return readLines(path, byPath.get(path) ?? []);
      };
    },
  };
}
