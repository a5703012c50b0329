/**
 * The shape of `inspect --json`: one zod schema per part of the document, the TypeScript
 * types inferred from them. The inspector, the renderer, the notebooks and the tests all use
 * these types, so the document has one source of truth.
 *
 * @module
 */
import { z } from "zod";
import { PolicySchema, RunOutcomeSchema, UsageSchema, WireApiSchema } from "../record/mod.ts";

/** The version of the `--json` document's layout. */
export const INSPECT_REPORT_VERSION = 1;

/** Every kind of problem the inspector reports: the reader's per-line kinds, then its own. */
export const InspectProblemKindSchema = z.enum([
  "torn_tail",
  "malformed_json",
  "not_an_object",
  "unknown_type",
  "invalid_record",
  "missing_session_meta",
  "duplicate_session_meta",
  "record_before_first_turn",
  "orphan_output",
  "duplicate_output",
]);
/** A kind of problem. */
export type InspectProblemKind = z.infer<typeof InspectProblemKindSchema>;

/** Something wrong with the file, at a line. */
export const InspectProblemSchema = z.object({
  /** 1-based line number. */
  line: z.number().int().positive(),
  kind: InspectProblemKindSchema,
  /** `path:line: what is wrong`. */
  message: z.string(),
  /** The turn the line is in (1-based), or null for the header before the first turn. */
  turn: z.number().int().positive().nullable(),
  /** Byte range of the line, terminator included; null when the problem is not one line. */
  start: z.number().int().nonnegative().nullable(),
  end: z.number().int().nonnegative().nullable(),
});
/** Something wrong with the file, at a line. */
export type InspectProblem = z.infer<typeof InspectProblemSchema>;

/** Records by record type, and `response_item` records by item type. */
export const RecordCountsSchema = z.object({
  session_meta: z.number().int().nonnegative(),
  turn_context: z.number().int().nonnegative(),
  message: z.number().int().nonnegative(),
  function_call: z.number().int().nonnegative(),
  function_call_output: z.number().int().nonnegative(),
  compaction_summary: z.number().int().nonnegative(),
  compaction_checkpoint: z.number().int().nonnegative(),
  run_finished: z.number().int().nonnegative(),
  /** Lines that are not valid records. */
  problem_lines: z.number().int().nonnegative(),
  /** Non-empty lines: every column above added up. */
  total: z.number().int().nonnegative(),
});
/** Records by type. */
export type RecordCounts = z.infer<typeof RecordCountsSchema>;

/** The columns of {@linkcode RecordCounts}, in table order. */
export const RECORD_COUNT_COLUMNS = [
  "session_meta",
  "turn_context",
  "message",
  "function_call",
  "function_call_output",
  "compaction_summary",
  "compaction_checkpoint",
  "run_finished",
  "problem_lines",
  "total",
] as const satisfies readonly (keyof RecordCounts)[];

/** Where a line is: its number and its turn (null: the header). */
export const LineRefSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
});
/** Where a line is. */
export type LineRef = z.infer<typeof LineRefSchema>;

/** Text, shortened to the report's text limit; `chars` is the full length. */
const text = { text: z.string(), chars: z.number().int().nonnegative() };

/** A user, assistant or system message. */
export const MessageEntrySchema = z.object({
  kind: z.literal("message"),
  line: z.number().int().positive(),
  role: z.enum(["system", "user", "assistant"]),
  ...text,
});

/** A tool call, with where its output is (null: none in the file). */
export const CallEntrySchema = z.object({
  kind: z.literal("function_call"),
  line: z.number().int().positive(),
  callId: z.string(),
  name: z.string(),
  ...text,
  /** The line of the output that answers it, or null. */
  output: LineRefSchema.nullable(),
  /** True when resume would synthesize an output for it. */
  orphan: z.boolean(),
});

/** A tool call's output, with where its call is (null: no call before it). */
export const OutputEntrySchema = z.object({
  kind: z.literal("function_call_output"),
  line: z.number().int().positive(),
  callId: z.string(),
  toolName: z.string(),
  isError: z.boolean(),
  synthesized: z.boolean(),
  ...text,
  /** The line of the call it answers, or null. */
  call: LineRefSchema.nullable(),
  /** Why resume leaves it out of the history, or null when it keeps it. */
  dropped: z.enum(["orphan_output", "duplicate_output"]).nullable(),
});

