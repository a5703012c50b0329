/**
 * What Codex needs from a rollout's history, checked: every `function_call`,
 * `custom_tool_call` and `local_shell_call` answered by an output with its `call_id` before the
 * next user or assistant message, and no output without a call waiting for it. A `compacted`
 * record starts the history again. The same analysis tells repair what to write and move.
 *
 * @module
 */
import { type Json, objectOf, stringOf } from "../_line.ts";
import { badLineFindings, type ValidationFinding } from "../_repair_types.ts";
import { type BadLine, readView, type ViewPlace } from "../_view.ts";
import { CallIdTable } from "../_call_ids.ts";
import { CODEX_LINES } from "./_lines.ts";
import { CodexOrdinals, type OrdinalIssue, ordinalWords } from "./_ordinals.ts";

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

/** An output no waiting call claims, or a second call of an id that is still waiting. */
export interface CodexStrayOutput extends ViewPlace {
  callId: string;
  kind: "orphan_output" | "duplicate_output" | "duplicate_call";
}

/** Everything the check learns. */
export interface CodexAnalysis {
  bad: BadLine[];
  /** Calls not answered before the next message, in file order. */
  unanswered: { call: CodexCall; before: number | null }[];
  stray: CodexStrayOutput[];
  /** Records of a paginated rollout whose ordinal is missing, repeated or out of order. */
  ordinals: OrdinalIssue[];
}

const CALLS = new Set(["function_call", "custom_tool_call", "local_shell_call"]);
const OUTPUTS = new Set(["function_call_output", "custom_tool_call_output"]);

/**
 * The check, fed a rollout's lines one by one (each line as the view has it, with its place):
 * the calls that wait for their outputs, the outputs no call waits for.
 */
export class CodexChecker {
  readonly bad: BadLine[] = [];
  readonly #unanswered: CodexAnalysis["unanswered"] = [];
  readonly #stray: CodexStrayOutput[] = [];
  readonly #waiting = new Map<string, CodexCall>();
  /** The calls answered since the last compaction (320,000 ids in a 1 GB rollout). */
  #answered = new CallIdTable();
  #ordinals = new CodexOrdinals();

  /** A check that goes on from where this one is (a followed rollout's is finished on a copy). */
  clone(): CodexChecker {
    // Every field is copied: one added to the class is added here.
    const copy = new CodexChecker();
    copy.bad.push(...this.bad);
    copy.#unanswered.push(...this.#unanswered);
    copy.#stray.push(...this.#stray);
    for (const [id, call] of this.#waiting) copy.#waiting.set(id, call);
    copy.#answered = this.#answered.clone();
    copy.#ordinals = this.#ordinals.clone();
    return copy;
  }

  #close(before: number | null): void {
    for (const call of this.#waiting.values()) this.#unanswered.push({ call, before });
    this.#waiting.clear();
  }

  /**
   * One line of the view: its parsed object, its index in the view and where it is (a place
   * of the view, or a line of the file: a piece of none).
   */
  line(
    value: Json,
    k: number,
    at: Omit<ViewPlace, "k" | "piece"> & { piece?: number | null },
  ): void {
    // This runs for every line: a line that is no item is told with no call (see stringOf).
    if (at.piece === undefined || at.piece === null) this.#ordinals.see(value, at);
    const type = value.type;
    if (type === "compacted") {
      this.#waiting.clear();
      this.#answered.clear();
    }
    if (type !== "response_item") return;
    const payload = objectOf(value.payload) ?? {};
    const itemType = stringOf(payload.type) ?? "";
    const { line } = at;
    if (itemType === "message") {
      const role = stringOf(payload.role);
      if (role === "user" || role === "assistant") this.#close(line);
    } else if (CALLS.has(itemType)) {
      const callId = stringOf(payload.call_id) || stringOf(payload.id);
      // A call with no id is no call to the tool (its reader says the line is invalid).
      if (!callId) return;
      if (this.#waiting.has(callId)) {
        // A duplicated line: the one output can answer one call only, so the copy goes.
        this.#stray.push({ callId, kind: "duplicate_call", ...placeOf(k, at) });
        return;
      }
      this.#waiting.set(callId, {
        callId,
        type: itemType,
        name: itemType === "local_shell_call" ? "local_shell" : stringOf(payload.name) || "unknown",
        k,
        line,
        end: at.end,
        piece: at.piece ?? null,
        timestamp: stringOf(value.timestamp),
        ordinal: typeof value.ordinal === "number" ? value.ordinal : undefined,
      });
    } else if (OUTPUTS.has(itemType)) {
      const callId = stringOf(payload.call_id);
      // An output with no call id answers no call (its reader says the line is invalid).
      if (!callId) return;
      if (this.#waiting.delete(callId)) {
        this.#answered.set(callId, 1);
        return;
      }
      const kind = this.#answered.get(callId) !== undefined ? "duplicate_output" : "orphan_output";
      this.#stray.push({ callId, kind, ...placeOf(k, at) });
    }
  }

  /** The analysis, once every line has been fed. */
  finish(): CodexAnalysis {
    this.#close(null);
    const unanswered = this.#unanswered.sort((a, b) => a.call.k - b.call.k);
    return { bad: this.bad, unanswered, stray: this.#stray, ordinals: this.#ordinals.finish() };
  }
}

/** A line's place in the view. */
function placeOf(
  k: number,
  at: Omit<ViewPlace, "k" | "piece"> & { piece?: number | null },
): ViewPlace {
  const { line, start, end, terminated } = at;
  return { k, line, start, end, terminated, piece: at.piece ?? null };
}

/** Reads the rollout at `path` (up to `sizeBytes`) as its repair will leave it, and checks it. */
export async function analyzeCodex(path: string, sizeBytes: number): Promise<CodexAnalysis> {
  const checker = new CodexChecker();
  for await (const item of readView(path, CODEX_LINES, sizeBytes)) {
    if (item.bad) checker.bad.push(item.bad);
    else checker.line(item.line.value, item.line.k, item.line);
  }
  return checker.finish();
}

/** What is wrong with a stray line, in words. */
export function strayWords(stray: CodexStrayOutput): string {
  switch (stray.kind) {
    case "duplicate_output":
      return `a second output for ${stray.callId}`;
    case "duplicate_call":
      return `a second call ${stray.callId} while the first waits for its output (a copied line)`;
    case "orphan_output":
      return `output for ${stray.callId}, which no call waiting for it has`;
  }
}

/** The validator's findings on an analysis, by line. */
export function codexFindings(path: string, analysis: CodexAnalysis): ValidationFinding[] {
  const findings = badLineFindings(analysis.bad);
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
      kind: output.kind === "duplicate_call" ? "unanswered_call" : "unexpected_result",
      line: output.line,
      callId: output.callId,
      message: `${path}:${output.line}: ${strayWords(output)}`,
    });
  }
  for (const issue of analysis.ordinals) {
    findings.push({
      kind: "bad_ordinal",
      line: issue.line,
      callId: null,
      message: `${path}:${issue.line}: ${ordinalWords(issue)}`,
    });
  }
  return findings.sort((a, b) => a.line - b.line);
}
