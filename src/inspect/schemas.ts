/**
 * The zod schemas of the inspector's documents (`inspect --json`, `inspect --list --json`),
 * for validating them inside turnlog and in tests. The report types of `./_types.ts` are
 * inferred from them, so each shape is written once; the listing's schema is checked against
 * src/store's listing type at the end (the store, below the inspector, owns that type).
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
  "bad_ordinal",
]);

/** Something wrong with the file, at a line. */
export const InspectProblemSchema = z.object({
  /** 1-based line number. */
  line: z.number().int().positive(),
  /** What is wrong. */
  kind: InspectProblemKindSchema,
  /** `path:line: what is wrong`. */
  message: z.string(),
  /** The turn the line is in (1-based), or null for the header before the first turn. */
  turn: z.number().int().positive().nullable(),
  /** Byte range of the line, terminator included; null when the problem is not one line. */
  start: z.number().int().nonnegative().nullable(),
  /** Byte offset just past the line's terminator; null when the problem is not one line. */
  end: z.number().int().nonnegative().nullable(),
});

/** Records by record type, and `response_item` records by item type. */
export const RecordCountsSchema = z.object({
  /** `session_meta` records. */
  session_meta: z.number().int().nonnegative(),
  /** `turn_context` records. */
  turn_context: z.number().int().nonnegative(),
  /** Messages (`response_item` `message`). */
  message: z.number().int().nonnegative(),
  /** Tool calls. */
  function_call: z.number().int().nonnegative(),
  /** Tool outputs (synthesized ones included). */
  function_call_output: z.number().int().nonnegative(),
  /** Compaction summaries. */
  compaction_summary: z.number().int().nonnegative(),
  /** Compaction checkpoints. */
  compaction_checkpoint: z.number().int().nonnegative(),
  /** `run_finished` records. */
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
  /** The 1-based line number. */
  line: z.number().int().positive(),
  /** The turn it is in, or null for the header. */
  turn: z.number().int().positive().nullable(),
});

/** Text, shortened to the report's text limit; `chars` is the full length. */
const text = { text: z.string(), chars: z.number().int().nonnegative() };

/** A user, assistant or system message. */
export const MessageEntrySchema = z.object({
  /** A message entry. */
  kind: z.literal("message"),
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** Who wrote it. */
  role: z.enum(["system", "user", "assistant"]),
  ...text,
});

/** A tool call, with where its output is (null: none in the file). */
export const CallEntrySchema = z.object({
  /** A call entry. */
  kind: z.literal("function_call"),
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** The id that pairs it with its output. */
  callId: z.string(),
  /** The tool called. */
  name: z.string(),
  ...text,
  /** The line of the output that answers it, or null. */
  output: LineRefSchema.nullable(),
  /** True when resume would synthesize an output for it. */
  orphan: z.boolean(),
});

/** A tool call's output, with where its call is (null: no call before it). */
export const OutputEntrySchema = z.object({
  /** An output entry. */
  kind: z.literal("function_call_output"),
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** The id of the call it answers. */
  callId: z.string(),
  /** The tool that was called. */
  toolName: z.string(),
  /** True when the output reports a failure. */
  isError: z.boolean(),
  /** True when resume made it up for an interrupted call. */
  synthesized: z.boolean(),
  ...text,
  /** The line of the call it answers, or null. */
  call: LineRefSchema.nullable(),
  /** Why resume leaves it out of the history, or null when it keeps it. */
  dropped: z.enum(["orphan_output", "duplicate_output"]).nullable(),
});

/** The summary item a compaction put in place of the removed conversation. */
export const SummaryEntrySchema = z.object({
  /** A summary entry. */
  kind: z.literal("compaction_summary"),
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  ...text,
});

