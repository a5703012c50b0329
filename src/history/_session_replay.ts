/**
 * The one replay accumulator: a session's entries taken in append order into what resume,
 * fork, import, the charts and another tool's files all need from them (the `session_meta`,
 * the newest turn context, the counts, the problems, the model-visible history). Pure.
 *
 * @module
 */
import {
  type CompactionCheckpoint,
  type LineProblem,
  type ResponseItem,
  SessionFileError,
  type SessionMeta,
  type SessionRecord,
  type TurnContext,
} from "../record/mod.ts";
import { replayRecord } from "./_replay.ts";

/** The checkpoint a replay started from: its payload and where its record is. */
export interface ReplayStart {
  /** The checkpoint record's payload (its `recordsBefore` counts the records before it). */
  checkpoint: CompactionCheckpoint;
  /** Where the checkpoint's record starts: a byte offset in a file, a sequence number. */
  start: number;
}

/** An entry as the readers give it: a record or a problem, its line and where it starts. */
export interface ReplayedEntry {
  /** The valid record, or undefined. */
  record?: SessionRecord | undefined;
  /** What is wrong with the line, or undefined. */
  problem?: LineProblem | undefined;
  /** The 1-based line number; 0 or absent when unknown. */
  line?: number;
  /** Where the record starts (a byte offset, a sequence number). */
  start?: number;
}

/**
 * A session's entries replayed one at a time, in append order: from the first record (a
 * `session_meta` first), or from a compaction checkpoint (the first record taken), whose
 * replacement history the history starts with. Problems are collected, never thrown.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SessionReplay } from "./mod.ts";
 * import { makeRecord } from "../record/mod.ts";
 * const replay = new SessionReplay();
 * replay.pushRecord(makeRecord("response_item", { type: "message", role: "user", content: "hi" }));
 * assert.equal(replay.history.length, 1);
 * assert.equal(replay.records, 1);
 * ```
 */
export class SessionReplay {
  /** The model-visible history so far, before normalization. */
  readonly history: ResponseItem[] = [];
  /** The lines that are not valid records, in the order taken. */
  readonly problems: LineProblem[] = [];
  /** The first valid record and its line (0: the store does not number lines). */
  first: { line: number; record: SessionRecord } | undefined;
  /** The first `session_meta` taken, wherever it stood. */
  meta: SessionMeta | undefined;
  /** The newest `turn_context` taken. */
  lastTurn: TurnContext | undefined;
  /** The `turn_context` records taken: the turns started. */
  turns = 0;
  /** Valid records taken. */
  records = 0;
  /** The checkpoint the replay started from (its record taken first), or undefined. */
  from: ReplayStart | undefined;

  /**
   * Takes one entry: a problem is collected, a record replayed; an entry with neither (a line
   * another tool's reader ignores) is passed over.
   */
  push(entry: ReplayedEntry): void {
    if (entry.problem) this.problems.push(entry.problem);
    else if (entry.record) this.pushRecord(entry.record, entry.line, entry.start);
  }

  /** Takes one valid record, from line `line` (0 when unknown) at position `start`. */
  pushRecord(record: SessionRecord, line = 0, start = 0): void {
    if (this.first === undefined) {
      this.first = { line, record };
      const item = record.type === "response_item" ? record.payload : undefined;
      if (item?.type === "compaction_checkpoint") this.from = { checkpoint: item, start };
    }
    this.records++;
    if (record.type === "session_meta") this.meta ??= record.payload;
    else if (record.type === "turn_context") {
      this.turns++;
      this.lastTurn = record.payload;
    } else replayRecord(this.history, record);
  }

  /**
   * The records of the whole session: the records taken, and those before the checkpoint the
   * replay started from (undefined when that checkpoint does not store its count).
   */
  get recordCount(): number | undefined {
    if (this.from === undefined) return this.records;
    const before = this.from.checkpoint.recordsBefore;
    return before === undefined ? undefined : before + this.records;
  }

  /**
   * The `session_meta` of a replay from the first record, checked as resume and fork check it:
   * it is the first valid record, and it names the session `id` it was found as.
   *
   * @throws {SessionFileError} when the first record is another one, names another session,
   * or when no record could be read (its first problem, or an empty file)
   */
  sessionMeta(path: string, id: string): SessionMeta {
    if (this.first === undefined) {
      const problem = this.problems[0];
      throw new SessionFileError(
        problem
          ? `${problem.message} (no session_meta record could be read)`
          : `${path}:1: empty session file, no session_meta record`,
      );
    }
    return expectMeta(path, id, this.first);
  }
}

/**
 * `first` as a session's `session_meta`: the session_meta record, naming `id`.
 *
 * @throws {SessionFileError} when it is another record, or names another session
 */
export function expectMeta(
  path: string,
  id: string,
  first: { line: number; record: SessionRecord },
): SessionMeta {
  const { line, record } = first;
  if (record.type !== "session_meta") {
    throw new SessionFileError(
      `${path}:${line}: expected the session_meta record first, found ${record.type}`,
    );
  }
  if (record.payload.id !== id) {
    throw new SessionFileError(
      `${path}:${line}: session_meta names the session ${JSON.stringify(record.payload.id)}, ` +
        `but the file is found as ${JSON.stringify(id)}; it was copied or renamed by hand`,
    );
  }
  return record.payload;
}
