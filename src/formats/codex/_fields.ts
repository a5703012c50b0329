/**
 * The fields of Codex records turnlog has seen (in the rollouts of the versions it reads, and
 * in Codex's source): a key of a record, of a `session_meta` or `turn_context` payload or of a
 * known response item that is not here is the drift of the format, which `doctor` reports. An
 * event's payload is not looked at (events are many and only a few are read).
 *
 * @module
 */
import type { Json } from "../_line.ts";
import type { FieldDrift } from "../_drift.ts";

const set = (...keys: string[]): ReadonlySet<string> => new Set(keys);

/** Codex 0.169 tags the items of a paginated rollout with the turn they are in. */
const PASSTHROUGH = "internal_chat_message_metadata_passthrough";

const RECORD = set("timestamp", "type", "payload", "ordinal");

const PAYLOADS: Record<string, ReadonlySet<string>> = {
  session_meta: set(
    "id",
    "session_id",
    "timestamp",
    "cwd",
    "originator",
    "cli_version",
    "source",
    "thread_source",
    "model_provider",
    "base_instructions",
    "instructions",
    "git",
    "forked_from_id",
    "forked_from_ordinal_exclusive",
    "history_mode",
    "history_base",
    "context_window",
    "agent_nickname",
    "agent_role",
    "dynamic_tools",
    "memory_mode",
    // turnlog's own: where a rollout it exported came from (`_writer.ts`).
    "turnlog_exported_from",
  ),
  turn_context: set(
    "turn_id",
    "cwd",
    "current_date",
    "timezone",
    "approval_policy",
    "sandbox_policy",
    "permission_profile",
    "model",
    "effort",
    "summary",
    "personality",
    "collaboration_mode",
    "realtime_active",
    "user_instructions",
    "developer_instructions",
    "final_output_json_schema",
    "truncation_policy",
  ),
};

const ITEMS: Record<string, ReadonlySet<string>> = {
  message: set(PASSTHROUGH, "type", "id", "role", "content", "phase", "end_turn"),
  reasoning: set(PASSTHROUGH, "type", "id", "summary", "content", "encrypted_content"),
  function_call: set(
    PASSTHROUGH,
    "type",
    "id",
    "status",
    "name",
    "namespace",
    "arguments",
    "call_id",
  ),
  function_call_output: set(PASSTHROUGH, "type", "call_id", "output"),
  custom_tool_call: set(PASSTHROUGH, "type", "id", "status", "call_id", "name", "input"),
  custom_tool_call_output: set(PASSTHROUGH, "type", "call_id", "name", "output"),
  local_shell_call: set(PASSTHROUGH, "type", "id", "call_id", "status", "action"),
  web_search_call: set(PASSTHROUGH, "type", "id", "status", "action"),
};

/** Notes the fields of one parsed Codex line that turnlog has never seen. */
export function noteCodexFields(drift: FieldDrift, value: Json, line: number): void {
  drift.note("record", value, RECORD, line);
  const type = value.type;
  const payload = value.payload;
  if (typeof type !== "string" || typeof payload !== "object" || payload === null) return;
  if (Array.isArray(payload)) return;
  const fields = payload as Json;
  const known = type === "response_item"
    ? typeof fields.type === "string" ? ITEMS[fields.type] : undefined
    : PAYLOADS[type];
  if (known === undefined) return;
  const where = type === "response_item" ? `response_item.${fields.type}` : `${type}.payload`;
  drift.note(where, fields, known, line);
}