/** A compaction checkpoint: from here on, the history is its replacement history. */
export const CheckpointSchema = z.object({
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** The turn it is in, or null for the header. */
  turn: z.number().int().positive().nullable(),
  /** The checkpoint layout's version. */
  version: z.number().int(),
  /** Why the history was compacted. */
  reason: z.string(),
  /** The tokens compared with the threshold. */
  tokensBefore: z.number().int().nonnegative(),
  /** Items of the old history that went. */
  removedItemCount: z.number().int().nonnegative(),
  /** Items of the old history that stayed. */
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
  /** A run-finished entry. */
  kind: z.literal("run_finished"),
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** The run it closes. */
  runId: z.string(),
  /** How the run ended. */
  outcome: RunOutcomeSchema,
  /** Why it failed, or null. */
  error: z.string().nullable(),
  /** Model rounds the run took. */
  rounds: z.number().int().nonnegative(),
  /** The run's token usage, or null when not reported. */
  usage: UsageSchema.nullable(),
});

/** A record other than the above (a stray `session_meta` or `turn_context`). */
export const OtherEntrySchema = z.object({
  /** The kind of the stray record. */
  kind: z.enum(["session_meta", "turn_context"]),
  /** Its 1-based line number. */
  line: z.number().int().positive(),
});

/** A line that is not a valid record, in its place. */
export const ProblemEntrySchema = z.object({
  /** A problem entry. */
  kind: z.literal("problem"),
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** What is wrong. */
  problem: InspectProblemKindSchema,
  /** `path:line: what is wrong`. */
  message: z.string(),
});

/** What turnlog's model cannot hold, on consecutive lines, counted by kind. */
export const IgnoredEntrySchema = z.object({
  /** An ignored entry. */
  kind: z.literal("ignored"),
  /** Its first line. */
  line: z.number().int().positive(),
  /** Its last line (the same as `line` for one line). */
  lastLine: z.number().int().positive(),
  /** How many of each kind (`reasoning`, `thinking`, `image`, `progress`, ...). */
  kinds: KindCountsSchema,
  /**
   * The readable text of the model's thinking it holds (a Claude Code `thinking` block, a
   * Codex reasoning summary, Gemini's thoughts), shortened to the report's text limit; absent
   * when the file keeps none (signed or encrypted only). An entry with a text is one line's.
   */
  text: z.string().optional(),
  /** The thinking text's full length, beside `text`. */
  chars: z.number().int().nonnegative().optional(),
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
  /** The run's id. */
  runId: z.string(),
  /** The `turn_context` line. */
  startLine: z.number().int().positive(),
  /** The turn's last line. */
  endLine: z.number().int().positive(),
  /** The `turn_context` timestamp. */
  time: z.string(),
  /** True when the turn continued the session. */
  resumed: z.boolean(),
  /** The model the turn talked to. */
  model: z.string(),
  /** The wire API the turn spoke. */
  wireApi: WireApiSchema,
  /** The policy the turn ran under. */
  policy: PolicySchema,
  /** How the run ended; null when it has no `run_finished` (crashed or killed, or running). */
  outcome: RunOutcomeSchema.nullable(),
  /** Why the run failed, or null. */
  error: z.string().nullable(),
  /** Model rounds, or null when the run did not finish. */
  rounds: z.number().int().nonnegative().nullable(),
  /** Token usage, or null when not reported. */
  usage: UsageSchema.nullable(),
  /**
   * What the turn's model responses cost in US dollars (see the session's `cost` for where it
   * came from); null when its models have no price; absent when the turn reported no tokens.
   */
  cost: z.number().nullable().optional(),
  /** The turn's records by type. */
  counts: RecordCountsSchema,
  /** What turnlog's model cannot hold, by kind (another tool's file; empty otherwise). */
  ignored: KindCountsSchema,
  /**
   * Every line of the turn, in file order, only when asked for (`inspect --json --entries`,
   * `inspectSession(path, { entries: true })`): absent, not empty, otherwise.
   */
  entries: EntriesSchema,
});

/** What a session's tokens cost, and where the figure came from. */
export const SessionCostSchema = z.object({
  /** US dollars of what has a price; null when no model of the session has one. */
  usd: z.number().nullable(),
  /** Where it came from: the tool's own figure (Claude Code's cost-state), the price table. */
  source: z.string(),
  /** Models without a price (never counted as $0), each once. */
  unpricedModels: z.array(z.string()),
  /**
   * The responses on branches that are not the conversation (a Claude Code rewind's): counted
   * in `usd` (they were paid for), in no turn's cost; absent when there are none.
   */
  aside: z.object({ responses: z.number().int().positive(), usd: z.number().nullable() })
    .optional(),
});

