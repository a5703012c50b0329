/**
 * The zod schemas of the session file's records: every line is validated by them, and the
 * record types (`./_types.ts`, the library's public face) are inferred from them, so the shape
 * is written once. The hand-written checks of `./_validate.ts` take the valid lines first, for
 * speed; a property test holds them to these schemas.
 *
 * @module
 */
import { z } from "zod";

/** How much a run may do without asking: never ask, ask for changes, ask for everything. */
export const ApprovalModeSchema = z.enum(["auto", "ask-changes", "ask-all"]);

/** The run policy, recorded in `session_meta` and in every `turn_context`. */
export const PolicySchema = z.object({
  /** Which tool calls need the user's approval. */
  approval: ApprovalModeSchema,
});

/** Which OpenAI wire protocol a run speaks. */
export const WireApiSchema = z.enum(["responses", "chat"]);

/** A plain message of the conversation. */
export const MessageItemSchema = z.object({
  /** A message. */
  type: z.literal("message"),
  /** Who wrote it. */
  role: z.enum(["system", "user", "assistant"]),
  /** Its text. */
  content: z.string(),
});

/** A tool call the model asked for; `arguments` is the JSON string the model sent. */
export const FunctionCallItemSchema = z.object({
  /** A tool call. */
  type: z.literal("function_call"),
  /** The id that pairs the call with its output. */
  callId: z.string().min(1),
  /** The tool's name. */
  name: z.string().min(1),
  /** The JSON arguments string the model sent, as it sent it. */
  arguments: z.string(),
});

/** The output of a tool call; a synthesized one was written by normalization, not a tool. */
export const FunctionCallOutputItemSchema = z.object({
  /** A tool call's output. */
  type: z.literal("function_call_output"),
  /** The id of the call it answers. */
  callId: z.string().min(1),
  /** The name of the tool that was called. */
  toolName: z.string().min(1),
  /** What the model is told. */
  output: z.string(),
  /** True when the call failed (or was denied, cancelled or interrupted). */
  isError: z.boolean(),
  /** Present (true) only on an output that normalization made up for an interrupted call. */
  synthesized: z.literal(true).optional(),
});

/** The summary that stands for the conversation a compaction removed. */
export const CompactionSummaryItemSchema = z.object({
  /** A compaction summary. */
  type: z.literal("compaction_summary"),
  /** The summary's text. */
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
  /** A compaction checkpoint. */
  type: z.literal("compaction_checkpoint"),
  /** The checkpoint layout's version. */
  version: z.number().int().positive(),
  /** Why the history was compacted (e.g. `token_threshold`). */
  reason: z.string(),
  /** The tokens compared with the threshold. */
  tokensBefore: z.number().int().nonnegative(),
  /** Items of the old history that are gone. */
  removedItemCount: z.number().int().nonnegative(),
  /** Items of the old history that stay. */
  keptItemCount: z.number().int().nonnegative(),
  /**
   * Valid records in the file before this one, as the writer knew them: with it, resume
   * counts records without reading anything before the checkpoint.
   */
  recordsBefore: z.number().int().nonnegative().optional(),
  /** The model-visible history from here on. */
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
  /** The tool whose file it was, by its format's name in the formats registry (`codex`). */
  format: z.string().regex(/^[a-z][a-z0-9-]*$/),
  /** The source file's absolute path when it was imported. */
  path: z.string(),
  /** The source session's id, or null when the file names none. */
  sessionId: z.string().nullable(),
});

/** Where a forked session came from. */
export const ForkedFromSchema = z.object({
  /** The session it copied its history from. */
  sessionId: z.string().min(1),
  /** The turn of that session it was cut before (1-based); null when it took every turn. */
  turn: z.number().int().positive().nullable(),
});

/** The first line of a session file, written once. */
export const SessionMetaSchema = z.object({
  /** The record format's version. */
  version: z.number().int().positive(),
  /** The session id (the first run's id, a UUIDv7). */
  id: z.string().min(1),
  /** Creation time, ISO 8601. */
  createdAt: z.string(),
  /** The workspace folder of the first run. */
  cwd: z.string(),
  /** "embedded", "openai", or the host of an OpenAI-compatible server. */
  modelProvider: z.string(),
  /** The model of the first run. */
  model: z.string(),
  /** The wire API of the first run. */
  wireApi: WireApiSchema,
  /** The policy of the first run. */
  policy: PolicySchema,
  /** Present on a session imported from another tool's file (`./denow task import`). */
  importedFrom: ImportedFromSchema.optional(),
  /** Present on a fork: the session it started from, and the turn it was cut before. */
  forkedFrom: ForkedFromSchema.optional(),
});

/** Written once at the start of every turn (every run). */
export const TurnContextSchema = z.object({
  /** The run's id: new for every turn. */
  runId: z.string().min(1),
  /** The model this turn talks to. */
  model: z.string(),
  /** The wire API this turn speaks. */
  wireApi: WireApiSchema,
  /** The policy this turn runs under. */
  policy: PolicySchema,
  /** True when the turn continued an existing session. */
  resumed: z.boolean(),
});

/** Token usage as the model reported it. */
export const UsageSchema = z.object({
  /** Tokens the model read. */
  inputTokens: z.number().int().nonnegative(),
  /** Tokens the model wrote. */
  outputTokens: z.number().int().nonnegative(),
  /** Both added up. */
  totalTokens: z.number().int().nonnegative(),
});

/** How a run ended. */
export const RunOutcomeSchema = z.enum(["succeeded", "failed", "cancelled"]);

/** The lifecycle record that closes a run; a run killed by a crash has none. */
export const RunFinishedSchema = z.object({
  /** The run it closes. */
  runId: z.string().min(1),
  /** How it ended. */
  outcome: RunOutcomeSchema,
  /** Why the run failed, for a person. */
  error: z.string().optional(),
  /** Model rounds the run took. */
  rounds: z.number().int().nonnegative(),
  /** The run's token usage, when the model reported it. */
  usage: UsageSchema.optional(),
});

/** When the record was written, ISO 8601. */
const timestamp = z.string().min(1);

/** The `session_meta` line. */
export const SessionMetaRecordSchema = z.object({
  /** When the record was written, ISO 8601. */
  timestamp,
  /** The record type. */
  type: z.literal("session_meta"),
  /** The session's facts. */
  payload: SessionMetaSchema,
});

/** A `turn_context` line. */
export const TurnContextRecordSchema = z.object({
  /** When the record was written, ISO 8601. */
  timestamp,
  /** The record type. */
  type: z.literal("turn_context"),
  /** The turn's model, wire API and policy. */
  payload: TurnContextSchema,
});

/** A `response_item` line: one history item or a checkpoint. */
export const ResponseItemRecordSchema = z.object({
  /** When the record was written, ISO 8601. */
  timestamp,
  /** The record type. */
  type: z.literal("response_item"),
  /** The history item or checkpoint. */
  payload: ResponseItemPayloadSchema,
});

/** A `run_finished` line. */
export const RunFinishedRecordSchema = z.object({
  /** When the record was written, ISO 8601. */
  timestamp,
  /** The record type. */
  type: z.literal("run_finished"),
  /** How the run ended. */
  payload: RunFinishedSchema,
});

/** One line of a session file: `{ timestamp, type, payload }`. */
export const SessionRecordSchema = z.discriminatedUnion("type", [
  SessionMetaRecordSchema,
  TurnContextRecordSchema,
  ResponseItemRecordSchema,
  RunFinishedRecordSchema,
]);
