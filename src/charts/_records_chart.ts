/**
 * The records-per-turn chart: one stacked bar per turn, one colour per kind of record.
 *
 * @module
 */
import * as Plot from "./_plot.ts";
import { KIND_COLORS, KIND_LABELS, RECORD_KINDS, type RecordCountRow } from "./_data.ts";
import {
  chartHeader,
  type ChartOptions,
  finishSvg,
  integerTicks,
  plotFrame,
  turnTicks,
} from "./_frame.ts";

/**
 * A stacked bar chart of a session's records: one bar per turn, one colour per kind of
 * record, the total written over each bar.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordsPerTurnChart } from "./mod.ts";
 * const svg = recordsPerTurnChart([
 *   { turn: 1, kind: "message", count: 2 },
 *   { turn: 2, kind: "message", count: 1 },
 * ]);
 * assert(svg.startsWith("<svg"));
 * ```
 */
export function recordsPerTurnChart(
  rows: readonly RecordCountRow[],
  options: ChartOptions = {},
): string {
  const width = options.width ?? 640;
  const kinds = RECORD_KINDS.filter((kind) => rows.some((row) => row.kind === kind));
  const turns = [...new Set(rows.map((row) => row.turn))].sort((a, b) => a - b);
  const data = rows.map((row) => ({ ...row, label: KIND_LABELS[row.kind] }));
  const totals = new Map<number, number>();
  for (const row of rows) totals.set(row.turn, (totals.get(row.turn) ?? 0) + row.count);
  // Room above the tallest bar for its total.
  const maxTotal = Math.ceil(Math.max(1, ...totals.values()) * 1.08);
  const header = chartHeader(
    options.title ?? "Records written per turn",
    options.subtitle,
    kinds.map((kind) => ({ label: KIND_LABELS[kind], color: KIND_COLORS[kind] })),
    width,
  );
  const plot = Plot.plot({
    ...plotFrame(width, options.height, header),
    x: {
      type: "band",
      domain: turns,
      ticks: turnTicks(turns, width),
      tickFormat: "d",
      label: "Turn (one run of the agent)",
      labelAnchor: "center",
    },
    y: {
      label: "Records in the session file",
      labelAnchor: "center",
      labelOffset: 44,
      grid: true,
      domain: [0, integerTicks(maxTotal).at(-1) ?? 1],
      ticks: integerTicks(maxTotal),
      tickFormat: "d",
    },
    color: {
      type: "ordinal",
      domain: kinds.map((kind) => KIND_LABELS[kind]),
      range: kinds.map((kind) => KIND_COLORS[kind]),
    },
    marks: [
      Plot.barY(data, {
        x: "turn",
        y: "count",
        fill: "label",
        order: kinds.map((kind) => KIND_LABELS[kind]),
        title: (row: typeof data[number]) => `turn ${row.turn}: ${row.count} ${row.label}`,
      }),
      // A total over each bar while the bars are wide enough to hold one.
      Plot.text(
        turns.length <= 30 ? data : [],
        Plot.groupX({ y: "sum", text: "sum" }, {
          x: "turn",
          y: "count",
          text: "count",
          dy: -8,
          fontWeight: "bold",
        }),
      ),
      Plot.ruleY([0]),
    ],
  });
  return finishSvg(plot, header);
}
