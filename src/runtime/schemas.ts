/**
 * The zod schemas of the events a turn yields, for validating events read back (`--json`
 * lines, the Server-Sent Events route) inside turnlog and in tests; the event types of
 * `./_events.ts` are inferred from them, so each shape is written once.
 *
 * @module
 */
import { PolicySchema, UsageSchema } from "../record/schemas.ts";
import { z } from "zod";
import { ERROR_KINDS, RUN_FAILURE_KINDS } from "../errors/mod.ts";

/** A turn started on a session (fresh or resumed); `runId` is new for every turn. */
export const RunStartedEventSchema = z.object({
  /** The event type. */
  type: z.literal("run_started"),
  /** This run's id (new every turn). */
  runId: z.string(),
  /** The session's id (stable). */
  sessionId: z.string(),
  /** True when the turn continues a session. */
  resumed: z.boolean(),
  /** The policy the turn runs under. */
  policy: PolicySchema,
  /** The model the turn talks to. */
  model: z.string(),
  /** Who serves the model this turn talks to (not necessarily the session's first). */
  modelProvider: z.string(),
  /** The wire API the turn speaks. */
  wireApi: z.enum(["responses", "chat"]),
  /** The endpoint the turn's requests go to (the embedded model's loopback address, or the API's). */
  endpoint: z.string(),
  /** The folder the turn's tools work in. */
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
  /** The event type. */
  type: z.literal("session_repaired"),
  /** How many outputs were synthesized. */
  synthesized: z.number().int().nonnegative(),
  /** The calls that got one. */
  callIds: z.array(z.string()),
  /** The synthesized outputs as they were persisted. */
  outputs: z.array(z.object({ callId: z.string(), toolName: z.string(), output: z.string() })),
  /** Outputs left out because their call is missing (not persisted; they stay in the file). */
  dropped: z.number().int().nonnegative(),
});

/** Lines of the session file that are not valid records: resume skipped them. */
export const LinesSkippedEventSchema = z.object({
  /** The event type. */
  type: z.literal("lines_skipped"),
  /** Each skipped line: its number, what is wrong, and `path:line: what is wrong`. */
  problems: z.array(z.object({ line: z.number().int(), kind: z.string(), message: z.string() })),
});

/** The whole history is about to be sent to the model. */
export const ModelRequestedEventSchema = z.object({
  /** The event type. */
  type: z.literal("model_requested"),
  /** The round, from 1. */
  round: z.number().int().positive(),
  /** Number of history items sent (a tool call and its output count as one item each). */
  messageCount: z.number().int().nonnegative(),
});

/** A piece of the assistant's text, as it streams. */
export const AssistantDeltaEventSchema = z.object({
  /** The event type. */
  type: z.literal("assistant_delta"),
  /** The piece of text. */
  text: z.string(),
});

/** The assistant's complete text of one round (only when it wrote any). */
export const AssistantMessageEventSchema = z.object({
  /** The event type. */
  type: z.literal("assistant_message"),
  /** The round, from 1. */
  round: z.number().int().positive(),
  /** The assistant's text. */
  text: z.string(),
});

/** The model asked for a tool call; it is already persisted. */
export const ToolRequestedEventSchema = z.object({
  /** The event type. */
  type: z.literal("tool_requested"),
  /** The call's id. */
  callId: z.string(),
  /** The tool asked for. */
  name: z.string(),
  /** The JSON arguments string the model sent. */
  arguments: z.string(),
});

/** The policy requires an approval for this call; the run waits for the approver. */
export const ApprovalRequestedEventSchema = z.object({
  /** The event type. */
  type: z.literal("approval_requested"),
  /** The run waiting. */
  runId: z.string(),
  /** The call waiting. */
  callId: z.string(),
  /** The tool to run. */
  name: z.string(),
  /** The JSON arguments string the model sent. */
  arguments: z.string(),
});

/** The approver decided. */
export const ApprovalResolvedEventSchema = z.object({
  /** The event type. */
  type: z.literal("approval_resolved"),
  /** The call decided. */
  callId: z.string(),
  /** True when the call may run. */
  approved: z.boolean(),
  /** Who or what decided. */
  reason: z.string(),
});

/** A tool call has its output, already persisted. `output` is shortened for display. */
export const ToolFinishedEventSchema = z.object({
  /** The event type. */
  type: z.literal("tool_finished"),
  /** The call's id. */
  callId: z.string(),
  /** The tool that ran. */
  name: z.string(),
  /** True when the output reports a failure. */
  isError: z.boolean(),
  /** The output, shortened for display. */
  output: z.string(),
});

/** Where in a turn compaction was checked. */
export const CompactionPointSchema = z.enum(["turn_start", "after_round"]);

/** The history was compacted: a checkpoint record now stands for the removed items. */
export const HistoryCompactedEventSchema = z.object({
  /** The event type. */
  type: z.literal("history_compacted"),
  /** Where in the turn. */
  when: CompactionPointSchema,
  /** Why: the tokens reached the threshold. */
  reason: z.string(),
  /** The tokens compared with the threshold. */
  tokensBefore: z.number().int().nonnegative(),
  /** The compaction threshold in tokens. */
  threshold: z.number().int().positive(),
  /** History items that went. */
  removedItemCount: z.number().int().nonnegative(),
  /** History items that stayed. */
  keptItemCount: z.number().int().nonnegative(),
  /** History items before and after (the summary counts as one after). */
  itemsBefore: z.number().int().nonnegative(),
  /** History items after it (the summary counts as one). */
  itemsAfter: z.number().int().nonnegative(),
});

/** Compaction was due but its summary call failed; the turn goes on uncompacted. */
export const CompactionFailedEventSchema = z.object({
  /** The event type. */
  type: z.literal("compaction_failed"),
  /** Where in the turn. */
  when: CompactionPointSchema,
  /** The tokens compared with the threshold. */
  tokensBefore: z.number().int().nonnegative(),
  /** Why the summary call failed. */
  error: z.string(),
});

/** Terminal: the model answered without tool calls, or the round limit ended the turn. */
export const RunSucceededEventSchema = z.object({
  /** The event type. */
  type: z.literal("run_succeeded"),
  /** The run's id. */
  runId: z.string(),
  /** The session's id. */
  sessionId: z.string(),
  /** Model rounds the turn took. */
  rounds: z.number().int().nonnegative(),
  /** The turn's token usage. */
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
  /** The event type. */
  type: z.literal("run_failed"),
  /** Absent when the run failed before it had a session (unknown id, session in use). */
  runId: z.string().optional(),
  /** The session's id; absent when the run failed before it had one. */
  sessionId: z.string().optional(),
  /**
   * Why the run failed: the session could not be found or opened ("session"), the workspace
   * folder is missing ("workspace"), the model request failed ("model"), or anything else.
   */
  kind: RunFailureKindSchema,
  /** What went wrong, by turnlog's error kinds (a command's exit code follows from it). */
  errorKind: ErrorKindSchema,
  /** What went wrong, for a person. */
  error: z.string(),
  /** Valid records in the session file after this turn; absent without a session. */
  recordCount: z.number().int().nonnegative().optional(),
});

/** Terminal: the run was cancelled through its AbortSignal. */
export const RunCancelledEventSchema = z.object({
  /** The event type. */
  type: z.literal("run_cancelled"),
  /** The run's id. */
  runId: z.string(),
  /** The session's id. */
  sessionId: z.string(),
  /** Model rounds before the cancellation. */
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
