/**
 * The text view of an inspection: the session's header, each turn's block, the table of
 * records per turn, the findings, and how to continue or repair. Pure: no I/O, colours only
 * when asked.
 *
 * @module
 */
import { formatCost } from "../usage/_render.ts";
import { adapterOfData, type SessionAdapter } from "../formats/mod.ts";
import {
  columnWidths,
  formatNumber,
  formatTime,
  type Painter,
  plural,
  visible,
} from "../text/mod.ts";
import { renderBlock } from "./_render_entries.ts";
import { linkedSections, sessionHeader } from "./_render_facts.ts";
import { type RenderOptions, sizeWithBytes, type View, viewOf } from "./_render_text.ts";
import {
  type Header,
  type InspectReport,
  RECORD_COUNT_COLUMNS,
  type RecordCounts,
  type Turn,
} from "./_types.ts";

/**
 * A turn's heading: its run, time, model, policy and lines; another tool's turn by its id,
 * without turnlog's run policy (not the tool's word: the header names the tool's own).
 */
function turnHeading(
  turn: Turn,
  cost: number | null | undefined,
  paint: Painter,
  foreign: boolean,
): string {
  const parts = [
    `${foreign ? "turn" : "run"} ${visible(turn.runId)}`,
    formatTime(turn.time),
    visible(turn.model),
    ...(foreign ? [] : [turn.policy.approval]),
    turn.resumed ? paint("yellow", "resumed") : "new",
    ...(cost === undefined ? [] : [formatCost(cost, cost === null)]),
  ];
  return `${paint("bold", `━━ Turn ${turn.index}`)} ${paint("dim", "·")} ${
    parts.join(paint("dim", " · "))
  } ${paint("dim", `· lines ${turn.startLine}-${turn.endLine}`)}`;
}

/** Digits of the gutter: enough for the largest line number the report names. */
export function lineWidthOf(report: InspectReport): number {
  let largest = Math.max(1, report.session.lines);
  for (const problem of report.problems) largest = Math.max(largest, problem.line);
  return String(largest).length;
}

/** How a report's lines are laid out: the view, the gutter's width, the format's adapter. */
export interface ReportLayout {
  /** Colours and text limits. */
  view: View;
  /** Digits of the line-number gutter ({@linkcode lineWidthOf}). */
  lineWidth: number;
  /** The adapter of the session's format: its tool's words. */
  adapter: SessionAdapter;
}

/**
 * The layout of `report`'s text view. The adapter is the one the command that read the
 * session hands on; absent (a report alone, as `--json` wrote it), the one its format names.
 */
export function layoutOf(
  report: InspectReport,
  options: RenderOptions & { adapter?: SessionAdapter | undefined },
): ReportLayout {
  return {
    view: viewOf(options),
    lineWidth: lineWidthOf(report),
    adapter: options.adapter ?? adapterOfData(report.session),
  };
}

/**
 * The lines of one block of `report`: the lines before the first turn (none when it holds no
 * entry), or a turn with its heading.
 */
export function blockLines(
  report: InspectReport,
  block: Header | Turn,
  layout: ReportLayout,
): string[] {
  const { view, lineWidth, adapter } = layout;
  const { paint } = view;
  const foreign = !adapter.own;
  const tool = adapter.own ? {} : { tool: adapter.shortTool };
  if (!("index" in block)) {
    if ((block.entries?.length ?? 0) === 0) return [];
    return [
      paint("bold", `── Before the first turn (lines 1-${block.endLine}) ──`),
      ...renderBlock(block, { view, lineWidth, turn: null, last: false, foreign, ...tool }),
      "",
    ];
  }
  const last = block.index === report.turns.length;
  return [
    // A block streamed by a second read has no cost: the report's turn has it.
    turnHeading(block, block.cost ?? report.turns[block.index - 1]?.cost, paint, foreign),
    ...renderBlock(block, { view, lineWidth, turn: block.index, last, foreign, ...tool }),
    "",
  ];
}

/** The session's header: its verdict, its facts, its size. */
export function headerLines(report: InspectReport, layout: ReportLayout): string[] {
  const { session } = report;
  const size = `${sizeWithBytes(session.sizeBytes)}, ${plural(session.records, "record")}, ${
    plural(session.lines, "line")
  }`;
  return sessionHeader(report, { paint: layout.view.paint, adapter: layout.adapter }, size);
}

/** What follows the turns: the count table, forks and subagents, findings, next steps. */
export function endLines(report: InspectReport, layout: ReportLayout): string[] {
  const { paint } = layout.view;
  const { adapter } = layout;
  return [
    ...(report.turns.length === 0 ? [paint("dim", "(no turns)"), ""] : []),
    ...countTable(report, paint, adapter),
    ...linkedSections(report, paint),
    ...findings(report, paint, adapter),
    ...nextSteps(report, paint, adapter),
  ];
}

const COLUMN_TITLES: Record<keyof RecordCounts, string> = {
  session_meta: "meta",
  turn_context: "context",
  message: "message",
  function_call: "call",
  function_call_output: "output",
  compaction_summary: "summary",
  compaction_checkpoint: "checkpoint",
  run_finished: "finished",
  problem_lines: "bad line",
  ignored: "ignored",
  total: "total",
};

