/**
 * The shape of the inspector's report (`inspect --json`): what the inspector, the renderers,
 * the notebooks and the tests share. Each is inferred from its zod schema (`./schemas.ts`,
 * where the fields are described), which also validates a document of this shape; the import
 * is type-only, so the inspector loads no zod.
 *
 * @module
 */
import type { z } from "zod";
import type * as S from "./schemas.ts";

/**
 * Every kind of problem the inspector reports: the reader's per-line kinds, then its own, then
 * what another tool's check finds that no other problem or orphan call shows.
 */
export type InspectProblemKind = z.output<typeof S.InspectProblemKindSchema>;

/** Something wrong with the file, at a line. */
export type InspectProblem = z.output<typeof S.InspectProblemSchema>;

/** Records by record type, and `response_item` records by item type. */
export type RecordCounts = z.output<typeof S.RecordCountsSchema>;

/** Where a line is: its number and its turn (null: the header). */
export type LineRef = z.output<typeof S.LineRefSchema>;

/** A user, assistant or system message. */
export type MessageEntry = z.output<typeof S.MessageEntrySchema>;

/** A tool call, with where its output is. */
export type CallEntry = z.output<typeof S.CallEntrySchema>;

/** A tool call's output, with where its call is. */
export type OutputEntry = z.output<typeof S.OutputEntrySchema>;

/** The summary item a compaction put in place of the removed conversation. */
export type SummaryEntry = z.output<typeof S.SummaryEntrySchema>;

/** A compaction checkpoint: from here on, the history is its replacement history. */
export type Checkpoint = z.output<typeof S.CheckpointSchema>;

/** A compaction checkpoint, where it sits in its turn. */
export type CheckpointEntry = z.output<typeof S.CheckpointEntrySchema>;

/** The end of the run: its `run_finished` record. */
export type RunFinishedEntry = z.output<typeof S.RunFinishedEntrySchema>;

/** A stray `session_meta` or `turn_context` record. */
export type OtherEntry = z.output<typeof S.OtherEntrySchema>;

/** A line that is not a valid record, in its place. */
export type ProblemEntry = z.output<typeof S.ProblemEntrySchema>;

/**
 * What another tool's file holds that turnlog's model cannot hold, on consecutive lines of a
 * turn: counted by kind and shown, not dropped silently.
 */
export type IgnoredEntry = z.output<typeof S.IgnoredEntrySchema>;

/** One line of a turn, in file order. */
export type TurnEntry = z.output<typeof S.TurnEntrySchema>;

/** One turn: a `turn_context` record and every line after it up to the next one. */
export type Turn = z.output<typeof S.TurnSchema>;

/** The lines before the first `turn_context` (normally only `session_meta`). */
export type Header = z.output<typeof S.HeaderSchema>;

/** The columns of {@linkcode RecordCounts}, in table order. */
export const RECORD_COUNT_COLUMNS: readonly (keyof RecordCounts)[] = [
  "session_meta",
  "turn_context",
  "message",
  "function_call",
  "function_call_output",
  "compaction_summary",
  "compaction_checkpoint",
  "run_finished",
  "problem_lines",
  "ignored",
  "total",
];

/** Options of `TurnSegmenter`. */
export interface SegmenterOptions {
  /** Characters of each message, argument or output kept (the full length is recorded). */
  textLimit?: number;
  /**
   * Characters of a tool call's arguments kept, when more than `textLimit` (the page shows an
   * edit's whole input as a diff: see `SESSION_PAGE_INSPECTION` in `src/html`). Default:
   * `textLimit`.
   */
  callTextLimit?: number;
  /**
   * Keep every line of each turn as an entry (`entries` of the header and of each turn), as
   * the text view shows them. Default false: then memory does not grow with the file, only
   * with its turns and its damage.
   */
  entries?: boolean;
  /**
   * Called with the header, then with each turn, once no later line can add to it (its
   * counts, end line and entries are final): a view can show it and let go of its entries.
   */
  onBlock?: ((block: Header | Turn) => void) | undefined;
  /** Called for a call answered by an output in a later block: the call's line, the output. */
  onLaterOutput?: ((callLine: number, output: LineRef) => void) | undefined;
}
