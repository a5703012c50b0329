/**
 * The zod schemas of the session file's records: every line is validated by them. The
 * compiler checks below that they agree, field for field, with the record types of
 * `./_types.ts` (the library's public face), so the shape has one truth.
 *
 * @module
 */
import { z } from "zod";
import type * as T from "./_types.ts";

/** How much a run may do without asking: never ask, ask for changes, ask for everything. */
export const ApprovalModeSchema = z.enum(["auto", "ask-changes", "ask-all"]);

/** The run policy, recorded in `session_meta` and in every `turn_context`. */
export const PolicySchema = z.object({ approval: ApprovalModeSchema });

/** Which OpenAI wire protocol a run speaks. */
export const WireApiSchema = z.enum(["responses", "chat"]);

/** A plain message of the conversation. */
export const MessageItemSchema = z.object({
  type: z.literal("message"),
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
});

/** A tool call the model asked for; `arguments` is the JSON string the model sent. */
export const FunctionCallItemSchema = z.object({
  type: z.literal("function_call"),
  callId: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

/** The output of a tool call; a synthesized one was written by normalization, not a tool. */
export const FunctionCallOutputItemSchema = z.object({
  type: z.literal("function_call_output"),
  callId: z.string().min(1),
  toolName: z.string().min(1),
  output: z.string(),
  isError: z.boolean(),
  synthesized: z.literal(true).optional(),
});

/** The summary that stands for the conversation a compaction removed. */
export const CompactionSummaryItemSchema = z.object({
  type: z.literal("compaction_summary"),
  content: z.string(),
});

/** One item of the model-visible history. */
export const ResponseItemSchema = z.discriminatedUnion("type", [
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  CompactionSummaryItemSchema,
]);

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

/** The payload of a `response_item` record: a history item or a checkpoint. */
export const ResponseItemPayloadSchema = z.discriminatedUnion("type", [
  MessageItemSchema,
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  CompactionSummaryItemSchema,
  CompactionCheckpointSchema,
]);

/**
 * Where an imported session came from: another tool's session file, its format by the name
 * the formats registry gives it (any such name, so a file a newer turnlog imported still reads).
 */
export const ImportedFromSchema = z.object({
  format: z.string().regex(/^[a-z][a-z0-9-]*$/),
  path: z.string(),
  sessionId: z.string().nullable(),
});

/** Where a forked session came from. */
export const ForkedFromSchema = z.object({
  sessionId: z.string().min(1),
  turn: z.number().int().positive().nullable(),
});

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
  /** Present on a session imported from another tool's file. */
  importedFrom: ImportedFromSchema.optional(),
  forkedFrom: ForkedFromSchema.optional(),
});

/** Written once at the start of every turn (every run). */
export const TurnContextSchema = z.object({
  runId: z.string().min(1),
  model: z.string(),
  wireApi: WireApiSchema,
  policy: PolicySchema,
  resumed: z.boolean(),
});

/** Token usage as the model reported it. */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative(),
});

/** How a run ended. */
export const RunOutcomeSchema = z.enum(["succeeded", "failed", "cancelled"]);

/** The lifecycle record that closes a run; a run killed by a crash has none. */
export const RunFinishedSchema = z.object({
  runId: z.string().min(1),
  outcome: RunOutcomeSchema,
  error: z.string().optional(),
  rounds: z.number().int().nonnegative(),
  usage: UsageSchema.optional(),
});

const timestamp = z.string().min(1);

/** One line of a session file. */
export const SessionRecordSchema = z.discriminatedUnion("type", [
  z.object({ timestamp, type: z.literal("session_meta"), payload: SessionMetaSchema }),
  z.object({ timestamp, type: z.literal("turn_context"), payload: TurnContextSchema }),
  z.object({ timestamp, type: z.literal("response_item"), payload: ResponseItemPayloadSchema }),
  z.object({ timestamp, type: z.literal("run_finished"), payload: RunFinishedSchema }),
]);

/** True when each of two types is assignable to the other. */
type Agree<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compiles only when its argument is `true`. */
type Check<_ extends true> = never;

/** The schemas and the public types agree; a change to one without the other fails here. */
export type SchemasAgreeWithTypes = [
  Check<Agree<z.infer<typeof ApprovalModeSchema>, T.ApprovalMode>>,
  Check<Agree<z.infer<typeof PolicySchema>, T.Policy>>,
  Check<Agree<z.infer<typeof WireApiSchema>, T.WireApi>>,
  Check<Agree<z.infer<typeof MessageItemSchema>, T.MessageItem>>,
  Check<Agree<z.infer<typeof FunctionCallItemSchema>, T.FunctionCallItem>>,
  Check<Agree<z.infer<typeof FunctionCallOutputItemSchema>, T.FunctionCallOutputItem>>,
  Check<Agree<z.infer<typeof CompactionSummaryItemSchema>, T.CompactionSummaryItem>>,
  Check<Agree<z.infer<typeof ResponseItemSchema>, T.ResponseItem>>,
  Check<Agree<z.infer<typeof CompactionCheckpointSchema>, T.CompactionCheckpoint>>,
  Check<Agree<z.infer<typeof ResponseItemPayloadSchema>, T.ResponseItemPayload>>,
  Check<Agree<z.infer<typeof ImportedFromSchema>, T.ImportedFrom>>,
  Check<Agree<z.infer<typeof SessionMetaSchema>, T.SessionMeta>>,
  Check<Agree<z.infer<typeof TurnContextSchema>, T.TurnContext>>,
  Check<Agree<z.infer<typeof UsageSchema>, T.Usage>>,
  Check<Agree<z.infer<typeof RunOutcomeSchema>, T.RunOutcome>>,
  Check<Agree<z.infer<typeof RunFinishedSchema>, T.RunFinished>>,
  Check<Agree<z.infer<typeof SessionRecordSchema>, T.SessionRecord>>,
];
