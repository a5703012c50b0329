/**
 * Charts of a session for the notebooks and reports: plain data in, a standalone SVG string
 * out, drawn by Observable Plot on a linkedom DOM (no browser). Pure: no I/O, no clock, no
 * randomness, so the same data always gives the same bytes.
 *
 * @module
 */
import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import type { ResponseItem, SessionRecord } from "../record/mod.ts";
import { replayRecord } from "../history/mod.ts";
import { clip } from "../text/mod.ts";

/**
 * The kinds of line a record-count chart stacks, in stacking order: the record types, with
 * `response_item` records split by item type (the columns of `inspect --json` counts), and the
 * tool outputs a resume synthesized told apart from the ones a tool wrote.
 */
export const RECORD_KINDS = [
  "session_meta",
  "turn_context",
  "message",
  "function_call",
  "function_call_output",
  "synthesized_output",
  "compaction_summary",
  "compaction_checkpoint",
  "run_finished",
  "problem_lines",
] as const;
/** A kind of line in a session file. */
export type RecordKind = typeof RECORD_KINDS[number];

/** Words a reader understands, for the legend. */
const KIND_LABELS: Record<RecordKind, string> = {
  session_meta: "session meta",
  turn_context: "turn context",
  message: "message",
  function_call: "tool call",
  function_call_output: "tool output",
  synthesized_output: "synthesized tool output",
  compaction_summary: "compaction summary",
  compaction_checkpoint: "compaction checkpoint",
  run_finished: "run finished",
  problem_lines: "damaged line",
};

/** One colour per kind, fixed, so every chart colours a kind the same way. */
const KIND_COLORS: Record<RecordKind, string> = {
  session_meta: "#9498a0",
  turn_context: "#6cc5b0",
  message: "#4269d0",
  function_call: "#efb118",
  function_call_output: "#ff8ab7",
  synthesized_output: "#c2255c",
  compaction_summary: "#a463f2",
  compaction_checkpoint: "#3ca951",
  run_finished: "#97bbf5",
  problem_lines: "#e03131",
};

/** How many lines of one kind one turn wrote. */
export interface RecordCountRow {
  /** 1-based turn number. */
  turn: number;
  /** The kind of line counted. */
  kind: RecordKind;
  /** How many lines of that kind the turn wrote. */
  count: number;
}

/** Per-turn counts as `inspect --json` reports them (`turns[].counts`, `header.counts`). */
export interface TurnCounts {
  /** The 1-based turn number (0 for the lines before the first turn). */
  index: number;
  /** Lines by kind, and their total. */
  counts: Partial<Record<RecordKind | "total", number>>;
}

/**
 * Turns per-turn counts (the inspector's shape) into chart rows, zero counts left out. The
 * header's lines (the `session_meta` before the first turn) are counted in turn 1, which
 * wrote them. Synthesized outputs (the inspector's `synthesizedOutputs`, by turn) are moved
 * from the tool outputs to their own kind.
 */
export function recordCountRows(
  turns: readonly TurnCounts[],
  options: {
    header?: TurnCounts["counts"];
    synthesized?: readonly { turn: number | null }[];
  } = {},
): RecordCountRow[] {
  const rows: RecordCountRow[] = [];
  turns.forEach((turn, position) => {
    const synthesized = (options.synthesized ?? []).filter((output) =>
      output.turn === turn.index
    ).length;
    for (const kind of RECORD_KINDS) {
      let count = (turn.counts[kind] ?? 0) + (position === 0 ? options.header?.[kind] ?? 0 : 0);
      if (kind === "function_call_output") count -= synthesized;
      if (kind === "synthesized_output") count += synthesized;
      if (count > 0) rows.push({ turn: turn.index, kind, count });
    }
  });
  return rows;
}

/** The kind of line a record counts as. */
export function recordKind(record: SessionRecord): RecordKind {
  if (record.type !== "response_item") return record.type;
  const item = record.payload;
  return item.type === "function_call_output" && item.synthesized
    ? "synthesized_output"
    : item.type;
}