/** The summary item a compaction put in place of the removed conversation. */
export const SummaryEntrySchema = z.object({
  kind: z.literal("compaction_summary"),
  line: z.number().int().positive(),
  ...text,
});

/** A compaction checkpoint: from here on, the history is its replacement history. */
export const CheckpointSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
  version: z.number().int(),
  reason: z.string(),
  tokensBefore: z.number().int().nonnegative(),
  removedItemCount: z.number().int().nonnegative(),
  keptItemCount: z.number().int().nonnegative(),
  /** Items in its replacement history. */
  replacementItemCount: z.number().int().nonnegative(),
});
/** A compaction checkpoint. */
export type Checkpoint = z.infer<typeof CheckpointSchema>;

/** A compaction checkpoint, where it sits in its turn. */
export const CheckpointEntrySchema = CheckpointSchema.omit({ turn: true }).extend({
  kind: z.literal("compaction_checkpoint"),
});

/** The end of the run: its `run_finished` record. */
export const RunFinishedEntrySchema = z.object({
  kind: z.literal("run_finished"),
  line: z.number().int().positive(),
  runId: z.string(),
  outcome: RunOutcomeSchema,
  error: z.string().nullable(),
  rounds: z.number().int().nonnegative(),
  usage: UsageSchema.nullable(),
});

/** A record other than the above (a stray `session_meta` or `turn_context`). */
export const OtherEntrySchema = z.object({
  kind: z.enum(["session_meta", "turn_context"]),
  line: z.number().int().positive(),
});

/** A line that is not a valid record, in its place. */
export const ProblemEntrySchema = z.object({
  kind: z.literal("problem"),
  line: z.number().int().positive(),
  problem: InspectProblemKindSchema,
  message: z.string(),
});

/** One line of a turn, in file order. */
export const TurnEntrySchema = z.discriminatedUnion("kind", [
  MessageEntrySchema,
  CallEntrySchema,
  OutputEntrySchema,
  SummaryEntrySchema,
  CheckpointEntrySchema,
  RunFinishedEntrySchema,
  OtherEntrySchema,
  ProblemEntrySchema,
]);
/** One line of a turn. */
export type TurnEntry = z.infer<typeof TurnEntrySchema>;

/**
 * Every line of a block, in file order. Only there when asked for (`inspect --json --entries`,
 * `inspectSession(path, { entries: true })`): it grows with the file, the rest of the report
 * only with its turns and its damage. Absent, not empty, when not asked for.
 */
const EntriesSchema = z.array(TurnEntrySchema).optional();

/** One turn: a `turn_context` record and every line after it up to the next one. */
export const TurnSchema = z.object({
  /** 1-based turn number. */
  index: z.number().int().positive(),
  runId: z.string(),
  /** The `turn_context` line. */
  startLine: z.number().int().positive(),
  /** The turn's last line. */
  endLine: z.number().int().positive(),
  /** The `turn_context` timestamp. */
  time: z.string(),
  resumed: z.boolean(),
  model: z.string(),
  wireApi: WireApiSchema,
  policy: PolicySchema,
  /** How the run ended; null when it has no `run_finished` (crashed or killed, or running). */
  outcome: RunOutcomeSchema.nullable(),
  error: z.string().nullable(),
  rounds: z.number().int().nonnegative().nullable(),
  usage: UsageSchema.nullable(),
  counts: RecordCountsSchema,
  entries: EntriesSchema,
});
/** One turn. */
export type Turn = z.infer<typeof TurnSchema>;

/** The lines before the first `turn_context` (normally only `session_meta`). */
export const HeaderSchema = z.object({
  endLine: z.number().int().nonnegative(),
  counts: RecordCountsSchema,
  entries: EntriesSchema,
});
/** The lines before the first turn. */
export type Header = z.infer<typeof HeaderSchema>;

