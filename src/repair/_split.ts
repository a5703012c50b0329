/**
 * The pairing verdicts of a repair worked out again on the file as it will be once its glued
 * lines are split back into their records: a call or an output inside a glued line is not
 * seen by the inspection, so without this a repair would move out an output whose call the
 * split restores, or append an output for a call whose output it restores.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { readLines } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { parseSessionFileName } from "../store/mod.ts";
import { type InspectProblemKind, TurnSegmenter } from "../inspect/mod.ts";
import type { MovedLine, RepairPlan } from "./_plan.ts";

const DROPPED: ReadonlySet<InspectProblemKind> = new Set<InspectProblemKind>([
  "orphan_output",
  "duplicate_output",
]);

/** The number of the file's first line that is a valid record; undefined when none is. */
async function firstRecordLine(path: string): Promise<number | undefined> {
  for await (const line of readLines(path, { chunkSize: 16 * 1024 })) {
    if (line.text.length === 0 && line.terminated) continue;
    if (parseRecordLine(path, line).record) return line.line;
  }
  return undefined;
}

/**
 * Leaves unsplit the glued lines before the file's first record, unless their records start
 * with a `session_meta`: split back there, they would stand before the session's
 * `session_meta` and resume would refuse the file. Such a line only moves (the sidecar keeps
 * it either way).
 */
export async function unsplitBeforeFirstRecord(plan: RepairPlan): Promise<void> {
  if (!plan.moved.some((m) => m.split !== null)) return;
  const first = await firstRecordLine(plan.path) ?? Infinity;
  for (const m of plan.moved) {
    if (m.split !== null && m.line < first && m.split[0]?.type !== "session_meta") m.split = null;
  }
}

/**
 * Whether the text of a `session_meta` record split back out of a glued line names the session
 * the file's name gives (or the name gives none): one for another session leaves the file
 * refused, as it would be with that record on a line of its own.
 */
export function metaFitsFile(path: string, text: string): boolean {
  const named = parseSessionFileName(basename(path), dirname(path))?.id;
  return named === undefined || JSON.parse(text).payload?.id === named;
}

/** Segments the file with each split line's records in its place (its number and range). */
async function inspectSplit(plan: RepairPlan, sizeBytes: number) {
  const splits = new Map(plan.moved.flatMap((m) => m.split ? [[m.start, m.split] as const] : []));
  const segmenter = new TurnSegmenter(plan.path);
  for await (const line of readLines(plan.path)) {
    if (line.text.length === 0 && line.terminated) continue;
    const pieces = splits.get(line.start) ?? [{ text: line.text }];
    for (const { text } of pieces) {
      segmenter.push(parseRecordLine(plan.path, { ...line, text }), line);
    }
  }
  return segmenter.finish({ sizeBytes });
}

/** Takes out of a split line's records its last output for `callId` (the one dropped). */
function dropPiece(glued: MovedLine, callId: string): void {
  const pieces = glued.split!;
  for (let i = pieces.length - 1; i >= 0; i--) {
    const payload = JSON.parse(pieces[i]!.text).payload;
    if (payload?.type === "function_call_output" && payload.callId === callId) {
      pieces.splice(i, 1);
      return;
    }
  }
}

/**
 * Replaces the plan's pairing verdicts (outputs moved out as orphans or second outputs, and
 * outputs appended for orphan calls) with those of the file as the split leaves it. A dropped
 * output inside a glued line is left out of the records written back (the sidecar keeps the
 * whole line). `moved` entries must hold their `split` already; `bytes` of new entries is set
 * by the caller.
 */
export async function pairAfterSplitting(plan: RepairPlan, sizeBytes: number): Promise<void> {
  const report = await inspectSplit(plan, sizeBytes);
  const splitStarts = new Set(plan.moved.flatMap((m) => m.split ? [m.start] : []));
  plan.moved = plan.moved.filter((m) => !DROPPED.has(m.kind));
  for (const { kind, line, start, end, message } of report.problems) {
    if (!DROPPED.has(kind) || start === null || end === null || splitStarts.has(start)) continue;
    plan.moved.push({ line, kind, start, end, message, bytes: end - start, split: null });
  }
  plan.moved.sort((a, b) => a.start - b.start);
  for (const output of report.orphanOutputs) {
    const glued = plan.moved.find((m) => m.line === output.line && m.split !== null);
    if (glued && !output.inCheckpoint) dropPiece(glued, output.callId);
  }
  plan.appended = report.orphanCalls.map((c) => ({
    callId: c.callId,
    toolName: c.name,
    line: c.line,
    turn: c.turn,
  }));
}
