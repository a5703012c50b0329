/**
 * A repair's plan, worked out from an inspection: which lines go to the sidecar, which glued
 * lines split back into their records, which outputs are appended, and what is left as is.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type {
  ForeignInsertedLine,
  ForeignRewrittenLine,
  SessionFormat,
  ValidationFinding,
} from "../formats/mod.ts";
import { jsonObjectsIn, readRange } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { quarantinePath } from "../store/mod.ts";
import { planForeignFileRepair } from "./_repair_foreign.ts";
import { metaFitsFile, pairAfterSplitting, unsplitBeforeFirstRecord } from "./_repair_split.ts";
import type { InspectProblemKind, InspectReport } from "./_types.ts";

/** Problem kinds whose line repair moves to the sidecar. */
const MOVED_KINDS: ReadonlySet<InspectProblemKind> = new Set<InspectProblemKind>([
  "torn_tail",
  "malformed_json",
  "not_an_object",
  "unknown_type",
  "invalid_record",
  "orphan_output",
  "duplicate_output",
]);

/** A line repair moves from the session file to the sidecar. */
export interface MovedLine {
  /** The line's number before the repair. */
  line: number;
  /** What is wrong with it. */
  kind: InspectProblemKind;
  /** Byte range in the session file, terminator included. */
  start: number;
  /** Byte offset just past the line's terminator. */
  end: number;
  /** The problem, `path:line: what is wrong`. */
  message: string;
  /** The bytes the sidecar keeps: the line without its newline. */
  bytes: number;
  /**
   * The records a line of several records glued together splits into, each written back on
   * a line of its own in the line's place; null for a line that only moves.
   */
  split: { type: string; text: string }[] | null;
}

/** An output repair appends for a call without one. */
export interface AppendedOutput {
  /** The call's id. */
  callId: string;
  /** The called tool's name. */
  toolName: string;
  /** The call's line and turn. */
  line: number;
  /** The call's turn, or null for the header. */
  turn: number | null;
}

/** What a repair does to one file. */
export interface RepairPlan {
  /** The session file. */
  path: string;
  /** Its format: turnlog's own, or another tool's (repaired in that tool's own shapes). */
  format: SessionFormat;
  /** The sidecar that keeps every byte taken out (`<file>.quarantine`). */
  sidecar: string;
  /** Lines moved to the sidecar, in file order. */
  moved: MovedLine[];
  /**
   * How the lines leave the session file: `truncate` when only the last line goes (it is cut
   * off), `rewrite` otherwise (temp file, fsync, atomic rename).
   */
  method: "none" | "truncate" | "rewrite";
  /** Synthesized outputs appended at the end, exactly as resume would write them. */
  appended: AppendedOutput[];
  /**
   * Lines changed in place, each original kept in the sidecar (another tool's file: a line
   * re-parented onto a synthesized result, a result no call asked for taken out of a line).
   */
  rewritten: ForeignRewrittenLine[];
  /**
   * Lines written where they belong (another tool's file: the result of a call that has
   * none, in that tool's own shape, right after the call or its other results).
   */
  inserted: ForeignInsertedLine[];
  /** What the format's validator found before the repair (another tool's file; else empty). */
  findings: ValidationFinding[];
  /** Problems repair leaves as they are, and why. */
  leftAsIs: string[];
  /** Why repair refuses to touch the file at all, or null. */
  refused: string | null;
}

/** True when a plan changes nothing. */
export function isEmptyPlan(plan: RepairPlan): boolean {
  return plan.moved.length === 0 && plan.appended.length === 0 && plan.rewritten.length === 0 &&
    plan.inserted.length === 0;
}

/**
 * Works out what a repair would do from an inspection. Pure.
 *
 * @example
 * ```ts ignore
 * const plan = planRepair(await inspectSession(path));
 * ```
 *
 * @throws {ForeignRepairError} for another tool's file: its plan is worked out from the file
 * itself ({@linkcode planFileRepair})
 */