/** The lines before the first `turn_context` (normally only `session_meta`). */
export const HeaderSchema = z.object({
  /** The header's last line (0 when the first line starts a turn). */
  endLine: z.number().int().nonnegative(),
  /** The header's records by type. */
  counts: RecordCountsSchema,
  /** What turnlog's model cannot hold, by kind. */
  ignored: KindCountsSchema,
  /** Every line of the header, only when asked for (see {@linkcode Turn.entries}). */
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
  /** The session file. */
  path: z.string(),
  /** The file's size in bytes. */
  sizeBytes: z.number().int().nonnegative(),
  /** Valid records (another tool's file: the records its lines were read into). */
  records: z.number().int().nonnegative(),
  /** Non-empty lines. */
  lines: z.number().int().nonnegative(),
  /** A title the file gives the session (Claude Code), or null. */
  title: z.string().nullable(),
  /** The first prompt a person wrote (not injected context), or null. */
  firstPrompt: z.string().nullable(),
  /** Every model that answered, in the order they first did. */
  models: z.array(z.string()),
  /** The git branch the session started on (Codex, Claude Code), or null. */
  gitBranch: z.string().nullable(),
  /** The latest time in the file, or null. */
  updated: z.string().nullable(),
  /** The version of the tool that wrote the file (Codex, Claude Code), or null. */
  toolVersion: z.string().nullable(),
  /** The approval policy in the writing tool's own words (`on-request`, `default`), or null. */
  approvalSource: z.string().nullable(),
  /**
   * Tokens used: another tool's counts (once per model response), else the sum of the
   * `run_finished` usages; null when the file reports none.
   */
  tokens: TokenTotalsSchema.nullable(),
  /** What the tokens cost; absent when the file reports no tokens. */
  cost: SessionCostSchema.optional(),
  /** Where an imported session came from (its `session_meta.importedFrom`), or null. */
  importedFrom: ImportedFromSchema.nullable(),
  /**
   * How another tool's file was read, for a person: what marked its turns, where the active
   * branch was walked back from, lines passed over. Empty for a turnlog file.
   */
  notes: z.array(z.string()),
  /** Creation time, ISO 8601, or null. */
  created: z.string().nullable(),
  /** The workspace folder of the first run, or null. */
  cwd: z.string().nullable(),
  /** Who served the model, or null. */
  modelProvider: z.string().nullable(),
  /** The model of the first run, or null. */
  model: z.string().nullable(),
  /** The wire API of the first run, or null. */
  wireApi: WireApiSchema.nullable(),
  /** The policy of the first run, or null. */
  policy: PolicySchema.nullable(),
  /** The record format's version. */
  formatVersion: z.number().int().nullable(),
  /** The session and turn this one was forked from, or null. */
  forkedFrom: ForkedFromSchema.nullable(),
});

/** An output resume synthesized (and wrote) for a call an earlier run left without one. */
export const SynthesizedOutputSchema = z.object({
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** Its turn, or null for the header. */
  turn: z.number().int().positive().nullable(),
  /** The id of the call it answers. */
  callId: z.string(),
  /** The tool that was called. */
  toolName: z.string(),
  /** The call it answers, or null when no call precedes it. */
  call: LineRefSchema.nullable(),
});

/** A call without an output: resume would synthesize one (`--repair --write` appends it). */
export const OrphanCallSchema = z.object({
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** Its turn, or null for the header. */
  turn: z.number().int().positive().nullable(),
  /** The call's id. */
  callId: z.string(),
  /** The tool called. */
  name: z.string(),
  /** True when the call is an item of a checkpoint's replacement history at `line`. */
  inCheckpoint: z.boolean(),
});

/** An output resume leaves out of the history: no call before it, or a second output. */
export const OrphanOutputSchema = z.object({
  /** Its 1-based line number. */
  line: z.number().int().positive(),
  /** Its turn, or null for the header. */
  turn: z.number().int().positive().nullable(),
  /** The call id it names. */
  callId: z.string(),
  /** The tool it names. */
  toolName: z.string(),
  /** Why resume drops it. */
  reason: z.enum(["orphan_output", "duplicate_output"]),
  /** True when it is an item of a checkpoint's replacement history. */
  inCheckpoint: z.boolean(),
});

