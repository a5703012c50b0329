/**
 * The full-text index's rows of a file: each line's text and who said it, with its line, turn
 * and byte range, put in as a reader tells the lines ({@linkcode LineIndexer}); and the text of
 * a file whose facts were read without it, put in when a search asks ({@linkcode indexText}).
 *
 * A grown file's facts are continued by a listing without its text: its rows stay as they
 * were, and where they stop is kept with the file's state (`ResumeState.text`, a
 * `TextResume`); the next search reads the file from the last turn before that point
 * and puts in the rows of the lines past it alone.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import { forEachLine, isCompressed, type Line } from "../io/mod.ts";
import { searchProfile } from "../search/_profiles.ts";
import type { Json, ParsedLine } from "../formats/mod.ts";
import type { ResumeTracker, TextResume } from "./_grow.ts";
import { faultPoint, sameRow, type Statements, statementsOf } from "./_statements.ts";
import type { KnownFile } from "./_walk.ts";

/** A line's JSON object, from its parse when a reader made one; null when it holds none. */
export function valueOf(line: Line, parsed: ParsedLine | undefined): Json | null {
  if (parsed !== undefined) return "value" in parsed ? parsed.value : null;
  try {
    const value: unknown = JSON.parse(line.text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Json
      : null;
  } catch {
    return null;
  }
}

/** The text a line's conversation holds, and who said it; null for a line without any. */
function lineText(
  line: Line,
  parsed: ParsedLine | undefined,
  pieces: (value: Json) => { role: string; text: string }[],
): { body: string; roles: string } | null {
  let value: unknown;
  if (parsed === undefined) {
    try {
      value = JSON.parse(line.text);
    } catch {
      value = undefined;
    }
  } else if ("value" in parsed) value = parsed.value;
  else if (parsed.problem.kind === "not_an_object") value = null;
  // Not JSON: kept with no role, so that a search says it skipped it as a scan does.
  if (value === undefined) return { body: line.text, roles: "" };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const found = pieces(value as Json);
  if (found.length === 0) return null;
  return {
    body: found.map((piece) => piece.text).join("\n"),
    roles: [...new Set(found.map((piece) => piece.role))].join(","),
  };
}

/** Where the rows of a file's lines go: from the byte `from` on, in the file of row `fileId`. */
export interface TextTarget {
  from: number;
  fileId: number;
  s: Statements;
}

/**
 * The lines of one file put in the text index, in order, each once: told by the inspector's
 * reader as it parses them, then those it did not tell (what it left after its last line, or a
 * whole file it read otherwise) from a read of the rest alone.
 */
export class LineIndexer {
  /** Where the lines indexed so far end, and the last one's number. */
  indexed: number;
  lines: number;
  inherits = false;
  /** A line past the stat's size, or torn: the lines from it wait for the next update. */
  stopped = false;
  /** What a line's turn adds to the counter's (the turn before a grown file's last turn). */
  base = 0;
  /** Follows the lines for the state that continues the file's facts when it grows. */
  tracker: ResumeTracker | undefined;
  readonly #turns: ReturnType<ReturnType<typeof searchProfile>["turns"]>;
  readonly #marker: string | undefined;

  /**
   * `size`: the file's size when it was `stat`ed; `text`: where its lines' text goes in the
   * index, from the offset `from` on (none: the lines are counted alone).
   */
  constructor(
    readonly size: number,
    readonly text: TextTarget | undefined,
    readonly profile: ReturnType<typeof searchProfile>,
  ) {
    this.indexed = 0;
    this.lines = 0;
    this.#turns = profile.turns();
    this.#marker = profile.inherited?.marker;
  }

  /** One line, with its parse when a reader made it; false once the lines stop. */
  take(line: Line, parsed: ParsedLine | undefined, compressed: boolean): boolean {
    // A line told twice or out of order (a reader's second look) is not the file's next line.
    if (this.stopped || line.start < this.indexed) return !this.stopped;
    // What was written after the stat waits for the next update; so does a torn last line.
    if (!compressed && (line.end > this.size || !line.terminated)) {
      this.stopped = true;
      return false;
    }
    if (line.line === 1 && this.#marker !== undefined) {
      this.inherits = line.text.includes(this.#marker);
    }
    this.indexed = line.end;
    this.lines = line.line;
    const { text, tracker } = this;
    if (text === undefined && tracker === undefined) return true;
    const turn = this.base + this.#turns.turnOf(line.text);
    if (line.text.trim() === "") return true;
    tracker?.see(line, valueOf(line, parsed), turn);
    if (text === undefined || line.start < text.from) return true;
    const found = lineText(line, parsed, this.profile.pieces);
    if (found === null) return true;
    const id =
      text.s.insertLine.run(text.fileId, line.line, turn, line.start, line.end, found.roles)
        .lastInsertRowid;
    text.s.insertText.run(id, found.body);
    faultPoint();
    return true;
  }
}

/** Where a file's text is to end: its lines' end and the last one's number, as its facts read. */
export interface TextEnd {
  indexed: number;
  lines: number;
}

/**
 * Puts in the rows of a file's lines from `resume.from` to `end` (its rows before stay), read
 * from `resume.cut`; false when the file does not end there now (changed since its `stat`).
 */
export async function resumeText(
  target: { path: string; format: Parameters<typeof searchProfile>[0]; fileId: number },
  resume: TextResume,
  end: TextEnd,
  s: Statements,
): Promise<boolean> {
  const text = { from: resume.from, fileId: target.fileId, s };
  const indexer = new LineIndexer(end.indexed, text, searchProfile(target.format));
  indexer.base = resume.base;
  await forEachLine(target.path, (line) => indexer.take(line, undefined, false), {
    start: resume.cut,
    firstLine: resume.line,
  });
  return indexer.indexed === end.indexed && indexer.lines === end.lines;
}

/** A file as a search asks for its text: where it is, and where its text stopped (if kept). */
export interface UntextedFile {
  path: string;
  format: Parameters<typeof searchProfile>[0];
  size: number;
  known: KnownFile | undefined;
  resume: TextResume | undefined;
}

/**
 * Puts the text of a file read before without it in the full-text index, in one transaction:
 * its lines read alone (each parsed once), up to where its facts were read; from where its rows
 * stopped when that was kept, else from its start. False when the file is not as its row says
 * (changed since its `stat`, or rewritten keeping its size and time): nothing is put in, and its
 * row is marked to be read again whole by the next update.
 */
export async function indexText(db: DatabaseSync, file: UntextedFile): Promise<boolean> {
  const s = statementsOf(db);
  const { known, path } = file;
  db.exec("BEGIN IMMEDIATE");
  try {
    const row = s.byPath.get(path) as KnownFile | undefined;
    if (known === undefined || !sameRow(row, known) || row!.texted === 1) {
      // Another command indexed it, or read it again, since we looked: that stands.
      db.exec("ROLLBACK");
      return row?.texted === 1;
    }
    const compressed = isCompressed(path);
    let whole = true;
    if (file.resume !== undefined && !compressed) {
      const target = { path, format: file.format, fileId: known.id };
      whole = !await resumeText(target, file.resume, known, s);
    }
    if (whole) {
      s.dropRows(known.id);
      const text = { from: 0, fileId: known.id, s };
      const indexer = new LineIndexer(file.size, text, searchProfile(file.format));
      await forEachLine(path, (line) => indexer.take(line, undefined, compressed));
      if (indexer.indexed !== known.indexed || indexer.lines !== known.lines) {
        // Not as its row says: the next update reads it again, the text with it.
        db.exec("ROLLBACK");
        s.markStale.run(known.id);
        return false;
      }
    }
    s.markTexted.run(known.id);
    faultPoint();
    db.exec("COMMIT");
    faultPoint();
    return true;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}
