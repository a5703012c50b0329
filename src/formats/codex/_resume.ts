/**
 * A Codex rollout's line rules for the catalog's continued facts (`FormatResume`): the
 * `session_meta` line heads it, calls open and are answered by `call_id`, token counts depend on
 * the count before them, and a compaction, a second `session_meta` or a fork's history (read
 * from another rollout) refuse.
 *
 * @module
 */
import type { Json } from "../_line.ts";
import type { FormatResume } from "../_resume.ts";

const OPENS = new Set(["function_call", "custom_tool_call", "local_shell_call"]);
const ANSWERS = new Set(["function_call_output", "custom_tool_call_output"]);
const NONE: readonly string[] = [];
/** A line that opens and answers no call (most lines). */
const NO_CALLS = { opens: NONE, answers: NONE };

function payloadOf(value: Json): Json | undefined {
  const payload = value.payload;
  return typeof payload === "object" && payload !== null && !Array.isArray(payload)
    ? payload as Json
    : undefined;
}

/** Codex's rules (see the module). */
export const codexResume: FormatResume = {
  head: (value) => value.type === "session_meta",
  calls(value) {
    const payload = value.type === "response_item" ? payloadOf(value) : undefined;
    const id = payload?.call_id;
    if (payload === undefined || typeof id !== "string") return NO_CALLS;
    const type = String(payload.type);
    if (OPENS.has(type)) return { opens: [id], answers: NONE };
    if (ANSWERS.has(type)) return { opens: NONE, answers: [id] };
    return NO_CALLS;
  },
  link: () => null,
  refuses(value, first) {
    if (value.type === "compacted") return "a compaction";
    const payload = payloadOf(value);
    if (value.type === "event_msg" && payload?.type === "context_compacted") return "a compaction";
    if (value.type !== "session_meta") return undefined;
    if (!first) return "another session_meta line (a resume or a fork)";
    if (payload?.forked_from_id != null || payload?.history_base != null) {
      return "a fork's rollout (its history is read from another rollout)";
    }
    return undefined;
  },
  // A token count is not counted when it says the total before it again, nor after a usage
  // record counted its response: both depend on the count before; one with totals settles.
  carries(value) {
    if (value.type === "token_usage_record") return "depends";
    const payload = value.type === "event_msg" ? payloadOf(value) : undefined;
    if (payload?.type !== "token_count") return undefined;
    const info = payload.info;
    return typeof info === "object" && info !== null ? "settles" : undefined;
  },
  detach: (value) => value,
};
