/**
 * The zod schemas of the inspector's documents (`inspect --json`, `inspect --list --json`),
 * for validating them inside turnlog and in tests. The compiler checks at the end that they
 * agree with the report types of `./_types.ts` and the listing of src/store.
 *
 * @module
 */
import {
  ForkedFromSchema,
  ImportedFromSchema,
  PolicySchema,
  RunOutcomeSchema,
  UsageSchema,
  WireApiSchema,
} from "../record/schemas.ts";
import { z } from "zod";
import { FORMAT_NAMES, type SessionFormat } from "../formats/mod.ts";
import type { SessionListing } from "../store/mod.ts";
import type * as T from "./_types.ts";

/** Every kind of problem the inspector reports: the reader's per-line kinds, then its own. */
export const InspectProblemKindSchema = z.enum([
  "torn_tail",
  "malformed_json",
  "not_an_object",
  "unknown_type",
  "invalid_record",
  "missing_session_meta",
  "duplicate_session_meta",
  "id_mismatch",
  "record_before_first_turn",
  "orphan_output",
  "duplicate_output",
  "duplicate_call",
  "unanswered_call",
  "unexpected_result",
  "broken_chain",
]);

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
  /** What another tool's file holds that turnlog's model cannot (0 in a turnlog file). */
  ignored: z.number().int().nonnegative(),
  /** Every column above added up (a turnlog file: its non-empty lines). */
  total: z.number().int().nonnegative(),
});

/** Counts by kind of what turnlog's model cannot hold. */
const KindCountsSchema = z.record(z.string(), z.number().int().nonnegative());

/** Where a line is: its number and its turn (null: the header). */
export const LineRefSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
});

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

/** What turnlog's model cannot hold, on consecutive lines, counted by kind. */
export const IgnoredEntrySchema = z.object({
  kind: z.literal("ignored"),
  line: z.number().int().positive(),
  lastLine: z.number().int().positive(),
  kinds: KindCountsSchema,
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
  IgnoredEntrySchema,
]);

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
  ignored: KindCountsSchema,
  entries: EntriesSchema,
});

/** The lines before the first `turn_context` (normally only `session_meta`). */
export const HeaderSchema = z.object({
  endLine: z.number().int().nonnegative(),
  counts: RecordCountsSchema,
  ignored: KindCountsSchema,
  entries: EntriesSchema,
});

/** Tokens used, as another tool counts them (`input` includes cached tokens). */
export const TokenTotalsSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cacheRead: z.number().nonnegative(),
  cacheCreation: z.number().nonnegative(),
  reasoningOutput: z.number().nonnegative(),
  total: z.number().nonnegative(),
});

/** The session as its `session_meta` and file describe it; null where unknown. */
export const SessionFactsSchema = z.object({
  /** The id from `session_meta`, else from the file name, else null. */
  id: z.string().nullable(),
  /** `turnlog`, or another tool's format by its adapter's name (the formats registry). */
  format: z.enum(FORMAT_NAMES as readonly [SessionFormat, ...SessionFormat[]]),
  /** `empty` and `metadata-only` files are no problem. */
  state: z.enum(["records", "empty", "metadata-only"]),
  path: z.string(),
  sizeBytes: z.number().int().nonnegative(),
  /** Valid records (another tool's file: the records its lines were read into). */
  records: z.number().int().nonnegative(),
  /** Non-empty lines. */
  lines: z.number().int().nonnegative(),
  title: z.string().nullable(),
  firstPrompt: z.string().nullable(),
  models: z.array(z.string()),
  gitBranch: z.string().nullable(),
  updated: z.string().nullable(),
  toolVersion: z.string().nullable(),
  approvalSource: z.string().nullable(),
  tokens: TokenTotalsSchema.nullable(),
  importedFrom: ImportedFromSchema.nullable(),
  notes: z.array(z.string()),
  created: z.string().nullable(),
  cwd: z.string().nullable(),
  modelProvider: z.string().nullable(),
  model: z.string().nullable(),
  wireApi: WireApiSchema.nullable(),
  policy: PolicySchema.nullable(),
  formatVersion: z.number().int().nullable(),
  forkedFrom: ForkedFromSchema.nullable(),
});

/** An output resume synthesized (and wrote) for a call an earlier run left without one. */
export const SynthesizedOutputSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
  callId: z.string(),
  toolName: z.string(),
  /** The call it answers, or null when no call precedes it. */
  call: LineRefSchema.nullable(),
});

