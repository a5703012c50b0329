/**
 * turnlog's own repair plan, worked out from an inspection: which lines go to the sidecar,
 * which glued lines split back into their records, which outputs are appended, and what is
 * left as is.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { adapterOfData } from "../formats/mod.ts";
import type { InspectProblemKind, InspectReport } from "../inspect/mod.ts";
import { jsonObjectsIn, readRange } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { quarantinePath } from "../store/mod.ts";
import { methodOf, type RepairPlan } from "./_plan.ts";
import { metaFitsFile, pairAfterSplitting, unsplitBeforeFirstRecord } from "./_split.ts";

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
  if (!adapterOfData(report.session).own) throw new ForeignRepairError(path);
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
 * `session_meta` record, the file is no longer refused.
 */
export async function planTurnlogFileRepair(report: InspectReport): Promise<RepairPlan> {
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