/**
 * Counts a session's records per turn and kind. A turn starts at each `turn_context`; records
 * before the first one (the `session_meta`) count in turn 1.
 */
export function countRecordsPerTurn(records: Iterable<SessionRecord>): RecordCountRow[] {
  const perTurn: Map<RecordKind, number>[] = [];
  let current = new Map<RecordKind, number>();
  let started = false;
  for (const record of records) {
    if (record.type === "turn_context") {
      if (started) {
        perTurn.push(current);
        current = new Map();
      }
      started = true;
    }
    const kind = recordKind(record);
    current.set(kind, (current.get(kind) ?? 0) + 1);
  }
  if (current.size > 0) perTurn.push(current);
  return perTurn.flatMap((counts, index) =>
    RECORD_KINDS.filter((kind) => counts.has(kind)).map((kind) => ({
      turn: index + 1,
      kind,
      count: counts.get(kind) ?? 0,
    }))
  );
}

/** The size of the model-visible history at one moment of a session. */
export interface HistorySizePoint {
  /** 1-based turn number. */
  turn: number;
  /** Items in the history (messages, tool calls and outputs, summaries). */
  items: number;
  /** When: at the end of the turn, or just before a compaction checkpoint replaced it. */
  moment: "end of turn" | "before compaction";
}

/**
 * Replays a session and measures its model-visible history at the end of every turn and
 * right before every compaction checkpoint, in file order: the data of
 * {@linkcode historySizeChart}. Records before the first `turn_context` count in turn 1.
 */
export function historySizePerTurn(records: Iterable<SessionRecord>): HistorySizePoint[] {
  const history: ResponseItem[] = [];
  const points: HistorySizePoint[] = [];
  let turn = 0;
  for (const record of records) {
    if (record.type === "turn_context") {
      if (turn > 0) points.push({ turn, items: history.length, moment: "end of turn" });
      turn++;
    }
    if (record.type === "response_item" && record.payload.type === "compaction_checkpoint") {
      points.push({ turn: Math.max(turn, 1), items: history.length, moment: "before compaction" });
    }
    replayRecord(history, record);
  }
  if (turn > 0) points.push({ turn, items: history.length, moment: "end of turn" });
  return points;
}

/** What every chart accepts. */
export interface ChartOptions {
  /** The headline, in plain words. */
  title?: string;
  /** One line under the title: what to look at. */
  subtitle?: string;
  /** Width in pixels (default 640). */
  width?: number;
  /** Height of the plot area and axes in pixels, without the title (default 320). */
  height?: number;
}

