/**
 * A session file parsed from its end back to its last compaction checkpoint, in one pass:
 * what resume replays. Every line after the checkpoint has to be parsed anyway, so parsing
 * is the search: no separate scan for the checkpoint, and a file without one is read once.
 *
 * @module
 */
import { forEachLineBackward, type LineFromTheEnd } from "../io/mod.ts";
import {
  type CompactionCheckpoint,
  parseRecordLine,
  type RecordEntry,
  type SessionRecord,
} from "../record/mod.ts";

/** A session file's records from its last usable checkpoint on, or all of them. */
export interface RecordsFromEnd {
  /**
   * The entries in file order: from the checkpoint's line to the end, or every line of the
   * file. Only entries from the first line carry line numbers; after a checkpoint they are 0.
   */
  entries: RecordEntry[];
  /**
   * The checkpoint the entries start at (its line's byte range and the records the file held
   * before it); undefined when the entries start at the first line.
   */
  checkpoint: { start: number; end: number; recordsBefore: number } | undefined;
}

/** Options of {@linkcode readRecordsFromEnd}. */
export interface ReadRecordsFromEndOptions {
  /** The largest block read at once, in bytes. */
  blockSize?: number | undefined;
}

/** The checkpoint a record is, if it is one. */
function checkpointOf(record: SessionRecord | undefined): CompactionCheckpoint | undefined {
  if (record?.type !== "response_item") return undefined;
  return record.payload.type === "compaction_checkpoint" ? record.payload : undefined;
}

/**
 * Parses the session file at `path` from its last line back to its last valid compaction
 * checkpoint, and returns the entries from there on in file order. It goes on to the first
 * line (and numbers every entry) when there is no checkpoint, when the last one does not
 * store its record count (an older file), or when a line after it is not a valid record, so
 * that every problem is reported with its line number, as a forward read reports it. Empty
 * lines are skipped.
 *
 * @example
 * ```ts ignore
 * const { entries, checkpoint } = await readRecordsFromEnd("session.jsonl");
 * ```
 */
export async function readRecordsFromEnd(
  path: string,
  options: ReadRecordsFromEndOptions = {},
): Promise<RecordsFromEnd> {
  // Last first; a line's number is only known once the first line is reached: until then an
  // entry's `line` holds its place counted from the end (1 for the last line).
  const reversed: RecordEntry[] = [];
  const problemLines = new Map<RecordEntry, LineFromTheEnd>();
  let fromEnd = 0;
  // Once the last checkpoint is passed (unusable), the parse goes on to the first line.
  let passed = false;
  let checkpoint: RecordsFromEnd["checkpoint"];
  await forEachLineBackward(path, (line) => {
    fromEnd++;
    if (line.text.length === 0 && line.terminated) return true;
    const { text, start, end, terminated } = line;
    const entry = parseRecordLine(path, { line: fromEnd, text, start, end, terminated });
    reversed.push(entry);
    if (entry.problem) problemLines.set(entry, line);
    const found = passed ? undefined : checkpointOf(entry.record);
    if (found === undefined) return true;
    const { recordsBefore } = found;
    if (recordsBefore !== undefined && problemLines.size === 0) {
      checkpoint = { start, end, recordsBefore };
      return false;
    }
    passed = true;
    return true;
  }, options);
  if (checkpoint) {
    for (const kept of reversed) kept.line = 0;
    return { entries: reversed.reverse(), checkpoint };
  }
  const total = fromEnd;
  const entries = reversed.reverse();
  for (const [index, entry] of entries.entries()) {
    const line = total + 1 - entry.line;
    const problemLine = problemLines.get(entry);
    // A problem's message names its line: it is parsed again now that the number is known.
    entries[index] = problemLine ? parseRecordLine(path, { ...problemLine, line }) : entry;
    entries[index]!.line = line;
  }
  return { entries, checkpoint: undefined };
}
