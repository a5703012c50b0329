/**
 * The usage chart: one stacked bar per day (or project), one colour per model, for the
 * browser's usage page.
 *
 * @module
 */
import * as Plot from "./_plot.ts";
import { chartHeader, type ChartOptions, finishSvg, plotFrame } from "./_frame.ts";

/** One bar's part: its bar (a day, a project), its series (a model) and its value. */
export interface UsageBar {
  /** The bar it belongs to. */
  bar: string;
  /** The part of the bar (a model). */
  series: string;
  /** Its height. */
  value: number;
}

/** Options of {@linkcode usageChart}. */
export interface UsageChartOptions extends ChartOptions {
  /** What the bars are (`Day`). */
  xLabel: string;
  /** What their height is (`Tokens`). */
  yLabel: string;
}

/** Colours of the series, in order (the common categorical palette). */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];

/**
 * A stacked bar chart: one bar per `bar`, one colour per `series`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usageChart } from "./mod.ts";
 * const svg = usageChart([
 *   { bar: "2026-02-23", series: "gpt-5.5", value: 1200 },
 *   { bar: "2026-02-24", series: "gpt-5.5", value: 300 },
 * ], { xLabel: "Day", yLabel: "Tokens" });
 * assert(svg.startsWith("<svg"));
 * ```
 */
export function usageChart(rows: readonly UsageBar[], options: UsageChartOptions): string {
  const width = options.width ?? 720;
  const bars = [...new Set(rows.map((row) => row.bar))];
  const series = [...new Set(rows.map((row) => row.series))].sort();
  const colors = series.map((_, i) => PALETTE[i % PALETTE.length]!);
  const header = chartHeader(
    options.title ?? `${options.yLabel} per ${options.xLabel.toLowerCase()}`,
    options.subtitle,
    series.map((label, i) => ({ label, color: colors[i]! })),
    width,
  );
  const plot = Plot.plot({
    ...plotFrame(width, options.height, header),
    x: { type: "band", domain: bars, label: options.xLabel, labelAnchor: "center" },
    y: { label: options.yLabel, labelAnchor: "center", labelOffset: 44, grid: true },
    color: { type: "ordinal", domain: series, range: colors },
    marks: [
      Plot.barY(rows as UsageBar[], {
        x: "bar",
        y: "value",
        fill: "series",
        title: (row: UsageBar) => `${row.bar} ${row.series}: ${row.value}`,
      }),
      Plot.ruleY([0]),
    ],
  });
  return finishSvg(plot, header);
}
