/**
 * The session file's records as TypeScript types: what every line of a session file holds.
 * Each is inferred from its zod schema (`./schemas.ts`, where the fields are described), so the
 * shape is written once; the import is type-only, so reading a session loads no zod.
 *
 * @module
 */
import type { z } from "zod";
import type * as S from "./schemas.ts";

/** How much a run may do without asking: never ask, ask for changes, ask for everything. */
export type ApprovalMode = z.output<typeof S.ApprovalModeSchema>;

/** The run policy, recorded in `session_meta` and in every `turn_context`. */
export type Policy = z.output<typeof S.PolicySchema>;

/** Which OpenAI wire protocol a run speaks. */
export type WireApi = z.output<typeof S.WireApiSchema>;

/** A plain message of the conversation. */
export type MessageItem = z.output<typeof S.MessageItemSchema>;

/** A tool call the model asked for; `arguments` is the JSON string the model sent. */
export type FunctionCallItem = z.output<typeof S.FunctionCallItemSchema>;

/** The output of a tool call; a synthesized one was written by normalization, not a tool. */
export type FunctionCallOutputItem = z.output<typeof S.FunctionCallOutputItemSchema>;

/** The summary that stands for the conversation a compaction removed. */
export type CompactionSummaryItem = z.output<typeof S.CompactionSummaryItemSchema>;

/** One item of the model-visible history. */
export type ResponseItem = z.output<typeof S.ResponseItemSchema>;

/**
 * A compaction checkpoint. It carries the replacement history itself, so replay never
 * re-runs the transform: a later change of the transform cannot change how an old session
 * replays.
 */
export type CompactionCheckpoint = z.output<typeof S.CompactionCheckpointSchema>;

/** The payload of a `response_item` record: a history item or a checkpoint. */
export type ResponseItemPayload = z.output<typeof S.ResponseItemPayloadSchema>;

/** Where an imported session came from: another tool's session file. */
export type ImportedFrom = z.output<typeof S.ImportedFromSchema>;

/** The first line of a session file, written once. */
export type SessionMeta = z.output<typeof S.SessionMetaSchema>;

/** Where a forked session came from. */
export type ForkedFrom = z.output<typeof S.ForkedFromSchema>;

/** Written once at the start of every turn (every run). */
export type TurnContext = z.output<typeof S.TurnContextSchema>;

/** Token usage as the model reported it. */
export type Usage = z.output<typeof S.UsageSchema>;

/** How a run ended. */
export type RunOutcome = z.output<typeof S.RunOutcomeSchema>;

/** The lifecycle record that closes a run; a run killed by a crash has none. */
export type RunFinished = z.output<typeof S.RunFinishedSchema>;

/** The `session_meta` line. */
export type SessionMetaRecord = z.output<typeof S.SessionMetaRecordSchema>;

/** A `turn_context` line. */
export type TurnContextRecord = z.output<typeof S.TurnContextRecordSchema>;

/** A `response_item` line: one history item or a checkpoint. */
export type ResponseItemRecord = z.output<typeof S.ResponseItemRecordSchema>;

/** A `run_finished` line. */
export type RunFinishedRecord = z.output<typeof S.RunFinishedRecordSchema>;

/** One line of a session file: `{ timestamp, type, payload }`. */
export type SessionRecord = z.output<typeof S.SessionRecordSchema>;

/** The name of a record type. */
export type RecordType = SessionRecord["type"];
