/**
 * The events a turn yields: one type each, the shape of `--json` output (one event a line)
 * and of the Server-Sent Events route. Each is inferred from its zod schema (`./schemas.ts`,
 * where the fields are described), which also validates events read back; the import is
 * type-only, so a turn loads no zod.
 *
 * @module
 */
import type { z } from "zod";
import type * as S from "./schemas.ts";

/** Where in a turn compaction was checked. */
export type CompactionPoint = z.output<typeof S.CompactionPointSchema>;

/** A turn started on a session (fresh or resumed); `runId` is new for every turn. */
export type RunStartedEvent = z.output<typeof S.RunStartedEventSchema>;

/** Resume found tool calls without outputs and persisted synthesized outputs for them. */
export type SessionRepairedEvent = z.output<typeof S.SessionRepairedEventSchema>;

/** Lines of the session file that are not valid records: resume skipped them. */
export type LinesSkippedEvent = z.output<typeof S.LinesSkippedEventSchema>;

/** The whole history is about to be sent to the model. */
export type ModelRequestedEvent = z.output<typeof S.ModelRequestedEventSchema>;

/** A piece of the assistant's text, as it streams. */
export type AssistantDeltaEvent = z.output<typeof S.AssistantDeltaEventSchema>;

/** The assistant's complete text of one round (only when it wrote any). */
export type AssistantMessageEvent = z.output<typeof S.AssistantMessageEventSchema>;

/** The model asked for a tool call; it is already persisted. */
export type ToolRequestedEvent = z.output<typeof S.ToolRequestedEventSchema>;

/** The policy requires an approval for this call; the run waits for the approver. */
export type ApprovalRequestedEvent = z.output<typeof S.ApprovalRequestedEventSchema>;

/** The approver decided. */
export type ApprovalResolvedEvent = z.output<typeof S.ApprovalResolvedEventSchema>;

/** A tool call has its output, already persisted. `output` is shortened for display. */
export type ToolFinishedEvent = z.output<typeof S.ToolFinishedEventSchema>;

/** The history was compacted: a checkpoint record now stands for the removed items. */
export type HistoryCompactedEvent = z.output<typeof S.HistoryCompactedEventSchema>;

/** Compaction was due but its summary call failed; the turn goes on uncompacted. */
export type CompactionFailedEvent = z.output<typeof S.CompactionFailedEventSchema>;

/** Terminal: the model answered without tool calls, or the round limit ended the turn. */
export type RunSucceededEvent = z.output<typeof S.RunSucceededEventSchema>;

/** Terminal: the run failed; `error` is a one-line message for a person. */
export type RunFailedEvent = z.output<typeof S.RunFailedEventSchema>;

/** Terminal: the run was cancelled through its AbortSignal. */
export type RunCancelledEvent = z.output<typeof S.RunCancelledEventSchema>;

/** Every event a turn yields. */
export type RunEvent = z.output<typeof S.RunEventSchema>;

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
