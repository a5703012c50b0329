/**
 * The zod schemas of the events a turn yields, for validating events read back (`--json`
 * lines, the Server-Sent Events route) inside turnlog and in tests. The compiler checks at the
 * end that they agree with the event types of `./_events.ts`.
 *
 * @module
 */
import { PolicySchema, UsageSchema } from "../record/schemas.ts";
import { z } from "zod";
import type * as T from "./_events.ts";
import { ERROR_KINDS, RUN_FAILURE_KINDS } from "../errors/mod.ts";

/** A turn started on a session (fresh or resumed); `runId` is new for every turn. */
export const RunStartedEventSchema = z.object({
  type: z.literal("run_started"),
  runId: z.string(),
  sessionId: z.string(),
  resumed: z.boolean(),
  policy: PolicySchema,
  model: z.string(),
  modelProvider: z.string(),
  wireApi: z.enum(["responses", "chat"]),
  endpoint: z.string(),
  workspace: z.string(),
  /** The session file this turn appends to. */
  sessionPath: z.string(),
  /** Valid records in the file before this turn (0 for a fresh session). */
  recordCountBefore: z.number().int().nonnegative(),
  /** A continued session's recorded folder, when the tools work in another. */
  recordedCwd: z.string().optional(),
  /** The recorded policy this turn does not get (looser than the default), and why. */
  heldPolicy: z.object({ recorded: PolicySchema, reason: z.string() }).optional(),
});

/** Resume found tool calls without outputs and persisted synthesized outputs for them. */
export const SessionRepairedEventSchema = z.object({
  type: z.literal("session_repaired"),
  synthesized: z.number().int().nonnegative(),
  callIds: z.array(z.string()),
  /** The synthesized outputs as they were persisted. */
  outputs: z.array(z.object({ callId: z.string(), toolName: z.string(), output: z.string() })),
  /** Outputs left out because their call is missing (not persisted; they stay in the file). */
  dropped: z.number().int().nonnegative(),
});

/** Lines of the session file that are not valid records: resume skipped them. */
export const LinesSkippedEventSchema = z.object({
  type: z.literal("lines_skipped"),
  problems: z.array(z.object({ line: z.number().int(), kind: z.string(), message: z.string() })),
});

/** The whole history is about to be sent to the model. */
export const ModelRequestedEventSchema = z.object({
  type: z.literal("model_requested"),
  round: z.number().int().positive(),
  /** Number of history items sent (a tool call and its output count as one item each). */
  messageCount: z.number().int().nonnegative(),
});

/** A piece of the assistant's text, as it streams. */
export const AssistantDeltaEventSchema = z.object({
  type: z.literal("assistant_delta"),
  text: z.string(),
});

/** The assistant's complete text of one round (only when it wrote any). */
export const AssistantMessageEventSchema = z.object({
  type: z.literal("assistant_message"),
  round: z.number().int().positive(),
  text: z.string(),
});

/** The model asked for a tool call; it is already persisted. */
export const ToolRequestedEventSchema = z.object({
  type: z.literal("tool_requested"),
  callId: z.string(),
  name: z.string(),
  arguments: z.string(),
});

/** The policy requires an approval for this call; the run waits for the approver. */
export const ApprovalRequestedEventSchema = z.object({
  type: z.literal("approval_requested"),
  runId: z.string(),
  callId: z.string(),
  name: z.string(),
  arguments: z.string(),
});

/** The approver decided. */
export const ApprovalResolvedEventSchema = z.object({
  type: z.literal("approval_resolved"),
  callId: z.string(),
  approved: z.boolean(),
  reason: z.string(),
});

/** A tool call has its output, already persisted. `output` is shortened for display. */
export const ToolFinishedEventSchema = z.object({
  type: z.literal("tool_finished"),
  callId: z.string(),
  name: z.string(),
  isError: z.boolean(),
  output: z.string(),
});

/** Where in a turn compaction was checked. */
export const CompactionPointSchema = z.enum(["turn_start", "after_round"]);