/** A branch of a Claude Code transcript that is not the conversation. */
export const InspectForkSchema = z.object({
  /** The `uuid` of the branch's first line, else `line-<n>`. */
  id: z.string(),
  /**
   * How it left the conversation: `rewind` (another prompt), `retry` (another answer),
   * `local_command`, `sidechain`, `separate_root`, `other`.
   */
  kind: z.enum(["rewind", "retry", "local_command", "sidechain", "separate_root", "other"]),
  /** The branch's first line. */
  line: z.number().int().positive(),
  /** The branch's last line. */
  lastLine: z.number().int().positive(),
  /** The active-branch line it hangs off, or null for a tree of its own. */
  fromLine: z.number().int().positive().nullable(),
  /** The turn `fromLine` is in, or null. */
  turn: z.number().int().positive().nullable(),
  /** Lines in the branch. */
  lines: z.number().int().positive(),
  /** User and assistant lines in the branch. */
  messages: z.number().int().nonnegative(),
  /** What the branch is, in a few words. */
  title: z.string(),
});

/** A subagent's transcript that belongs to the session (Claude Code). */
export const InspectSubagentSchema = z.object({
  /** The agent id its file name carries, else the file's name. */
  id: z.string(),
  /** The subagent transcript's path. */
  path: z.string(),
  /** `sidecar`: an old `agent-*.jsonl` beside the session; `folder`: `<id>/subagents/`. */
  style: z.enum(["sidecar", "folder"]),
  /** The session line that names the agent (the Task tool's result), or null. */
  line: z.number().int().positive().nullable(),
  /** The turn that line is in, or null. */
  turn: z.number().int().positive().nullable(),
  /** The subagent's first prompt (its task), or null. */
  title: z.string().nullable(),
});

/** Sums over the whole file. */
export const TotalsSchema = z.object({
  /** Turns in the file. */
  turns: z.number().int().nonnegative(),
  /** Turns without a `run_finished` record. */
  unfinishedTurns: z.number().int().nonnegative(),
  /** Turns that continued the session. */
  resumedTurns: z.number().int().nonnegative(),
  /** Records by type over the whole file. */
  counts: RecordCountsSchema,
  /** Token usage added up over the `run_finished` records that report it. */
  usage: UsageSchema,
  /** What turnlog's model cannot hold, by kind, over the whole file. */
  ignored: KindCountsSchema,
});

/** The `inspect --json` document. */
export const InspectReportSchema = z.object({
  /** Always `"turnlog-inspect"`. */
  format: z.literal("turnlog-inspect"),
  /** The layout's version, {@linkcode INSPECT_REPORT_VERSION}. */
  version: z.literal(2),
  /** True when there are no problems and no orphan calls. */
  healthy: z.boolean(),
  /** The verdict in the words every view says: `healthy`, `1 orphan call`, `no conversation: ...`. */
  verdict: z.string(),
  /** The session's facts. */
  session: SessionFactsSchema,
  /** The lines before the first turn. */
  header: HeaderSchema,
  /** Every turn, in file order. */
  turns: z.array(TurnSchema),
  /** Sums over the whole file. */
  totals: TotalsSchema,
  /** Outputs resume synthesized earlier. */
  synthesizedOutputs: z.array(SynthesizedOutputSchema),
  /** Calls without an output: resume would synthesize one. */
  orphanCalls: z.array(OrphanCallSchema),
  /** Outputs resume drops. */
  orphanOutputs: z.array(OrphanOutputSchema),
  /** Compaction checkpoints. */
  checkpoints: z.array(CheckpointSchema),
  /** Branches other than the conversation (Claude Code); empty otherwise. */
  forks: z.array(InspectForkSchema),
  /** Subagent transcripts that belong to the session (Claude Code); empty otherwise. */
  subagents: z.array(InspectSubagentSchema),
  /** Every problem, by line. */
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

// The listing schema's documents are the store's listings: a field the store adds or changes
// without the schema fails to compile here.
SessionListingSchema satisfies z.ZodType<SessionListing>;
