/**
 * What Codex needs from a rollout's history, checked: every `function_call`,
 * `custom_tool_call` and `local_shell_call` answered by an output with its `call_id` before the
 * next user or assistant message, and no output without a call waiting for it. A `compacted`
 * record starts the history again. The same analysis tells repair what to write and move.
 *
 * @module
 */
import { obj, str } from "../_line.ts";
import type { ValidationFinding } from "../_repair_types.ts";
import { type BadLine, readView, type ViewPlace } from "../_view.ts";

/** A call of the history, where it is. */
export interface CodexCall {
  callId: string;
  /** `function_call`, `custom_tool_call` or `local_shell_call`. */
  type: string;
  name: string;
  k: number;
  line: number;
  end: number;
  piece: number | null;
  timestamp: string | undefined;
  /** The record's `ordinal` (Codex 0.169 numbers every record of a paginated rollout). */
  ordinal: number | undefined;
}

/** An output no waiting call claims. */
export interface CodexStrayOutput extends ViewPlace {
  callId: string;
  kind: "orphan_output" | "duplicate_output";
}

/** Everything the check learns. */
export interface CodexAnalysis {
  bad: BadLine[];
  /** Calls not answered before the next message, in file order. */
  unanswered: { call: CodexCall; before: number | null }[];
  stray: CodexStrayOutput[];
}

const CALLS = new Set(["function_call", "custom_tool_call", "local_shell_call"]);
const OUTPUTS = new Set(["function_call_output", "custom_tool_call_output"]);

/** Reads the rollout at `path` (up to `sizeBytes`) as its repair will leave it, and checks it. */
export async function analyzeCodex(path: string, sizeBytes: number): Promise<CodexAnalysis> {
  const bad: BadLine[] = [];
  const unanswered: CodexAnalysis["unanswered"] = [];
  const stray: CodexStrayOutput[] = [];
  const waiting = new Map<string, CodexCall>();
  const answered = new Set<string>();
  const close = (before: number | null) => {
    for (const call of waiting.values()) unanswered.push({ call, before });
    waiting.clear();
  };
  for await (const item of readView(path, "codex", sizeBytes)) {
    if (item.bad) {
      bad.push(item.bad);
      continue;
    }
    const { value, k, line } = item.line;
    const type = str(value, "type");
    if (type === "compacted") {
      waiting.clear();
      answered.clear();
    }
    if (type !== "response_item") continue;
    const payload = obj(value, "payload") ?? {};
    const itemType = str(payload, "type") ?? "";
    const role = str(payload, "role");
    if (itemType === "message" && (role === "user" || role === "assistant")) close(line);
    if (CALLS.has(itemType)) {
      const callId = str(payload, "call_id") || str(payload, "id")!;
      waiting.set(callId, {
        callId,
        type: itemType,
        name: itemType === "local_shell_call" ? "local_shell" : str(payload, "name") || "unknown",
        k,
        line,
        end: item.line.end,
        piece: item.line.piece,
        timestamp: str(value, "timestamp"),
        ordinal: typeof value.ordinal === "number" ? value.ordinal : undefined,
      });
    } else if (OUTPUTS.has(itemType)) {
      const callId = str(payload, "call_id")!;
      if (waiting.delete(callId)) {
        answered.add(callId);
        continue;
      }
      const { start, end, terminated, piece } = item.line;
      const kind = answered.has(callId) ? "duplicate_output" : "orphan_output";
      stray.push({ callId, kind, k, line, start, end, terminated, piece });
    }
  }
  close(null);
  unanswered.sort((a, b) => a.call.k - b.call.k);
  return { bad, unanswered, stray };
}

/** The validator's findings on an analysis, by line. */
export function codexFindings(path: string, analysis: CodexAnalysis): ValidationFinding[] {
  const findings: ValidationFinding[] = analysis.bad.map((line) => ({
    kind: "bad_line",
    line: line.line,
    callId: null,
    message: line.message,
  }));
  for (const { call, before } of analysis.unanswered) {
    const after = before === null
      ? "the rollout ends without it"
      : `the message at line ${before} comes first`;
    findings.push({
      kind: "unanswered_call",
      line: call.line,
      callId: call.callId,
      message: `${path}:${call.line}: ${call.type} ${call.callId} (${call.name}) has no ` +
        `output (${after})`,
    });
  }
  for (const output of analysis.stray) {
    findings.push({
      kind: "unexpected_result",
      line: output.line,
      callId: output.callId,
      message: output.kind === "duplicate_output"
        ? `${path}:${output.line}: a second output for ${output.callId}`
        : `${path}:${output.line}: output for ${output.callId}, which no call waiting for it has`,
    });
  }
  return findings.sort((a, b) => a.line - b.line);
}