const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";
const SVG_NS = "http://www.w3.org/2000/svg";

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
  const data = points.map((point, order) => ({ ...point, order }));
  const turns = [...new Set(points.map((point) => point.turn))].sort((a, b) => a - b);
  const compactions = data.filter((point) => point.moment === "before compaction");
  const lastTurn = turns.at(-1) ?? 1;
  // Every value is written next to its dot unless that would crowd the chart; then only the
  // ones around a compaction and the last one are; with many compactions, only the last one,
  // and the compactions' rules are told by the legend instead of a label each.
  const crowded = compactions.length > 3;
  const labelled = data.length <= 12
    ? data
    : data.filter((point, index) =>
      index === data.length - 1 || (!crowded && (
        point.moment === "before compaction" || data[index - 1]?.moment === "before compaction"
      ))
    );
  const afterDrop = (point: typeof data[number]) =>
    data[point.order - 1]?.moment === "before compaction";
  const maxItems = Math.ceil(Math.max(1, ...points.map((point) => point.items)) * 1.08);
  const legend = [{ label: "history at the end of a turn", color: "#4269d0" }];
  if (compactions.length > 0) {
    legend.push({ label: "history just before a compaction", color: "#e03131" });
  }
  if (crowded) legend.push({ label: "compaction checkpoint", color: "#3ca951" });
  const header = chartHeader(
    options.title ?? "What the model sees, turn by turn",
    options.subtitle,
    legend,
    width,
  );
  const plot = Plot.plot({
    ...plotFrame(width, options.height, header),
    marginRight: 24,
    x: {
      type: "linear",
      domain: [(turns[0] ?? 1) - 0.5, lastTurn + 0.5],
      ticks: turnTicks(turns, width),
      tickFormat: "d",
      label: "Turn (one run of the agent)",
      labelAnchor: "center",
    },
    y: {
      label: "Items in the model-visible history",
      labelAnchor: "center",
      labelOffset: 44,
      grid: true,
      domain: [0, integerTicks(maxItems).at(-1) ?? 1],
      ticks: integerTicks(maxItems),
      tickFormat: "d",
    },
    marks: [
      Plot.ruleX(compactions, {
        x: "turn",
        stroke: "#3ca951",
        strokeWidth: 2,
        strokeDasharray: "5,4",
      }),
      // Written right of its rule, or left of it in the last turn, where the right is the edge.
      ...([["start", 6], ["end", -6]] as const).map(([textAnchor, dx]) =>
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
      ),
      Plot.line(data, { x: "turn", y: "items", sort: "order", stroke: "#4269d0", strokeWidth: 2 }),
      Plot.dot(data, {
        x: "turn",
        y: "items",
        r: 4,
        fill: (point: typeof data[number]) =>
          point.moment === "before compaction" ? "#e03131" : "#4269d0",
        title: (point: typeof data[number]) =>
          `turn ${point.turn}, ${point.moment}: ${point.items} items`,
      }),
      Plot.text(labelled.filter((point) => point.moment === "end of turn" && !afterDrop(point)), {
        x: "turn",
        y: "items",
        text: "items",
        dy: -12,
      }),
      // The value right after a drop sits on the drop's line: written to its right instead.
      Plot.text(labelled.filter(afterDrop), {
        x: "turn",
        y: "items",
        text: "items",
        dx: 8,
        dy: 4,
        textAnchor: "start",
      }),
      Plot.text(labelled.filter((point) => point.moment === "before compaction"), {
        x: "turn",
        y: "items",
        text: "items",
        dx: -8,
        textAnchor: "end",
      }),
      Plot.ruleY([0]),
    ],
  } as Plot.PlotOptions);
  return finishSvg(plot, header);
}

/**
 * The turn numbers an x axis writes: every turn while there is room, else every n-th, so
 * that no two numbers run into each other (about 7 pixels a digit at 12 px, and a gap).
 */
function turnTicks(turns: readonly number[], width: number): number[] {
  const digits = String(turns.at(-1) ?? 1).length;
  const room = Math.max(2, Math.floor((width - 90) / (digits * 7 + 14)));
  const step = Math.ceil(turns.length / Math.min(room, 16));
  return turns.filter((_, index) => index % step === 0);
}

/** Whole-number ticks from 0 past `max`, about eight of them: counts have no halves. */
function integerTicks(max: number): number[] {
  const rough = Math.max(1, max / 8);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((value) => value >= rough) ??
    10 * magnitude;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step; tick += step) ticks.push(tick);
  return ticks;
}

interface LegendEntry {
  label: string;
  color: string;
}

interface ChartHeader {
  /** Pixels above the plot's own top margin. */
  height: number;
  /** The chart's width in pixels. */
  width: number;
  title: string;
  subtitle: string | undefined;
  legend: { label: string; color: string; x: number; y: number }[];
}

/** The size, margins and style every turnlog chart shares, below its header. */
function plotFrame(width: number, height: number | undefined, header: ChartHeader) {
  return {
    document: newDocument(),
    className: "turnlog-chart",
    width,
    height: (height ?? 320) + header.height,
    marginTop: header.height + 24,
    marginLeft: 64,
    marginBottom: 44,
    style: { fontSize: "12px", fontFamily: FONT, background: "white" },
  };
}

