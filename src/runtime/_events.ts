/**
 * The events a turn yields: one type each, the shape of `--json` output (one event a line)
 * and of the Server-Sent Events route. Their zod schemas (`./schemas.ts`) validate events
 * read back; the compiler checks that the two agree.
 *
 * @module
 */
import type { ErrorKind, RunFailureKind } from "../errors/mod.ts";
import type { Policy, Usage, WireApi } from "../record/mod.ts";

/** Where in a turn compaction was checked. */
export type CompactionPoint = "turn_start" | "after_round";

/** A turn started on a session (fresh or resumed); `runId` is new for every turn. */
export interface RunStartedEvent {
  /** The event type. */
  type: "run_started";
  /** This run's id (new every turn). */
  runId: string;
  /** The session's id (stable). */
  sessionId: string;
  /** True when the turn continues a session. */
  resumed: boolean;
  /** The policy the turn runs under. */
  policy: Policy;
  /** The model the turn talks to. */
  model: string;
  /** Who serves the model this turn talks to (not necessarily the session's first). */
  modelProvider: string;
  /** The wire API the turn speaks. */
  wireApi: WireApi;
  /** The endpoint the turn's requests go to (the embedded model's loopback address, or the API's). */
  endpoint: string;
  /** The folder the turn's tools work in. */
  workspace: string;
  /** The session file this turn appends to. */
  sessionPath: string;
  /** Valid records in the file before this turn (0 for a fresh session). */
  recordCountBefore: number;
  /** A continued session's recorded folder, when the tools work in another. */
  recordedCwd?: string | undefined;
  /** The recorded policy this turn does not get (looser than the default), and why. */
  heldPolicy?: { recorded: Policy; reason: string } | undefined;
}

/** Resume found tool calls without outputs and persisted synthesized outputs for them. */
export interface SessionRepairedEvent {
  /** The event type. */
  type: "session_repaired";
  /** How many outputs were synthesized. */
  synthesized: number;
  /** The calls that got one. */
  callIds: string[];
  /** The synthesized outputs as they were persisted. */
  outputs: { callId: string; toolName: string; output: string }[];
  /** Outputs left out because their call is missing (not persisted; they stay in the file). */
  dropped: number;
}

/** Lines of the session file that are not valid records: resume skipped them. */
export interface LinesSkippedEvent {
  /** The event type. */
  type: "lines_skipped";
  /** Each skipped line: its number, what is wrong, and `path:line: what is wrong`. */
  problems: { line: number; kind: string; message: string }[];
}

/** The whole history is about to be sent to the model. */
export interface ModelRequestedEvent {
  /** The event type. */
  type: "model_requested";
  /** The round, from 1. */
  round: number;
  /** Number of history items sent (a tool call and its output count as one item each). */
  messageCount: number;
}

/** A piece of the assistant's text, as it streams. */
export interface AssistantDeltaEvent {
  /** The event type. */
  type: "assistant_delta";
  /** The piece of text. */
  text: string;
}

/** The assistant's complete text of one round (only when it wrote any). */
export interface AssistantMessageEvent {
  /** The event type. */
  type: "assistant_message";
  /** The round, from 1. */
  round: number;
  /** The assistant's text. */
  text: string;
}

/** The model asked for a tool call; it is already persisted. */
export interface ToolRequestedEvent {
  /** The event type. */
  type: "tool_requested";
  /** The call's id. */
  callId: string;
  /** The tool asked for. */
  name: string;
  /** The JSON arguments string the model sent. */
  arguments: string;
}

/** The policy requires an approval for this call; the run waits for the approver. */
export interface ApprovalRequestedEvent {
  /** The event type. */
  type: "approval_requested";
  /** The run waiting. */
  runId: string;
  /** The call waiting. */
  callId: string;
  /** The tool to run. */
  name: string;
  /** The JSON arguments string the model sent. */
  arguments: string;
}

/** The approver decided. */
export interface ApprovalResolvedEvent {
  /** The event type. */
  type: "approval_resolved";
  /** The call decided. */
  callId: string;
  /** True when the call may run. */
  approved: boolean;
  /** Who or what decided. */
  reason: string;
}

