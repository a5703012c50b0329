/**
 * The session file's record format: one zod schema per record, the TypeScript types inferred
 * from them. A session file is JSONL; every line is an envelope `{ timestamp, type, payload }`.
 *
 * @module
 */
import { z } from "zod";

/** The version of the record format written into `session_meta`. */
export const FORMAT_VERSION = 1;

/** How much a run may do without asking: never ask, ask for changes, ask for everything. */
export const ApprovalModeSchema = z.enum(["auto", "ask-changes", "ask-all"]);
/** How much a run may do without asking. */
export type ApprovalMode = z.infer<typeof ApprovalModeSchema>;

/** The run policy, recorded in `session_meta` and in every `turn_context`. */
export const PolicySchema = z.object({ approval: ApprovalModeSchema });
/** The run policy. */
export type Policy = z.infer<typeof PolicySchema>;

/** Which OpenAI wire protocol a run speaks. */
export const WireApiSchema = z.enum(["responses", "chat"]);
/** Which OpenAI wire protocol a run speaks. */
export type WireApi = z.infer<typeof WireApiSchema>;

/** A plain message of the conversation. */
export const MessageItemSchema = z.object({
  type: z.literal("message"),
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
});
/** A plain message of the conversation. */
export type MessageItem = z.infer<typeof MessageItemSchema>;

/** A tool call the model asked for; `arguments` is the JSON string the model sent. */
export const FunctionCallItemSchema = z.object({
  type: z.literal("function_call"),
  callId: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});
/** A tool call the model asked for. */
export type FunctionCallItem = z.infer<typeof FunctionCallItemSchema>;

/** The output of a tool call; a synthesized one was written by normalization, not a tool. */
export const FunctionCallOutputItemSchema = z.object({
  type: z.literal("function_call_output"),
  callId: z.string().min(1),
  toolName: z.string().min(1),
  output: z.string(),
  isError: z.boolean(),
  synthesized: z.literal(true).optional(),
});
/** The output of a tool call. */
export type FunctionCallOutputItem = z.infer<typeof FunctionCallOutputItemSchema>;

/** The summary that stands for the conversation a compaction removed. */
export const CompactionSummaryItemSchema = z.object({
  type: z.literal("compaction_summary"),
  content: z.string(),
});
/** The summary that stands for the conversation a compaction removed. */
export type CompactionSummaryItem = z.infer<typeof CompactionSummaryItemSchema>;

/** One item of the model-visible history. */
export const ResponseItemSchema = z.discriminatedUnion("type", [
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  CompactionSummaryItemSchema,
]);
/** One item of the model-visible history. */
export type ResponseItem = z.infer<typeof ResponseItemSchema>;

/** The version of the compaction checkpoint's layout. */
export const CHECKPOINT_VERSION = 1;

/**
 * A compaction checkpoint. It carries the replacement history itself, so replay never
 * re-runs the transform: a later change of the transform cannot change how an old session
 * replays.
 */
export const CompactionCheckpointSchema = z.object({
  type: z.literal("compaction_checkpoint"),
  version: z.number().int().positive(),
  reason: z.string(),
  tokensBefore: z.number().int().nonnegative(),
  removedItemCount: z.number().int().nonnegative(),
  keptItemCount: z.number().int().nonnegative(),
  /**
   * Valid records in the file before this one, as the writer knew them: with it, resume
   * counts records without reading anything before the checkpoint.
   */
  recordsBefore: z.number().int().nonnegative().optional(),
  replacementHistory: z.array(ResponseItemSchema),
});
/** A compaction checkpoint. */
export type CompactionCheckpoint = z.infer<typeof CompactionCheckpointSchema>;

/** The payload of a `response_item` record: a history item or a checkpoint. */
export const ResponseItemPayloadSchema = z.discriminatedUnion("type", [
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  CompactionSummaryItemSchema,
  CompactionCheckpointSchema,
]);
/** The payload of a `response_item` record. */
export type ResponseItemPayload = z.infer<typeof ResponseItemPayloadSchema>;

/** The first line of a session file, written once. */
export const SessionMetaSchema = z.object({
  version: z.number().int().positive(),
  id: z.string().min(1),
  createdAt: z.string(),
  cwd: z.string(),
  modelProvider: z.string(),
  model: z.string(),
  wireApi: WireApiSchema,
  policy: PolicySchema,
});
/** The first line of a session file. */
export type SessionMeta = z.infer<typeof SessionMetaSchema>;

/** Written once at the start of every turn (every run). */
export const TurnContextSchema = z.object({
  runId: z.string().min(1),
  model: z.string(),
  wireApi: WireApiSchema,
  policy: PolicySchema,
  resumed: z.boolean(),
});
/** Written once at the start of every turn. */
export type TurnContext = z.infer<typeof TurnContextSchema>;

/** Token usage as the model reported it. */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});
/** Token usage as the model reported it. */
export type Usage = z.infer<typeof UsageSchema>;

/** How a run ended. */
export const RunOutcomeSchema = z.enum(["succeeded", "failed", "cancelled"]);
/** How a run ended. */
export type RunOutcome = z.infer<typeof RunOutcomeSchema>;

/** The lifecycle record that closes a run; a run killed by a crash has none. */
export const RunFinishedSchema = z.object({
  runId: z.string().min(1),
  outcome: RunOutcomeSchema,
  error: z.string().optional(),
  rounds: z.number().int().nonnegative(),
  usage: UsageSchema.optional(),
});
/** The lifecycle record that closes a run. */
export type RunFinished = z.infer<typeof RunFinishedSchema>;

const timestamp = z.string().min(1);

/** Every record type a session file may hold. */
export const RECORD_TYPES = [
  "session_meta",
  "turn_context",
  "response_item",
  "run_finished",
] as const;

/** One line of a session file. */
export const SessionRecordSchema = z.discriminatedUnion("type", [
  z.object({ timestamp, type: z.literal("session_meta"), payload: SessionMetaSchema }),
  z.object({ timestamp, type: z.literal("turn_context"), payload: TurnContextSchema }),
  z.object({ timestamp, type: z.literal("response_item"), payload: ResponseItemPayloadSchema }),
  z.object({ timestamp, type: z.literal("run_finished"), payload: RunFinishedSchema }),
]);
/** One line of a session file. */
export type SessionRecord = z.infer<typeof SessionRecordSchema>;
/** The name of a record type. */
export type RecordType = SessionRecord["type"];

/** Wraps a payload in the record envelope, stamped now unless a time is given. */
export function makeRecord<T extends RecordType>(
  type: T,
  payload: Extract<SessionRecord, { type: T }>["payload"],
  time: Date = new Date(),
): Extract<SessionRecord, { type: T }> {
  return { timestamp: time.toISOString(), type, payload } as Extract<SessionRecord, { type: T }>;
}

/** The record that persists one history item or checkpoint. */
export function responseItemRecord(
  payload: ResponseItemPayload,
  time?: Date,
): Extract<SessionRecord, { type: "response_item" }> {
  return makeRecord("response_item", payload, time);
}