/** The session as its `session_meta` and file describe it; null where unknown. */
export const SessionFactsSchema = z.object({
  /** The id from `session_meta`, else from the file name, else null. */
  id: z.string().nullable(),
  path: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  /** Valid records. */
  records: z.number().int().nonnegative(),
  /** Non-empty lines (valid records plus problem lines). */
  lines: z.number().int().nonnegative(),
  created: z.string().nullable(),
  cwd: z.string().nullable(),
  modelProvider: z.string().nullable(),
  model: z.string().nullable(),
  wireApi: WireApiSchema.nullable(),
  policy: PolicySchema.nullable(),
  formatVersion: z.number().int().nullable(),
});
/** The session's facts. */
export type SessionFacts = z.infer<typeof SessionFactsSchema>;

/** An output resume synthesized (and wrote) for a call an earlier run left without one. */
export const SynthesizedOutputSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
  callId: z.string(),
  toolName: z.string(),
  /** The call it answers, or null when no call precedes it. */
  call: LineRefSchema.nullable(),
});
/** A synthesized output. */
export type SynthesizedOutput = z.infer<typeof SynthesizedOutputSchema>;

/** A call without an output: resume would synthesize one (`--repair --write` appends it). */
export const OrphanCallSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
  callId: z.string(),
  name: z.string(),
  /** True when the call is an item of a checkpoint's replacement history at `line`. */
  inCheckpoint: z.boolean(),
});
/** An orphan call. */
export type OrphanCall = z.infer<typeof OrphanCallSchema>;

/** An output resume leaves out of the history: no call before it, or a second output. */
export const OrphanOutputSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
  callId: z.string(),
  toolName: z.string(),
  reason: z.enum(["orphan_output", "duplicate_output"]),
  inCheckpoint: z.boolean(),
});
/** An orphan output. */
export type OrphanOutput = z.infer<typeof OrphanOutputSchema>;

/** Sums over the whole file. */
export const TotalsSchema = z.object({
  turns: z.number().int().nonnegative(),
  /** Turns without a `run_finished` record. */
  unfinishedTurns: z.number().int().nonnegative(),
  resumedTurns: z.number().int().nonnegative(),
  counts: RecordCountsSchema,
  /** Token usage added up over the `run_finished` records that report it. */
  usage: UsageSchema,
});
/** Sums over the whole file. */
export type Totals = z.infer<typeof TotalsSchema>;

/** The `inspect --json` document. */
export const InspectReportSchema = z.object({
  format: z.literal("turnlog-inspect"),
  version: z.literal(INSPECT_REPORT_VERSION),
  /** True when there are no problems and no orphan calls. */
  healthy: z.boolean(),
  session: SessionFactsSchema,
  header: HeaderSchema,
  turns: z.array(TurnSchema),
  totals: TotalsSchema,
  synthesizedOutputs: z.array(SynthesizedOutputSchema),
  orphanCalls: z.array(OrphanCallSchema),
  orphanOutputs: z.array(OrphanOutputSchema),
  checkpoints: z.array(CheckpointSchema),
  problems: z.array(InspectProblemSchema),
  /** The shell command that continues the session; null when the file is not in a store. */
  continueCommand: z.string().nullable(),
  /** The shortest unique id prefix the command uses, or null. */
  continuePrefix: z.string().nullable(),
});
/** The `inspect --json` document. */
export type InspectReport = z.infer<typeof InspectReportSchema>;

/** One session in a listing. */
export const ListedSessionSchema = z.object({
  id: z.string(),
  /** The shortest prefix of the id, at least 8 characters, that finds only this session. */
  shortId: z.string(),
  created: z.string(),
  path: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  /** `turn_context` records, counted by a byte scan (no validation). */
  turns: z.number().int().nonnegative(),
  /** Non-empty lines, counted by a byte scan. */
  records: z.number().int().nonnegative(),
  /** The first user message, on one line, shortened; null when the head holds none. */
  firstUserMessage: z.string().nullable(),
});
/** One session in a listing. */
export type ListedSession = z.infer<typeof ListedSessionSchema>;

/** The `inspect --list --json` document. */
export const SessionListingSchema = z.object({
  format: z.literal("turnlog-sessions"),
  version: z.literal(INSPECT_REPORT_VERSION),
  root: z.string(),
  sessions: z.array(ListedSessionSchema),
  /** True when more sessions exist than the limit showed. */
  more: z.boolean(),
});
/** The `inspect --list --json` document. */
export type SessionListing = z.infer<typeof SessionListingSchema>;
