/**
 * A session file replayed from its end back to its last compaction checkpoint, in one pass:
 * what resume does. Every line after the checkpoint has to be parsed anyway, so parsing is
 * the search: no separate scan for the checkpoint, and a file without one is read once.
 * Replaying backward keeps only the history items: a record is let go of as soon as it is
 * read.
 *
 * @module
 */
import { forEachLineBackward, type Line } from "../io/mod.ts";
import {
  type CompactionCheckpoint,
  type LineProblem,
  parseRecordLine,
  recordOf,
  type ResponseItem,
  type SessionRecord,
  type TurnContext,
} from "../record/mod.ts";

/** What {@linkcode replayFromEnd} read. */
export interface ReplayedFromEnd {
  /** The replayed model-visible history, before normalization: what a forward replay gives. */
  replayed: ResponseItem[];
  /** The newest `turn_context` read (none read: undefined). */
  lastTurn: TurnContext | undefined;
  /** Valid records read (from the checkpoint on, or in the whole file). */
  records: number;
  /** The file's first valid record and its line, when the whole file was read. */
  first: { line: number; record: SessionRecord } | undefined;
  /** The lines that are not valid records, in file order, when the whole file was read. */
  problems: LineProblem[];
  /**
   * The checkpoint the replay starts from (its line's byte range and the records the file held
   * before it); undefined when the whole file was read.
   */
  checkpoint: { start: number; end: number; recordsBefore: number } | undefined;
}

/** Options of {@linkcode replayFromEnd}. */
export interface ReplayFromEndOptions {
  /** The largest block read at once, in bytes. */
  blockSize?: number | undefined;
}

/** The reader's state, last line first. */
class Backward {
  /** History items after the last checkpoint, last first. */
  readonly items: ResponseItem[] = [];
  /** The last checkpoint, once passed: the history starts with its replacement. */
  last: CompactionCheckpoint | undefined;
  lastTurn: TurnContext | undefined;
  records = 0;
  /** Lines read so far, counted from the end. */
  fromEnd = 0;
  first: { fromEnd: number; record: SessionRecord } | undefined;
  /** Problems with the line each came from, last first; numbered once the count is known. */
  readonly problems: { fromEnd: number; line: Line }[] = [];

  /** Takes a valid record; true when it is a checkpoint resume can start from. */
  record(record: SessionRecord): boolean {
    this.records++;
    this.first = { fromEnd: this.fromEnd, record };
    if (record.type === "turn_context") this.lastTurn ??= record.payload;
    if (record.type !== "response_item" || this.last) return false;
    const item = record.payload;
    if (item.type !== "compaction_checkpoint") {
      this.items.push(item);
      return false;
    }
    this.last = item;
    return item.recordsBefore !== undefined && this.problems.length === 0;
  }

  replayed(): ResponseItem[] {
    const after = this.items.reverse();
    return this.last ? [...this.last.replacementHistory, ...after] : after;
  }
}

/**
 * Replays the session file at `path` from its last line back to its last valid compaction
 * checkpoint: the history is the checkpoint's replacement history and the items after it,
 * exactly what a forward replay of the whole file gives. It reads on to the first line (and
 * numbers every problem) when there is no checkpoint, when the last one does not store its
 * record count (an older file), or when a line after it is not a valid record, so that every
 * problem is reported with its line number, as a forward read reports it. Empty lines are
 * skipped.
 *
 * @example
 * ```ts ignore
 * const { replayed, checkpoint } = await replayFromEnd("session.jsonl");
 * ```
 */
export async function replayFromEnd(
  path: string,
  options: ReplayFromEndOptions = {},
): Promise<ReplayedFromEnd> {
  const read = new Backward();
  let checkpoint: ReplayedFromEnd["checkpoint"];
  await forEachLineBackward(path, (line) => {
    read.fromEnd++;
    if (line.text.length === 0 && line.terminated) return true;
    const record = recordOf(line.text);
    if (record === undefined) {
      read.problems.push({ fromEnd: read.fromEnd, line });
      return true;
    }
    if (!read.record(record)) return true;
    const recordsBefore = (record.payload as CompactionCheckpoint).recordsBefore!;
    checkpoint = { start: line.start, end: line.end, recordsBefore };
    return false;
  }, options);
  const replayed = read.replayed();
  const { lastTurn, records } = read;
  if (checkpoint) {
    return { replayed, lastTurn, records, first: undefined, problems: [], checkpoint };
  }
  // The whole file was read: its lines can be numbered now. A problem's message names its
  // line, so its line is parsed again with its number.
  const number = (fromEnd: number) => read.fromEnd + 1 - fromEnd;
  const problems = read.problems.reverse().map(({ fromEnd, line }) =>
    parseRecordLine(path, { ...line, line: number(fromEnd) }).problem!
  );
  const first = read.first && { line: number(read.first.fromEnd), record: read.first.record };
  return { replayed, lastTurn, records, first, problems, checkpoint: undefined };
}