function countTable(report: InspectReport, paint: Painter, adapter: SessionAdapter): string[] {
  const rows: string[][] = [];
  // A turnlog file never has ignored things: the column shows only when a file has some.
  // Another tool's file has no turnlog bookkeeping (meta, turn and end records are read in).
  const foreign = !adapter.own;
  const columns = RECORD_COUNT_COLUMNS.filter((c) =>
    (c !== "ignored" || report.totals.counts.ignored > 0) &&
    !(foreign && (c === "session_meta" || c === "turn_context" || c === "run_finished"))
  );
  const title = ["turn", "lines", ...columns.map((c) => COLUMN_TITLES[c])];
  // The total of the columns shown (another tool's file leaves turnlog's bookkeeping out).
  const shown = columns.filter((c) => c !== "total");
  const totalOf = (counts: RecordCounts) =>
    foreign ? shown.reduce((sum, c) => sum + counts[c], 0) : counts.total;
  const cells = (counts: RecordCounts) =>
    columns.map((c) => formatNumber(c === "total" ? totalOf(counts) : counts[c]));
  if (report.header.endLine > 0 && totalOf(report.header.counts) > 0) {
    rows.push(["header", `1-${report.header.endLine}`, ...cells(report.header.counts)]);
  }
  for (const turn of report.turns) {
    rows.push([String(turn.index), `${turn.startLine}-${turn.endLine}`, ...cells(turn.counts)]);
  }
  const total = ["total", "", ...cells(report.totals.counts)];
  const widths = columnWidths(title, [...rows, total]);
  const line = (row: string[]) =>
    "  " + row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ");
  return [
    paint("bold", foreign ? "Messages and calls per turn" : "Records per turn"),
    paint("dim", line(title)),
    ...rows.map(line),
    paint("bold", line(total)),
    "",
  ];
}

function findings(report: InspectReport, paint: Painter, adapter: SessionAdapter): string[] {
  const out: string[] = [];
  const fix = adapter.own
    ? "resume would synthesize an output"
    : "--repair --write gives it a result saying it was interrupted";
  const section = (title: string, lines: string[]) => {
    out.push(title);
    for (const line of lines) out.push(line);
    out.push("");
  };
  if (report.synthesizedOutputs.length > 0) {
    section(
      paint("bold", `Synthesized outputs (${report.synthesizedOutputs.length})`),
      report.synthesizedOutputs.map((s) =>
        `  line ${s.line} (turn ${s.turn ?? "-"}): ${visible(s.callId)} (${
          visible(s.toolName)
        }) answers ${
          s.call
            ? `the call at line ${s.call.line}, turn ${s.call.turn ?? "-"}`
            : "no call in the file"
        }`
      ),
    );
  }
  if (report.orphanCalls.length > 0) {
    section(
      paint("yellow", paint("bold", `Orphan calls (${report.orphanCalls.length})`)),
      report.orphanCalls.map((c) =>
        `  line ${c.line} (turn ${c.turn ?? "-"}): ${visible(c.callId)} (${visible(c.name)})${
          c.inCheckpoint ? " in the checkpoint's replacement history" : ""
        }: ${fix}`
      ),
    );
  }
  if (report.problems.length > 0) {
    section(
      paint("red", paint("bold", `Problems (${report.problems.length})`)),
      report.problems.map((p) => `  ${paint("red", p.kind)}  ${visible(p.message)}`),
    );
  }
  return out;
}

function nextSteps(report: InspectReport, paint: Painter, adapter: SessionAdapter): string[] {
  if (!adapter.own) {
    if (report.session.state !== "records") return [];
    const out = report.continueCommand
      ? [paint("bold", "Continue it in turnlog (a new session; this file is only read):"), [
        `  ${report.continueCommand}`,
      ]].flat()
      : [];
    if (!report.healthy) {
      out.push(paint(
        "dim",
        `Repair: add --repair to see what would change in this ${adapter.fileNoun} ` +
          "(its own shapes, every original kept), --repair --write to do it.",
      ));
    }
    return out;
  }
  const out = report.continueCommand
    ? [paint("bold", "Continue this session:"), `  ${report.continueCommand}`]
    : [paint("dim", "No continue command: the file is not in a sessions store under its id.")];
  if (!report.healthy) {
    out.push(
      paint("dim", "Repair: add --repair to see what would be done, --repair --write to do it."),
    );
  }
  return out;
}

/**
 * Renders an inspection as text: header, turn blocks, the count table, findings, continue.
 * The lines of each turn come from its `entries`: a report made without them
 * (`inspectSession(path)`) shows each turn's heading, the counts and the findings only.
 */
export function renderReport(report: InspectReport, options: RenderOptions): string {
  const layout = layoutOf(report, options);
  return [
    ...headerLines(report, layout),
    ...blockLines(report, report.header, layout),
    ...report.turns.flatMap((turn) => blockLines(report, turn, layout)),
    ...endLines(report, layout),
  ].join("\n") + "\n";
}
