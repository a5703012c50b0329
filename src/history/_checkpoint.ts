/**
 * The last compaction checkpoint of a session file, found by reading the file backward: resume
 * starts its replay there and never reads what came before it.
 *
 * @module
 */
import { type BackwardLine, readLinesBackward, type ReadLinesBackwardOptions } from "../io/mod.ts";
import { type CompactionCheckpoint, parseRecordLine } from "../record/mod.ts";

/**
 * The quoted type name every checkpoint line holds. In JSON a `"` inside a string is escaped,
 * so a line can hold this only where a value is exactly the type name (or in an odd string
 * that ends in it): a cheap test before parsing, with no false negatives for JSON writers
 * that do not escape plain ASCII letters.
 */
export const CHECKPOINT_MARKER = '"compaction_checkpoint"';

/** The last valid checkpoint of a session file and where its line is. */
export interface FoundCheckpoint {
  checkpoint: CompactionCheckpoint;
  /** Byte offset of the checkpoint line's first byte. */
  start: number;
  /** Byte offset just past the checkpoint line, terminator included. */
  end: number;
  /** Lines that looked like checkpoints after it but were not valid records. */
  skipped: number;
}

/**
 * Finds the last valid `compaction_checkpoint` record of a session file by reading it
 * backward in blocks: only lines that hold {@linkcode CHECKPOINT_MARKER} are parsed, and
 * nothing before the checkpoint is read. A corrupt checkpoint line is passed over for the one
 * before it (the forward replay after the found one reports it, with its line number).
 * Returns `undefined` for a file without one, having read it all.
 */
export async function findLastCheckpoint(
  path: string,
  options: ReadLinesBackwardOptions = {},
): Promise<FoundCheckpoint | undefined> {
  let skipped = 0;
  for await (const line of readLinesBackward(path, { ...options, only: CHECKPOINT_MARKER })) {
    const entry = parseRecordLine(path, { ...lineShape(line), line: 0 });
    const record = entry.record;
    if (record?.type === "response_item" && record.payload.type === "compaction_checkpoint") {
      return { checkpoint: record.payload, start: line.start, end: line.end, skipped };
    }
    if (entry.problem) skipped++;
  }
  return undefined;
}

function lineShape(line: BackwardLine) {
  return { text: line.text, start: line.start, end: line.end, terminated: line.terminated };
}