/** A tool call has its output, already persisted. `output` is shortened for display. */
export interface ToolFinishedEvent {
  /** The event type. */
  type: "tool_finished";
  /** The call's id. */
  callId: string;
  /** The tool that ran. */
  name: string;
  /** True when the output reports a failure. */
  isError: boolean;
  /** The output, shortened for display. */
  output: string;
}

/** The history was compacted: a checkpoint record now stands for the removed items. */
export interface HistoryCompactedEvent {
  /** The event type. */
  type: "history_compacted";
  /** Where in the turn. */
  when: CompactionPoint;
  /** Why: the tokens reached the threshold. */
  reason: string;
  /** The tokens compared with the threshold. */
  tokensBefore: number;
  /** The compaction threshold in tokens. */
  threshold: number;
  /** History items that went. */
  removedItemCount: number;
  /** History items that stayed. */
  keptItemCount: number;
  /** History items before the compaction. */
  itemsBefore: number;
  /** History items after it (the summary counts as one). */
  itemsAfter: number;
}

/** Compaction was due but its summary call failed; the turn goes on uncompacted. */
export interface CompactionFailedEvent {
  /** The event type. */
  type: "compaction_failed";
  /** Where in the turn. */
  when: CompactionPoint;
  /** The tokens compared with the threshold. */
  tokensBefore: number;
  /** Why the summary call failed. */
  error: string;
}

/** Terminal: the model answered without tool calls, or the round limit ended the turn. */
export interface RunSucceededEvent {
  /** The event type. */
  type: "run_succeeded";
  /** The run's id. */
  runId: string;
  /** The session's id. */
  sessionId: string;
  /** Model rounds the turn took. */
  rounds: number;
  /** The turn's token usage. */
  usage: Usage;
  /** The last assistant text of the turn ("" when there was none). */
  answer: string;
  /** True when the turn stopped at the round limit with tool results the model has not seen. */
  roundLimitReached: boolean;
  /** Valid records in the session file after this turn. */
  recordCount: number;
}

/** Terminal: the run failed; `error` is a one-line message for a person. */
export interface RunFailedEvent {
  /** The event type. */
  type: "run_failed";
  /** Absent when the run failed before it had a session (unknown id, session in use). */
  runId?: string | undefined;
  /** The session's id; absent when the run failed before it had one. */
  sessionId?: string | undefined;
  /**
   * Why the run failed: the session could not be found or opened ("session"), the workspace
   * folder is missing ("workspace"), the model request failed ("model"), or anything else.
   */
  kind: RunFailureKind;
  /** What went wrong, by turnlog's error kinds (a command's exit code follows from it). */
  errorKind: ErrorKind;
  /** What went wrong, for a person. */
  error: string;
  /** Valid records in the session file after this turn; absent without a session. */
  recordCount?: number | undefined;
}

/** Terminal: the run was cancelled through its AbortSignal. */
export interface RunCancelledEvent {
  /** The event type. */
  type: "run_cancelled";
  /** The run's id. */
  runId: string;
  /** The session's id. */
  sessionId: string;
  /** Model rounds before the cancellation. */
  rounds: number;
  /** Valid records in the session file after this turn. */
  recordCount: number;
}

/** Every event a turn yields. */
export type RunEvent =
  | RunStartedEvent
  | SessionRepairedEvent
  | LinesSkippedEvent
  | ModelRequestedEvent
  | AssistantDeltaEvent
  | AssistantMessageEvent
  | ToolRequestedEvent
  | ApprovalRequestedEvent
  | ApprovalResolvedEvent
  | ToolFinishedEvent
  | HistoryCompactedEvent
  | CompactionFailedEvent
  | RunSucceededEvent
  | RunFailedEvent
  | RunCancelledEvent;

/** The name of an event type. */
export type RunEventType = RunEvent["type"];
/** The event of one type. */
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
/** The three events that end a run; exactly one of them ends every run. */
export type TerminalEvent = RunSucceededEvent | RunFailedEvent | RunCancelledEvent;

/** True for the event that ends a run. */
export function isTerminalEvent(event: RunEvent): event is TerminalEvent {
  return event.type === "run_succeeded" || event.type === "run_failed" ||
    event.type === "run_cancelled";
}