/** A call without an output: resume would synthesize one (`--repair --write` appends it). */
export const OrphanCallSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
  callId: z.string(),
  name: z.string(),
  /** True when the call is an item of a checkpoint's replacement history at `line`. */
  inCheckpoint: z.boolean(),
});

/** An output resume leaves out of the history: no call before it, or a second output. */
export const OrphanOutputSchema = z.object({
  line: z.number().int().positive(),
  turn: z.number().int().positive().nullable(),
  callId: z.string(),
  toolName: z.string(),
  reason: z.enum(["orphan_output", "duplicate_output"]),
  inCheckpoint: z.boolean(),
});

/** A branch of a Claude Code transcript that is not the conversation. */
export const InspectForkSchema = z.object({
  id: z.string(),
  kind: z.enum(["rewind", "retry", "local_command", "sidechain", "separate_root", "other"]),
  line: z.number().int().positive(),
  lastLine: z.number().int().positive(),
  fromLine: z.number().int().positive().nullable(),
  turn: z.number().int().positive().nullable(),
  lines: z.number().int().positive(),
  messages: z.number().int().nonnegative(),
  title: z.string(),
});

/** A subagent's transcript that belongs to the session (Claude Code). */
export const InspectSubagentSchema = z.object({
  id: z.string(),
  path: z.string(),
  style: z.enum(["sidecar", "folder"]),
  line: z.number().int().positive().nullable(),
  turn: z.number().int().positive().nullable(),
  title: z.string().nullable(),
});

/** Sums over the whole file. */
export const TotalsSchema = z.object({
  turns: z.number().int().nonnegative(),
  /** Turns without a `run_finished` record. */
  unfinishedTurns: z.number().int().nonnegative(),
  resumedTurns: z.number().int().nonnegative(),
  counts: RecordCountsSchema,
  /** Token usage added up over the `run_finished` records that report it. */
  usage: UsageSchema,
  ignored: KindCountsSchema,
});

/** The `inspect --json` document. */
export const InspectReportSchema = z.object({
  format: z.literal("turnlog-inspect"),
  version: z.literal(2),
  /** True when there are no problems and no orphan calls. */
  healthy: z.boolean(),
  /** The verdict in the words every view says: `healthy`, `1 orphan call`, `no conversation: ...`. */
  verdict: z.string(),
  session: SessionFactsSchema,
  header: HeaderSchema,
  turns: z.array(TurnSchema),
  totals: TotalsSchema,
  synthesizedOutputs: z.array(SynthesizedOutputSchema),
  orphanCalls: z.array(OrphanCallSchema),
  orphanOutputs: z.array(OrphanOutputSchema),
  checkpoints: z.array(CheckpointSchema),
  forks: z.array(InspectForkSchema),
  subagents: z.array(InspectSubagentSchema),
  problems: z.array(InspectProblemSchema),
  /** The shell command that continues the session; null when the file is not in a store. */
  continueCommand: z.string().nullable(),
  /** The shortest unique id prefix the command uses, or null. */
  continuePrefix: z.string().nullable(),
});

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
  forkedFrom: z.string().nullable(),
  /** Why the file could not be read (its size and counts are then 0); absent when it was. */
  unreadable: z.string().optional(),
});

/** The `inspect --list --json` document. */
export const SessionListingSchema = z.object({
  format: z.literal("turnlog-sessions"),
  version: z.literal(1),
  root: z.string(),
  sessions: z.array(ListedSessionSchema),
  /** True when more sessions exist than the limit showed. */
  more: z.boolean(),
});

/** True when each of two types is assignable to the other. */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when its argument is `true`. */
type Check<_ extends true> = never;

/** The schemas and the public types agree; a change to one without the other fails here. */
export type SchemasAgreeWithTypes = [
  Check<Agree<z.infer<typeof InspectProblemSchema>, T.InspectProblem>>,
  Check<Agree<z.infer<typeof RecordCountsSchema>, T.RecordCounts>>,
  Check<Agree<z.infer<typeof TurnEntrySchema>, T.TurnEntry>>,
  Check<Agree<z.infer<typeof TurnSchema>, T.Turn>>,
  Check<Agree<z.infer<typeof HeaderSchema>, T.Header>>,
  Check<Agree<z.infer<typeof SessionFactsSchema>, T.SessionFacts>>,
  Check<Agree<z.infer<typeof InspectForkSchema>, T.InspectFork>>,
  Check<Agree<z.infer<typeof InspectSubagentSchema>, T.InspectSubagent>>,
  Check<Agree<z.infer<typeof InspectReportSchema>, T.InspectReport>>,
  Check<Agree<z.infer<typeof SessionListingSchema>, SessionListing>>,
];