export function planRepair(report: InspectReport): RepairPlan {
  const path = report.session.path;
  const format = report.session.format;
  if (format !== "turnlog") throw new ForeignRepairError(path);
  const plan: RepairPlan = {
    path,
    format,
    sidecar: quarantinePath(path),
    moved: [],
    method: "none",
    appended: [],
    rewritten: [],
    inserted: [],
    findings: [],
    leftAsIs: [],
    refused: null,
  };
  for (const problem of report.problems) {
    if (MOVED_KINDS.has(problem.kind) && problem.start !== null && problem.end !== null) {
      plan.moved.push({
        line: problem.line,
        kind: problem.kind,
        start: problem.start,
        end: problem.end,
        message: problem.message,
        bytes: problem.end - problem.start,
        split: null,
      });
    } else if (problem.kind === "missing_session_meta") {
      plan.refused = `${problem.message}; without it the session's id, model and policy are ` +
        "unknown, so repair leaves the file alone (fix the first line by hand)";
    } else if (problem.kind === "id_mismatch") {
      plan.refused = `${problem.message}; repair leaves the file alone (give the file its ` +
        "session's name, or import it as a new session)";
    } else {
      const why = problem.kind === "duplicate_session_meta"
        ? "resume ignores it"
        : problem.kind === "record_before_first_turn"
        ? "resume reads it like any other record"
        : "it is not one line of its own";
      plan.leftAsIs.push(`${problem.message} (left as is: ${why})`);
    }
  }
  plan.method = methodOf(plan.moved, report.session.sizeBytes);
  plan.appended = report.orphanCalls.map((c) => ({
    callId: c.callId,
    toolName: c.name,
    line: c.line,
    turn: c.turn,
  }));
  return plan;
}

/** A pure plan asked of another tool's file, whose plan needs the file itself. */
export class ForeignRepairError extends TurnlogError {
  /** An error naming the file. */
  constructor(path: string, options?: ErrorOptions) {
    super(
      "usage",
      `Repair plan of ${path}: another tool's file is planned from the file (planFileRepair)`,
      options,
    );
    this.name = "ForeignRepairError";
  }
}

/** How the moved lines leave the file: cut off when only the last line goes, else a rewrite. */
export function methodOf(moved: readonly MovedLine[], size: number): RepairPlan["method"] {
  if (moved.length === 0) return "none";
  const only = moved[0]!;
  return moved.length === 1 && only.end === size && only.split === null ? "truncate" : "rewrite";
}

/**
 * Splits a line of several complete JSON objects glued together (a writer that lost a
 * newline) into their texts, when every one is a valid record; otherwise null.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitGluedRecords } from "./mod.ts";
 * assert(splitGluedRecords('{"a":1}{"b":2}') === null); // not records
 * ```
 */
export function splitGluedRecords(text: string): { type: string; text: string }[] | null {
  const pieces = jsonObjectsIn(text);
  if (pieces === null || pieces.length < 2) return null;
  const records = [];
  for (const piece of pieces) {
    const parsed = parseRecordLine("", {
      line: 1,
      text: piece,
      start: 0,
      end: 0,
      terminated: true,
    });
    if (!parsed.record) return null;
    records.push({ type: parsed.record.type, text: piece });
  }
  return records;
}

/**
 * {@linkcode planRepair}, then a look at the bad lines themselves: a line of records glued
 * together is split back into them (it still goes to the sidecar as it was), and the calls and
 * outputs it gives back are paired with the rest of the file. When such a line gives back the
 * `session_meta` record, the file is no longer refused. Another tool's file is planned from
 * the file itself (its format's check and repair, in `src/formats`).
 */
export async function planFileRepair(report: InspectReport): Promise<RepairPlan> {
  const format = report.session.format;
  if (format !== "turnlog") return await planForeignFileRepair(report.session.path, format);
  const plan = planRepair(report);
  if (plan.moved.length === 0) return plan;
  const decoder = new TextDecoder();
  using file = await Deno.open(plan.path, { read: true });
  for (const m of plan.moved) {
    if (m.kind !== "malformed_json") continue;
    m.split = splitGluedRecords(decoder.decode(await readRange(file, m)).trimEnd());
  }
  await unsplitBeforeFirstRecord(plan);
  if (plan.moved.some((m) => m.split !== null)) {
    await pairAfterSplitting(plan, report.session.sizeBytes);
  }
  for (const m of plan.moved) {
    const [last] = await readRange(file, { start: m.end - 1, end: m.end });
    m.bytes = m.end - m.start - (last === 10 ? 1 : 0);
  }
  const missing = report.problems.find((p) => p.kind === "missing_session_meta");
  const firstSplit = plan.moved.find((m) => m.split !== null);
  if (
    missing && firstSplit && firstSplit.line <= missing.line &&
    firstSplit.split![0]!.type === "session_meta" &&
    metaFitsFile(plan.path, firstSplit.split![0]!.text) &&
    plan.moved.filter((m) => m.line < firstSplit.line).every((m) => m.split === null)
  ) {
    plan.refused = null;
  }
  const stray = report.problems.find((p) => p.kind === "record_before_first_turn");
  const turnBack = plan.moved.find((m) => m.split?.some((r) => r.type === "turn_context"));
  if (stray && turnBack && turnBack.line < stray.line) {
    // The turn_context the stray records missed is on the glued line: splitting fixes them.
    plan.leftAsIs = plan.leftAsIs.filter((note) => !note.startsWith(stray.message));
  }
  plan.method = methodOf(plan.moved, report.session.sizeBytes);
  return plan;
}
