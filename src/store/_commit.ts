/**
 * Commit points: the named moments a run appends to its session file, and the hook a caller
 * may pass to be told before and after each append (for fault injection, where a test stops
 * the process at one of them, and for observability).
 *
 * @module
 */
import type { SessionRecord } from "../record/mod.ts";
import type { StoreWriter } from "./_session_store.ts";

/**
 * What a run appends, in the order a turn appends it:
 *
 * - `turn_start`: the `turn_context` and the user message (with the system message on a fresh
 *   session, and before the user message on resume the outputs synthesized for calls a crash
 *   left without one);
 * - `model_output`: a round's assistant message and its function calls, before any tool runs;
 * - `tool_output`: one call's `function_call_output` (or the cancelled outputs of an abandoned
 *   turn);
 * - `checkpoint`: a compaction checkpoint;
 * - `run_finished`: the run's end.
 */
export type CommitPoint =
  | "turn_start"
  | "model_output"
  | "tool_output"
  | "checkpoint"
  | "run_finished";

/** What a {@linkcode CommitHook} is told about one append. */
export interface CommitDetail {
  /** Before the bytes are written, or after they all are. */
  phase: "before" | "after";
  /** The session file. */
  path: string;
  /** The records appended, in one write (`encodeRecords` gives their exact bytes). */
  records: readonly SessionRecord[];
}

/**
 * Called before and after each append of a run, for fault injection and observability. The
 * run waits for it; an error it throws fails the run like a failed write.
 */
export type CommitHook = (point: CommitPoint, detail: CommitDetail) => void | Promise<void>;

/**
 * Appends `records` through `writer` at the commit point `point`, calling `onCommit` before
 * and after the write. Nothing is written, and the hook is not called, for no records.
 */
export async function appendAtCommitPoint(
  writer: StoreWriter,
  point: CommitPoint,
  options: { records: readonly SessionRecord[]; onCommit?: CommitHook | undefined },
): Promise<void> {
  const { records, onCommit } = options;
  if (records.length === 0) return;
  await onCommit?.(point, { phase: "before", path: writer.path, records });
  await writer.append(records);
  await onCommit?.(point, { phase: "after", path: writer.path, records });
}
