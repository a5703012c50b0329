/**
 * The session file's records as TypeScript types: what every line of a session file holds.
 * Their zod schemas (`./_schemas.ts`) validate the lines; the compiler checks that the two
 * agree, field for field.
 *
 * @module
 */

/** How much a run may do without asking: never ask, ask for changes, ask for everything. */
export type ApprovalMode = "auto" | "ask-changes" | "ask-all";

/** The run policy, recorded in `session_meta` and in every `turn_context`. */
export interface Policy {
  /** Which tool calls need the user's approval. */
  approval: ApprovalMode;
}

/** Which OpenAI wire protocol a run speaks. */
export type WireApi = "responses" | "chat";

/** A plain message of the conversation. */
export interface MessageItem {
  /** A message. */
  type: "message";
  /** Who wrote it. */
  role: "system" | "user" | "assistant";
  /** Its text. */
  content: string;
}

/** A tool call the model asked for. */
export interface FunctionCallItem {
  /** A tool call. */
  type: "function_call";
  /** The id that pairs the call with its output. */
  callId: string;
  /** The tool's name. */
  name: string;
  /** The JSON arguments string the model sent, as it sent it. */
  arguments: string;
}

/** The output of a tool call; a synthesized one was written by normalization, not a tool. */
export interface FunctionCallOutputItem {
  /** A tool call's output. */
  type: "function_call_output";
  /** The id of the call it answers. */
  callId: string;
  /** The name of the tool that was called. */
  toolName: string;
  /** What the model is told. */
  output: string;
  /** True when the call failed (or was denied, cancelled or interrupted). */
  isError: boolean;
  /** Present (true) only on an output that normalization made up for an interrupted call. */
  synthesized?: true | undefined;
}

/** The summary that stands for the conversation a compaction removed. */
export interface CompactionSummaryItem {
  /** A compaction summary. */
  type: "compaction_summary";
  /** The summary's text. */
  content: string;
}

/** One item of the model-visible history. */
export type ResponseItem =
  | MessageItem
  | FunctionCallItem
  | FunctionCallOutputItem
  | CompactionSummaryItem;

/**
 * A compaction checkpoint. It carries the replacement history itself, so replay never
 * re-runs the transform: a later change of the transform cannot change how an old session
 * replays.
 */
export interface CompactionCheckpoint {
  /** A compaction checkpoint. */
  type: "compaction_checkpoint";
  /** The checkpoint layout's version. */
  version: number;
  /** Why the history was compacted (e.g. `token_threshold`). */
  reason: string;
  /** The tokens compared with the threshold. */
  tokensBefore: number;
  /** Items of the old history that are gone. */
  removedItemCount: number;
  /** Items of the old history that stay. */
  keptItemCount: number;
  /**
   * Valid records in the file before this one, as the writer knew them: with it, resume
   * counts records without reading anything before the checkpoint.
   */
  recordsBefore?: number | undefined;
  /** The model-visible history from here on. */
  replacementHistory: ResponseItem[];
}

/** The payload of a `response_item` record: a history item or a checkpoint. */
export type ResponseItemPayload = ResponseItem | CompactionCheckpoint;

/** Where an imported session came from: another tool's session file. */
export interface ImportedFrom {
  /** The tool whose file it was, by its format's name in the formats registry (`codex`). */
  format: string;
  /** The source file's absolute path when it was imported. */
  path: string;
  /** The source session's id, or null when the file names none. */
  sessionId: string | null;
}

/** The first line of a session file, written once. */
export interface SessionMeta {
  /** The record format's version. */
  version: number;
  /** The session id (the first run's id, a UUIDv7). */
  id: string;
  /** Creation time, ISO 8601. */
  createdAt: string;
  /** The workspace folder of the first run. */
  cwd: string;
  /** "embedded", "openai", or the host of an OpenAI-compatible server. */
  modelProvider: string;
  /** The model of the first run. */
  model: string;
  /** The wire API of the first run. */
  wireApi: WireApi;
  /** The policy of the first run. */
  policy: Policy;
  /** Present on a session imported from another tool's file (`./denow task import`). */
  importedFrom?: ImportedFrom | undefined;
  /** Present on a fork: the session it started from, and the turn it was cut before. */
  forkedFrom?: ForkedFrom | undefined;
}

/** Where a forked session came from. */
export interface ForkedFrom {
  /** The session it copied its history from. */
  sessionId: string;
  /** The turn of that session it was cut before (1-based); null when it took every turn. */
  turn: number | null;
}

/** Written once at the start of every turn (every run). */
export interface TurnContext {
  /** The run's id: new for every turn. */
  runId: string;
  /** The model this turn talks to. */
  model: string;
  /** The wire API this turn speaks. */
  wireApi: WireApi;
  /** The policy this turn runs under. */
  policy: Policy;
  /** True when the turn continued an existing session. */
  resumed: boolean;
}

/** Token usage as the model reported it. */
export interface Usage {
  /** Tokens the model read. */
  inputTokens: number;
  /** Tokens the model wrote. */
  outputTokens: number;
  /** Both added up. */
  totalTokens: number;
}

/** How a run ended. */
export type RunOutcome = "succeeded" | "failed" | "cancelled";

/** The lifecycle record that closes a run; a run killed by a crash has none. */
export interface RunFinished {
  /** The run it closes. */
  runId: string;
  /** How it ended. */
  outcome: RunOutcome;
  /** Why the run failed, for a person. */
  error?: string | undefined;
  /** Model rounds the run took. */
  rounds: number;
  /** The run's token usage, when the model reported it. */
  usage?: Usage | undefined;
}

/** The `session_meta` line. */
export interface SessionMetaRecord {
  /** When the record was written, ISO 8601. */
  timestamp: string;
  /** The record type. */
  type: "session_meta";
  /** The session's facts. */
  payload: SessionMeta;
}

/** A `turn_context` line. */
export interface TurnContextRecord {
  /** When the record was written, ISO 8601. */
  timestamp: string;
  /** The record type. */
  type: "turn_context";
  /** The turn's model, wire API and policy. */
  payload: TurnContext;
}

/** A `response_item` line: one history item or a checkpoint. */
export interface ResponseItemRecord {
  /** When the record was written, ISO 8601. */
  timestamp: string;
  /** The record type. */
  type: "response_item";
  /** The history item or checkpoint. */
  payload: ResponseItemPayload;
}

/** A `run_finished` line. */
export interface RunFinishedRecord {
  /** When the record was written, ISO 8601. */
  timestamp: string;
  /** The record type. */
  type: "run_finished";
  /** How the run ended. */
  payload: RunFinished;
}

/** One line of a session file: `{ timestamp, type, payload }`. */
export type SessionRecord =
  | SessionMetaRecord
  | TurnContextRecord
  | ResponseItemRecord
  | RunFinishedRecord;

/** The name of a record type. */
export type RecordType = SessionRecord["type"];