/** Lays out the title, subtitle and legend; the legend wraps to the chart's width. */
function chartHeader(
  title: string,
  subtitle: string | undefined,
  legend: LegendEntry[],
  width: number,
): ChartHeader {
  let y = subtitle ? 66 : 44;
  let x = 16;
  const placed: ChartHeader["legend"] = [];
  for (const entry of legend) {
    // linkedom cannot measure text; 7 px per character is generous at 12 px.
    const entryWidth = 22 + entry.label.length * 7 + 16;
    if (x + entryWidth > width - 16 && x > 16) {
      x = 16;
      y += 20;
    }
    placed.push({ ...entry, x, y });
    x += entryWidth;
  }
  return { height: y + (legend.length > 0 ? 12 : -8), width, title, subtitle, legend: placed };
}

/**
 * Shortens a line to what fits `pixels` at about `perChar` pixels a character (linkedom cannot
 * measure text); the SVG's `<title>` keeps the whole title.
 */
function fitText(text: string, pixels: number, perChar: number): string {
  return clip(text, Math.floor(pixels / perChar));
}

/** The few DOM members this module uses; Deno's type check has no DOM library. */
interface SvgNode {
  tagName: string;
  textContent: string | null;
  outerHTML: string;
  firstChild: SvgNode | null;
  nextSibling: SvgNode | null;
  ownerDocument: SvgDocument;
  setAttribute(name: string, value: string): void;
  querySelector(selector: string): SvgNode | null;
  insertBefore(node: SvgNode, before: SvgNode | null): void;
}

interface SvgDocument {
  createElementNS(namespace: string, name: string): SvgNode;
}

type PlotDocument = NonNullable<Plot.PlotOptions["document"]>;

function newDocument(): PlotDocument {
  const { document } = parseHTML("<!doctype html><html><body></body></html>") as unknown as {
    document: PlotDocument;
  };
  return document;
}

/**
 * Makes Plot's SVG standalone (namespace, white background, so it reads in a dark theme and
 * as an image) and draws the header into its top margin.
 */
function finishSvg(rendered: unknown, header: ChartHeader): string {
  const plot = rendered as SvgNode;
  const document = plot.ownerDocument;
  const svg = plot.tagName.toLowerCase() === "svg" ? plot : plot.querySelector("svg");
  if (svg === null) throw new Error("Plot did not render an SVG element");
  const element = (name: string, attributes: Record<string, string | number>) => {
    const node = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    return node;
  };
  svg.setAttribute("xmlns", SVG_NS);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", header.title);
  const title = element("title", {});
  title.textContent = header.title;
  const background = element("rect", { width: "100%", height: "100%", fill: "white" });
  const heading = element("text", {
    x: 16,
    y: 24,
    "text-anchor": "start",
    "font-size": 16,
    "font-weight": "bold",
    fill: "#1f2328",
  });
  heading.textContent = fitText(header.title, header.width - 32, 9.5);
  const added: SvgNode[] = [title, background, heading];
  if (header.subtitle) {
    const line = element("text", {
      x: 16,
      y: 44,
      "text-anchor": "start",
      "font-size": 12,
      fill: "#59636e",
    });
    line.textContent = fitText(header.subtitle, header.width - 32, 6.5);
    added.push(line);
  }
  for (const entry of header.legend) {
    added.push(element("rect", {
      x: entry.x,
      y: entry.y - 10,
      width: 14,
      height: 14,
      rx: 2,
      fill: entry.color,
    }));
    const label = element("text", {
      x: entry.x + 20,
      y: entry.y + 1,
      "text-anchor": "start",
      fill: "#1f2328",
    });
    label.textContent = entry.label;
    added.push(label);
  }
  const style = svg.querySelector("style");
  const anchor = style?.nextSibling ?? svg.firstChild;
  for (const node of added) svg.insertBefore(node, anchor);
  return svg.outerHTML;
}
