/**
 * The text view of a session file, streamed: each turn is shown as soon as it is read, then let
 * go of, so the view of a large file takes little memory.
 *
 * The view starts with the session's verdict and totals, which need the whole file: a first
 * pass makes the report without the lines of each turn (what `--json` makes, in bounded
 * memory), a second one reads the lines again and shows them turn by turn. The header stays
 * on top, where a reader of the text looks for the verdict, and the text is the one
 * `renderReport` makes of a report with every entry; the price is reading the
 * file twice.
 *
 * @module
 */
import { readLines } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { type InspectOptions, inspectSession } from "./_inspect.ts";
import {
  blockLines,
  countTable,
  findings,
  lineWidthOf,
  nextSteps,
  noTurns,
  sessionHeader,
} from "./_render_sections.ts";
import { type RenderOptions, viewOf } from "./_render_text.ts";
import { TurnSegmenter } from "./_segmenter.ts";
import type { InspectReport, LineRef, TurnEntry } from "./_types.ts";

/** Options of {@linkcode reportTextPieces}. */
export interface TextViewOptions
  extends Omit<InspectOptions, "entries" | "onBlock" | "onLaterOutput"> {
  /** How the text is rendered. */
  render: RenderOptions;
}

const asLines = (lines: string[]) => lines.map((line) => line + "\n").join("");

/**
 * What the first pass knows that a turn's entries cannot know when the turn ends: the calls
 * resume would synthesize an output for, the outputs it drops, the outputs in later turns.
 */
function settler(report: InspectReport, later: ReadonlyMap<number, LineRef>) {
  const orphans = new Set(report.orphanCalls.filter((c) => !c.inCheckpoint).map((c) => c.line));
  const dropped = new Map(
    report.orphanOutputs.filter((o) => !o.inCheckpoint).map((o) => [o.line, o.reason]),
  );
  return (entry: TurnEntry) => {
    if (entry.kind === "function_call") {
      if (orphans.has(entry.line)) entry.orphan = true;
      entry.output ??= later.get(entry.line) ?? null;
    } else if (entry.kind === "function_call_output") {
      entry.dropped = dropped.get(entry.line) ?? null;
    }
  };
}

/**
 * The text view of the session file at `path`, in pieces: the header once the first pass is
 * done, then each turn as the second pass reads it, then the table of records per turn, the
 * findings and how to continue. Joined, the pieces are the text `renderReport`
 * makes of `inspectSession(path, { entries: true })`; at no point are more than one turn's
 * lines held. The generator returns the report (without entries), for its verdict. Lines
 * appended between the two passes are left out.
 *
 * @example
 * ```ts ignore
 * const pieces = reportTextPieces("session.jsonl", { render: { color: false } });
 * for await (const piece of pieces) await Deno.stdout.write(new TextEncoder().encode(piece));
 * ```
 */
export async function* reportTextPieces(
  path: string,
  options: TextViewOptions,
): AsyncGenerator<string, InspectReport> {
  const { render, ...inspect } = options;
  const later = new Map<number, LineRef>();
  const report = await inspectSession(path, {
    ...inspect,
    onLaterOutput: (callLine, output) => later.set(callLine, output),
  });
  const view = viewOf(render);
  const lineWidth = lineWidthOf(report);
  const settle = settler(report, later);
  yield asLines(sessionHeader(report, view.paint));
  let ready = "";
  const segmenter = new TurnSegmenter(path, {
    ...(inspect.textLimit === undefined ? {} : { textLimit: inspect.textLimit }),
    entries: true,
    onBlock(block) {
      for (const entry of block.entries ?? []) settle(entry);
      const last = "index" in block && block.index === report.turns.length;
      ready += asLines(blockLines(block, { view, lineWidth, last }));
      block.entries = [];
    },
  });
  const size = report.session.sizeBytes;
  for await (const line of readLines(path)) {
    if (line.start >= size) break;
    if (line.text.length === 0 && line.terminated) continue;
    segmenter.push(parseRecordLine(path, line), line);
    if (ready.length > 0) {
      yield ready;
      ready = "";
    }
  }
  segmenter.finish({ sizeBytes: size });
  if (ready.length > 0) yield ready;
  const { paint } = view;
  yield asLines([
    ...(report.turns.length === 0 ? noTurns(paint) : []),
    ...countTable(report, paint),
    ...findings(report, paint),
    ...nextSteps(report, paint),
  ]);
  return report;
}
