/**
 * The text view of an inspection: the session's header, each turn's block, the table of
 * records per turn, the findings, and how to continue or repair. Pure: no I/O, colours only
 * when asked.
 *
 * @module
 */
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
import type { InspectReport } from "./_types.ts";

/**
 * Renders an inspection as text: header, turn blocks, the count table, findings, continue.
 * The lines of each turn come from its `entries`: a report made without them
 * (`inspectSession(path)`) shows each turn's heading, the counts and the findings only.
 */
export function renderReport(report: InspectReport, options: RenderOptions): string {
  const view = viewOf(options);
  const lineWidth = lineWidthOf(report);
  const { turns } = report;
  return [
    ...sessionHeader(report, view.paint),
    ...blockLines(report.header, { view, lineWidth, last: false }),
    ...turns.flatMap((turn, at) =>
      blockLines(turn, { view, lineWidth, last: at === turns.length - 1 })
    ),
    ...(turns.length === 0 ? noTurns(view.paint) : []),
    ...countTable(report, view.paint),
    ...findings(report, view.paint),
    ...nextSteps(report, view.paint),
  ].join("\n") + "\n";
}
