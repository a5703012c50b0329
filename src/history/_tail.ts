/**
 * A session file's entries from its last compaction checkpoint on, found by parsing the file
 * from its end, in one pass: what resume reads. Every line after the checkpoint has to be
 * parsed anyway, so parsing is the search: no separate scan for the checkpoint, and a file
 * without one is read once.
 *
 * @module
 */
import { forEachLineBackward, type Line } from "../io/mod.ts";
import {
  type LineProblem,
  parseRecordLine,
  type RecordEntry,
  recordOf,
  type SessionRecord,
} from "../record/mod.ts";

/** One entry of a session file and its line's byte range. */
export type FileEntry = RecordEntry & {
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line, terminator included. */
  end: number;
};

/** Options of {@linkcode entriesFromLastCheckpoint}. */
export interface EntriesFromLastCheckpointOptions {
  /** The largest block read at once, in bytes. */
  blockSize?: number | undefined;
}

/** A bad line read from the end, kept until its number is known. */
interface BadLine {
  /** Where its entry is in the entries, last first. */
  at: number;
  /** Lines read up to it, counted from the end. */
  fromEnd: number;
  line: Line;
}

/** The problem a bad line holds until the whole file is read and it can be numbered. */
const UNNUMBERED: LineProblem = { line: 0, kind: "invalid_record", message: "", start: 0, end: 0 };

/** Whether `record` is a checkpoint a replay can start from: it stores its record count. */
function isStartingCheckpoint(record: SessionRecord): boolean {
  return record.type === "response_item" && record.payload.type === "compaction_checkpoint" &&
    record.payload.recordsBefore !== undefined;
}

/**
 * The entries of the session file at `path`, in file order, from its last compaction
 * checkpoint on (the checkpoint first, line numbers 0: they are unknown from the end) when
 * that checkpoint stores its record count and every line after it is a valid record; else
 * every entry of the file, numbered, so that every problem is reported with its line as a
 * forward read reports it. The file is parsed once, from its end; empty lines are skipped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { entriesFromLastCheckpoint } from "./mod.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "not json\n");
 * const [entry] = await entriesFromLastCheckpoint(path);
 * assert.equal(entry?.problem?.kind, "malformed_json");
 * await Deno.remove(path);
 * ```
 */
export async function entriesFromLastCheckpoint(
  path: string,
  options: EntriesFromLastCheckpointOptions = {},
): Promise<FileEntry[]> {
  // Entries last first; a record's line number is set once the count is known.
  const entries: FileEntry[] = [];
  const bad: BadLine[] = [];
  const fromEnds: number[] = [];
  let fromEnd = 0;
  let checkpointSeen = false;
  let fromCheckpoint = false;
  await forEachLineBackward(path, (line) => {
    fromEnd++;
    if (line.text.length === 0 && line.terminated) return true;
    const record = recordOf(line.text);
    const { start, end } = line;
    if (record === undefined) {
      bad.push({ at: entries.length, fromEnd, line });
      entries.push({ line: 0, problem: UNNUMBERED, start, end });
      fromEnds.push(fromEnd);
      return true;
    }
    entries.push({ line: 0, record, start, end });
    fromEnds.push(fromEnd);
    const item = record.type === "response_item" ? record.payload : undefined;
    if (item?.type !== "compaction_checkpoint" || checkpointSeen) return true;
    checkpointSeen = true;
    fromCheckpoint = bad.length === 0 && isStartingCheckpoint(record);
    return !fromCheckpoint;
  }, options);
  if (!fromCheckpoint) {
    // Read whole, the lines can be numbered now; a problem's message names its line, so its
    // line is parsed again with its number.
    const total = fromEnd + 1;
    entries.forEach((entry, at) => entry.line = total - fromEnds[at]!);
    for (const { at, fromEnd, line } of bad) {
      const entry = parseRecordLine(path, { ...line, line: total - fromEnd });
      entries[at] = { ...entry, start: line.start, end: line.end };
    }
  }
  return entries.reverse();
}
