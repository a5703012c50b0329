/**
 * The shape of the inspector's report (`inspect --json`): what the inspector, the renderers,
 * the notebooks and the tests share. The zod schemas in `./schemas.ts` validate a document of
 * this shape; the compiler checks that the two agree.
 *
 * @module
 */
import type { Policy, RunOutcome, Usage, WireApi } from "../record/mod.ts";

/**
 * Every kind of problem the inspector reports: the reader's per-line kinds, then its own, then
 * what another tool's check finds that no other problem or orphan call shows.
 */
export type InspectProblemKind =
  | "torn_tail"
  | "malformed_json"
  | "not_an_object"
  | "unknown_type"
  | "invalid_record"
  | "missing_session_meta"
  | "duplicate_session_meta"
  | "id_mismatch"
  | "record_before_first_turn"
  | "orphan_output"
  | "duplicate_output"
  | "duplicate_call"
  | "unanswered_call"
  | "unexpected_result"
  | "broken_chain"
  | "bad_ordinal";

/** Something wrong with the file, at a line. */
export interface InspectProblem {
  /** 1-based line number. */
  line: number;
  /** What is wrong. */
  kind: InspectProblemKind;
  /** `path:line: what is wrong`. */
  message: string;
  /** The turn the line is in (1-based), or null for the header before the first turn. */
  turn: number | null;
  /** Byte offset of the line's start; null when the problem is not one line. */
  start: number | null;
  /** Byte offset just past the line's terminator; null when the problem is not one line. */
  end: number | null;
}

/** Records by record type, and `response_item` records by item type. */
export interface RecordCounts {
  /** `session_meta` records. */
  session_meta: number;
  /** `turn_context` records. */
  turn_context: number;
  /** Messages (`response_item` `message`). */
  message: number;
  /** Tool calls. */
  function_call: number;
  /** Tool outputs (synthesized ones included). */
  function_call_output: number;
  /** Compaction summaries. */
  compaction_summary: number;
  /** Compaction checkpoints. */
  compaction_checkpoint: number;
  /** `run_finished` records. */
  run_finished: number;
  /** Lines that are not valid records. */
  problem_lines: number;
  /**
   * What another tool's file holds that turnlog's model cannot (reasoning, thinking, images,
   * progress lines...), one per thing; always 0 in a turnlog file.
   */
  ignored: number;
  /**
   * Every column above added up: in a turnlog file, its non-empty lines (one record or one
   * bad line each); another tool's line can hold several records, or only ignored things.
   */
  total: number;
}

/** Where a line is: its number and its turn (null: the header). */
export interface LineRef {
  /** The 1-based line number. */
  line: number;
  /** The turn it is in, or null for the header. */
  turn: number | null;
}

/** A user, assistant or system message. */
export interface MessageEntry {
  /** A message entry. */
  kind: "message";
  /** Its 1-based line number. */
  line: number;
  /** Who wrote it. */
  role: "system" | "user" | "assistant";
  /** The text, shortened to the report's text limit. */
  text: string;
  /** The full length of the text. */
  chars: number;
}

/** A tool call, with where its output is. */
export interface CallEntry {
  /** A call entry. */
  kind: "function_call";
  /** Its 1-based line number. */
  line: number;
  /** The id that pairs it with its output. */
  callId: string;
  /** The tool called. */
  name: string;
  /** The arguments, shortened to the report's text limit. */
  text: string;
  /** The full length of the arguments. */
  chars: number;
  /** The line of the output that answers it, or null. */
  output: LineRef | null;
  /** True when resume would synthesize an output for it. */
  orphan: boolean;
}

/** A tool call's output, with where its call is. */
export interface OutputEntry {
  /** An output entry. */
  kind: "function_call_output";
  /** Its 1-based line number. */
  line: number;
  /** The id of the call it answers. */
  callId: string;
  /** The tool that was called. */
  toolName: string;
  /** True when the output reports a failure. */
  isError: boolean;
  /** True when resume made it up for an interrupted call. */
  synthesized: boolean;
  /** The output, shortened to the report's text limit. */
  text: string;
  /** The full length of the output. */
  chars: number;
  /** The line of the call it answers, or null (no call before it). */
  call: LineRef | null;
  /** Why resume leaves it out of the history, or null when it keeps it. */
  dropped: "orphan_output" | "duplicate_output" | null;
}

/** The summary item a compaction put in place of the removed conversation. */
export interface SummaryEntry {
  /** A summary entry. */
  kind: "compaction_summary";
  /** Its 1-based line number. */
  line: number;
  /** The summary, shortened to the report's text limit. */
  text: string;
  /** The full length of the summary. */
  chars: number;
}

