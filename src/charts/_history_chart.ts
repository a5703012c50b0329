/**
 * The history-size chart: the model-visible history's size turn after turn, dropping where a
 * compaction replaced it.
 *
 * @module
 */
import * as Plot from "./_plot.ts";
import type { HistorySizePoint } from "./_data.ts";
import {
  chartHeader,
  type ChartOptions,
  finishSvg,
  integerTicks,
  plotFrame,
  turnTicks,
} from "./_frame.ts";

/**
 * A line chart of the model-visible history's size, turn after turn: it climbs while the
 * conversation grows and drops straight down where a compaction checkpoint replaced the
 * history with a summary.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { historySizeChart } from "./mod.ts";
 * const svg = historySizeChart([
 *   { turn: 1, items: 4, moment: "end of turn" },
 *   { turn: 2, items: 9, moment: "before compaction" },
 *   { turn: 2, items: 3, moment: "end of turn" },
 * ]);
 * assert(svg.includes("compaction"));
 * ```
 */
export function historySizeChart(
  points: readonly HistorySizePoint[],
  options: ChartOptions = {},
): string {
  const width = options.width ?? 640;
  const layout = layoutOf(points);
  const header = chartHeader(
    options.title ?? "What the model sees, turn by turn",
    options.subtitle,
    layout.legend,
    width,
  );
  const plot = Plot.plot({
    ...plotFrame(width, options.height, header),
    marginRight: 24,
    x: {
      type: "linear",
      domain: [(layout.turns[0] ?? 1) - 0.5, layout.lastTurn + 0.5],
      ticks: turnTicks(layout.turns, width),
      tickFormat: "d",
      label: "Turn (one run of the agent)",
      labelAnchor: "center",
    },
    y: {
      label: "Items in the model-visible history",
      labelAnchor: "center",
      labelOffset: 44,
      grid: true,
      domain: [0, integerTicks(layout.maxItems).at(-1) ?? 1],
      ticks: integerTicks(layout.maxItems),
      tickFormat: "d",
    },
    marks: [...compactionMarks(layout), ...historyMarks(layout)],
  } as Plot.PlotOptions);
  return finishSvg(plot, header);
}

type Point = HistorySizePoint & { order: number };

/** What the chart draws, worked out from its points. */
interface Layout {
  data: Point[];
  turns: number[];
  lastTurn: number;
  compactions: Point[];
  /** More than one compaction: the legend names their rules instead of a label each. */
  crowded: boolean;
  /** The points whose value is written next to their dot. */
  labelled: Point[];
  maxItems: number;
  legend: { label: string; color: string }[];
}

function layoutOf(points: readonly HistorySizePoint[]): Layout {
  const data = points.map((point, order) => ({ ...point, order }));
  const turns = [...new Set(points.map((point) => point.turn))].sort((a, b) => a - b);
  const compactions = data.filter((point) => point.moment === "before compaction");
  // Every value is written next to its dot unless that would crowd the chart; then only the
  // ones around a compaction and the last one are; with many compactions, only the last one.
  // Two labels beside two rules a turn apart would overlap: the legend names them instead.
  const crowded = compactions.length > 1;
  const labelled = data.length <= 12
    ? data
    : data.filter((point, index) =>
      index === data.length - 1 || (!crowded && (
        point.moment === "before compaction" || data[index - 1]?.moment === "before compaction"
      ))
    );
  const legend = [{ label: "history at the end of a turn", color: "#4269d0" }];
  if (compactions.length > 0) {
    legend.push({ label: "history just before a compaction", color: "#e03131" });
  }
  if (crowded) legend.push({ label: "compaction checkpoint", color: "#3ca951" });
  return {
    data,
    turns,
    lastTurn: turns.at(-1) ?? 1,
    compactions,
    crowded,
    labelled,
    maxItems: Math.ceil(Math.max(1, ...points.map((point) => point.items)) * 1.08),
    legend,
  };
}

/** The compactions' dashed rules, each labelled right of it (left of it in the last turn). */
function compactionMarks({ compactions, crowded, lastTurn }: Layout): Plot.Markish[] {
  const rules = Plot.ruleX(compactions, {
    x: "turn",
    stroke: "#3ca951",
    strokeWidth: 2,
    strokeDasharray: "5,4",
  });
  const labels = ([["start", 6], ["end", -6]] as const).map(([textAnchor, dx]) =>
    Plot.text(
      (crowded ? [] : compactions).filter((point) =>
        (point.turn === lastTurn) === (textAnchor === "end")
      ),
      {
        x: "turn",
        frameAnchor: "top",
        text: () => "compaction checkpoint",
        textAnchor,
        dx,
        dy: 4,
        fill: "#2b8a3e",
      },
    )
  );
  return [rules, ...labels];
}

/** The history's line, its dots and the values written next to them. */
function historyMarks({ data, labelled }: Layout): Plot.Markish[] {
  const afterDrop = (point: Point) => data[point.order - 1]?.moment === "before compaction";
  const value = { x: "turn", y: "items", text: "items" } as const;
  return [
    Plot.line(data, { x: "turn", y: "items", sort: "order", stroke: "#4269d0", strokeWidth: 2 }),
    Plot.dot(data, {
      x: "turn",
      y: "items",
      r: 4,
      fill: (point: Point) => point.moment === "before compaction" ? "#e03131" : "#4269d0",
      title: (point: Point) => `turn ${point.turn}, ${point.moment}: ${point.items} items`,
    }),
    Plot.text(
      labelled.filter((point) => point.moment === "end of turn" && !afterDrop(point)),
      { ...value, dy: -12 },
    ),
    // The value right after a drop sits on the drop's line: written to its right instead.
    Plot.text(labelled.filter(afterDrop), { ...value, dx: 8, dy: 4, textAnchor: "start" }),
    Plot.text(
      labelled.filter((point) => point.moment === "before compaction"),
      { ...value, dx: -8, textAnchor: "end" },
    ),
    Plot.ruleY([0]),
  ];
}
