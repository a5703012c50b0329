/**
 * Making records: the format versions, the record types, and the envelope every line is.
 *
 * @module
 */
import { clock } from "./_clock.ts";
import type { RecordType, ResponseItemPayload, SessionRecord } from "./_types.ts";

/** The version of the record format written into `session_meta`. */
export const FORMAT_VERSION = 1;

/** The version of the compaction checkpoint's layout. */
export const CHECKPOINT_VERSION = 1;

/** Every record type a session file may hold. */
export const RECORD_TYPES: readonly RecordType[] = [
  "session_meta",
  "turn_context",
  "response_item",
  "run_finished",
];

/** Wraps a payload in the record envelope, stamped now unless a time is given. */
export function makeRecord<T extends RecordType>(
  type: T,
  payload: Extract<SessionRecord, { type: T }>["payload"],
  time: Date = clock().now(),
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