/** A compaction checkpoint: from here on, the history is its replacement history. */
export interface Checkpoint {
  /** Its 1-based line number. */
  line: number;
  /** The turn it is in, or null for the header. */
  turn: number | null;
  /** The checkpoint layout's version. */
  version: number;
  /** Why the history was compacted. */
  reason: string;
  /** The tokens compared with the threshold. */
  tokensBefore: number;
  /** Items of the old history that went. */
  removedItemCount: number;
  /** Items of the old history that stayed. */
  keptItemCount: number;
  /** Items in its replacement history. */
  replacementItemCount: number;
}

/** A compaction checkpoint, where it sits in its turn. */
export interface CheckpointEntry extends Omit<Checkpoint, "turn"> {
  /** A checkpoint entry. */
  kind: "compaction_checkpoint";
}

/** The end of the run: its `run_finished` record. */
export interface RunFinishedEntry {
  /** A run-finished entry. */
  kind: "run_finished";
  /** Its 1-based line number. */
  line: number;
  /** The run it closes. */
  runId: string;
  /** How the run ended. */
  outcome: RunOutcome;
  /** Why it failed, or null. */
  error: string | null;
  /** Model rounds the run took. */
  rounds: number;
  /** The run's token usage, or null when not reported. */
  usage: Usage | null;
}

/** A stray `session_meta` or `turn_context` record. */
export interface OtherEntry {
  /** The kind of the stray record. */
  kind: "session_meta" | "turn_context";
  /** Its 1-based line number. */
  line: number;
}

/** A line that is not a valid record, in its place. */
export interface ProblemEntry {
  /** A problem entry. */
  kind: "problem";
  /** Its 1-based line number. */
  line: number;
  /** What is wrong. */
  problem: InspectProblemKind;
  /** `path:line: what is wrong`. */
  message: string;
}

/**
 * What another tool's file holds that turnlog's model cannot hold, on consecutive lines of a
 * turn: counted by kind and shown, not dropped silently.
 */
export interface IgnoredEntry {
  /** An ignored entry. */
  kind: "ignored";
  /** Its first line. */
  line: number;
  /** Its last line (the same as `line` for one line). */
  lastLine: number;
  /** How many of each kind (`reasoning`, `thinking`, `image`, `progress`, ...). */
  kinds: Record<string, number>;
}

/** One line of a turn, in file order. */
export type TurnEntry =
  | MessageEntry
  | CallEntry
  | OutputEntry
  | SummaryEntry
  | CheckpointEntry
  | RunFinishedEntry
  | OtherEntry
  | ProblemEntry
  | IgnoredEntry;

/** One turn: a `turn_context` record and every line after it up to the next one. */
export interface Turn {
  /** 1-based turn number. */
  index: number;
  /** The run's id. */
  runId: string;
  /** The `turn_context` line. */
  startLine: number;
  /** The turn's last line. */
  endLine: number;
  /** The `turn_context` timestamp. */
  time: string;
  /** True when the turn continued the session. */
  resumed: boolean;
  /** The model the turn talked to. */
  model: string;
  /** The wire API the turn spoke. */
  wireApi: WireApi;
  /** The policy the turn ran under. */
  policy: Policy;
  /** How the run ended; null when it has no `run_finished` (crashed or killed, or running). */
  outcome: RunOutcome | null;
  /** Why the run failed, or null. */
  error: string | null;
  /** Model rounds, or null when the run did not finish. */
  rounds: number | null;
  /** Token usage, or null when not reported. */
  usage: Usage | null;
  /** The turn's records by type. */
  counts: RecordCounts;
  /** What turnlog's model cannot hold, by kind (another tool's file; empty otherwise). */
  ignored: Record<string, number>;
  /**
   * Every line of the turn, in file order, only when asked for (`inspect --json --entries`,
   * `inspectSession(path, { entries: true })`): absent, not empty, otherwise.
   */
  entries?: TurnEntry[] | undefined;
}

/** The lines before the first `turn_context` (normally only `session_meta`). */
export interface Header {
  /** The header's last line (0 when the first line starts a turn). */
  endLine: number;
  /** The header's records by type. */
  counts: RecordCounts;
  /** What turnlog's model cannot hold, by kind. */
  ignored: Record<string, number>;
  /** Every line of the header, only when asked for (see {@linkcode Turn.entries}). */
  entries?: TurnEntry[] | undefined;
}

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