/** The history was compacted: a checkpoint record now stands for the removed items. */
export const HistoryCompactedEventSchema = z.object({
  type: z.literal("history_compacted"),
  when: CompactionPointSchema,
  /** Why: the tokens reached the threshold. */
  reason: z.string(),
  /** The tokens compared with the threshold. */
  tokensBefore: z.number().int().nonnegative(),
  threshold: z.number().int().positive(),
  removedItemCount: z.number().int().nonnegative(),
  keptItemCount: z.number().int().nonnegative(),
  /** History items before and after (the summary counts as one after). */
  itemsBefore: z.number().int().nonnegative(),
  itemsAfter: z.number().int().nonnegative(),
});

/** Compaction was due but its summary call failed; the turn goes on uncompacted. */
export const CompactionFailedEventSchema = z.object({
  type: z.literal("compaction_failed"),
  when: CompactionPointSchema,
  tokensBefore: z.number().int().nonnegative(),
  error: z.string(),
});

/** Terminal: the model answered without tool calls, or the round limit ended the turn. */
export const RunSucceededEventSchema = z.object({
  type: z.literal("run_succeeded"),
  runId: z.string(),
  sessionId: z.string(),
  rounds: z.number().int().nonnegative(),
  usage: UsageSchema,
  /** The last assistant text of the turn ("" when there was none). */
  answer: z.string(),
  /** True when the turn stopped at the round limit with tool results the model has not seen. */
  roundLimitReached: z.boolean(),
  /** Valid records in the session file after this turn. */
  recordCount: z.number().int().nonnegative(),
});

/**
 * Why a run failed: the session could not be found or opened ("session"), the workspace folder
 * is missing ("workspace"), the model request failed ("model"), or anything else ("internal").
 */
export const RunFailureKindSchema = z.enum(RUN_FAILURE_KINDS);

/** What went wrong, by turnlog's error kinds (a command's exit code follows from it). */
export const ErrorKindSchema = z.enum(ERROR_KINDS);

/** Terminal: the run failed; `error` is a one-line message for a person. */
export const RunFailedEventSchema = z.object({
  type: z.literal("run_failed"),
  /** Absent when the run failed before it had a session (unknown id, session in use). */
  runId: z.string().optional(),
  sessionId: z.string().optional(),
  kind: RunFailureKindSchema,
  errorKind: ErrorKindSchema,
  error: z.string(),
  /** Valid records in the session file after this turn; absent without a session. */
  recordCount: z.number().int().nonnegative().optional(),
});

/** Terminal: the run was cancelled through its AbortSignal. */
export const RunCancelledEventSchema = z.object({
  type: z.literal("run_cancelled"),
  runId: z.string(),
  sessionId: z.string(),
  rounds: z.number().int().nonnegative(),
  /** Valid records in the session file after this turn. */
  recordCount: z.number().int().nonnegative(),
});

/** Every event a turn yields. */
export const RunEventSchema = z.discriminatedUnion("type", [
  RunStartedEventSchema,
  SessionRepairedEventSchema,
  LinesSkippedEventSchema,
  ModelRequestedEventSchema,
  AssistantDeltaEventSchema,
  AssistantMessageEventSchema,
  ToolRequestedEventSchema,
  ApprovalRequestedEventSchema,
  ApprovalResolvedEventSchema,
  ToolFinishedEventSchema,
  HistoryCompactedEventSchema,
  CompactionFailedEventSchema,
  RunSucceededEventSchema,
  RunFailedEventSchema,
  RunCancelledEventSchema,
]);

/** True when each of two types is assignable to the other. */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when its argument is `true`. */
type Check<_ extends true> = never;

/** The schemas and the public types agree; a change to one without the other fails here. */
export type SchemasAgreeWithTypes = [
  Check<Agree<z.infer<typeof RunEventSchema>, T.RunEvent>>,
  Check<Agree<z.infer<typeof CompactionPointSchema>, T.CompactionPoint>>,
];
