/**
 * A session file replayed from its last compaction checkpoint on, found by parsing the file
 * from its end, in one pass: what resume reads. Every line after the checkpoint has to be
 * parsed anyway, so parsing is the search: no separate scan for the checkpoint, and a file
 * without one is read once. Replaying backward keeps only the history items: a record is let
 * go of as soon as it is read.
 *
 * @module
 */
import { forEachLineBackward, type Line } from "../io/mod.ts";
import {
  type CompactionCheckpoint,
  parseRecordLine,
  recordOf,
  type ResponseItem,
  type SessionMeta,
  type SessionRecord,
  type TurnContext,
} from "../record/mod.ts";
import { SessionReplay } from "./_session_replay.ts";

/** Options of {@linkcode replayFromLastCheckpoint}. */
export interface ReplayFromLastCheckpointOptions {
  /** The largest block read at once, in bytes. */
  blockSize?: number | undefined;
}

/** A bad line read from the end, kept until its number is known. */
interface BadLine {
  /** Lines read up to it, counted from the end. */
  fromEnd: number;
  line: Line;
}

/**
 * What a forward {@linkcode SessionReplay} would hold, gathered from the last line back: only
 * the history items after the newest checkpoint are kept (last first), the other records are
 * counted and let go of as soon as they are read.
 */
class FromEnd {
  /** The history items after the newest checkpoint, last first. */
  readonly items: ResponseItem[] = [];
  /** The newest checkpoint read: the history starts with its replacement. */
  newest: CompactionCheckpoint | undefined;
  /** The oldest valid record read so far, its line counted from the end, where it starts. */
  oldest: SessionRecord | undefined;
  oldestFromEnd = 0;
  oldestStart = 0;
  /** The oldest `session_meta` read so far. */
  meta: SessionMeta | undefined;
  /** The newest `turn_context` read. */
  lastTurn: TurnContext | undefined;
  turns = 0;
  records = 0;
  readonly bad: BadLine[] = [];

  /** Takes a valid record; true when it is the checkpoint the replay can start from. */
  take(record: SessionRecord, fromEnd: number, start: number): boolean {
    this.records++;
    // Three fields, not an object a record: most records are let go of at once.
    this.oldest = record;
    this.oldestFromEnd = fromEnd;
    this.oldestStart = start;
    if (record.type === "session_meta") this.meta = record.payload;
    else if (record.type === "turn_context") {
      this.turns++;
      this.lastTurn ??= record.payload;
    } else if (record.type === "response_item" && this.newest === undefined) {
      const item = record.payload;
      if (item.type !== "compaction_checkpoint") this.items.push(item);
      else {
        this.newest = item;
        return this.bad.length === 0 && item.recordsBefore !== undefined;
      }
    }
    return false;
  }
}

/**
 * The session file at `path` replayed from its last compaction checkpoint on: the
 * {@linkcode SessionReplay} a forward replay of the checkpoint and the records after it gives
 * (its `from` set, line numbers 0: they are unknown from the end), when that checkpoint stores
 * its record count and every line after it is a valid record; else the replay of the whole
 * file, its problems numbered as a forward read numbers them. The file is parsed once, from
 * its end; empty lines are skipped. The entries are not kept (a record is let go of once
 * read): only the history items after the last checkpoint, until the end. Entries kept until
 * the end and replayed forward cost about a fifth more time at 100 MB (garbage collection).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { replayFromLastCheckpoint } from "./mod.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "not json\n");
 * const replay = await replayFromLastCheckpoint(path);
 * assert.equal(replay.problems[0]?.kind, "malformed_json");
 * await Deno.remove(path);
 * ```
 */
export async function replayFromLastCheckpoint(
  path: string,
  options: ReplayFromLastCheckpointOptions = {},
): Promise<SessionReplay> {
  const read = new FromEnd();
  let fromEnd = 0;
  let stopped = false;
  await forEachLineBackward(path, (line) => {
    fromEnd++;
    if (line.text.length === 0 && line.terminated) return true;
    const record = recordOf(line.text);
    if (record === undefined) {
      read.bad.push({ fromEnd, line });
      return true;
    }
    stopped = read.take(record, fromEnd, line.start);
    return !stopped;
  }, options);
  return replayOf(path, read, stopped ? 0 : fromEnd + 1);
}

/** The replay `read` gathered; `total` numbers the lines (0: read from a checkpoint). */
function replayOf(path: string, read: FromEnd, total: number): SessionReplay {
  const replay = new SessionReplay();
  const { newest, oldest } = read;
  if (newest) { for (const item of newest.replacementHistory) replay.history.push(item); }
  for (let at = read.items.length - 1; at >= 0; at--) replay.history.push(read.items[at]!);
  for (let at = read.bad.length - 1; at >= 0; at--) {
    const { fromEnd, line } = read.bad[at]!;
    replay.problems.push(parseRecordLine(path, { ...line, line: total - fromEnd }).problem!);
  }
  if (oldest) {
    replay.first = { line: total === 0 ? 0 : total - read.oldestFromEnd, record: oldest };
    const item = oldest.type === "response_item" ? oldest.payload : undefined;
    if (item?.type === "compaction_checkpoint") {
      replay.from = { checkpoint: item, start: read.oldestStart };
    }
  }
  replay.meta = read.meta;
  replay.lastTurn = read.lastTurn;
  replay.turns = read.turns;
  replay.records = read.records;
  return replay;
}
