/**
 * The sections of the text view of an inspection, each as its lines: the session's header,
 * one block (the lines before the first turn, or a turn), the table of records per turn, the
 * findings, and how to continue or repair. Pure: no I/O, colours only when asked.
 *
 * @module
 */
import type { ForkedFrom } from "../record/mod.ts";
import { formatNumber, formatTime, type Painter, plural, visible } from "../text/mod.ts";
import { renderBlock } from "./_render_entries.ts";
import { sizeWithBytes, type View } from "./_render_text.ts";
import {
  type Header,
  type InspectReport,
  RECORD_COUNT_COLUMNS,
  type RecordCounts,
  type Turn,
} from "./_types.ts";

function forkedText(from: ForkedFrom): string {
  const upTo = from.turn === null ? "every turn" : `the turns before turn ${from.turn}`;
  return `from ${from.sessionId} (${upTo})`;
}

/** The session's header: its id and verdict, its facts, its turns. */
export function sessionHeader(report: InspectReport, paint: Painter): string[] {
  const { session, totals } = report;
  const findings = [
    report.problems.length > 0 ? plural(report.problems.length, "problem") : "",
    report.orphanCalls.length > 0 ? plural(report.orphanCalls.length, "orphan call") : "",
  ].filter(Boolean);
  const verdict = findings.length === 0
    ? paint("green", "healthy")
    : paint("red", findings.join(", "));
  const field = (name: string, value: string) => `  ${paint("dim", name.padEnd(9))}${value}`;
  const model = session.model === null
    ? "unknown"
    : `${visible(session.model)} (${visible(session.modelProvider ?? "?")}, ${session.wireApi})`;
  return [
    `${paint("bold", `Session ${session.id ?? "(unknown id)"}`)}  ${verdict}`,
    field("file", visible(session.path)),
    field(
      "size",
      `${sizeWithBytes(session.sizeBytes)}, ${plural(session.records, "record")}, ${
        plural(session.lines, "line")
      }`,
    ),
    field("created", session.created ? formatTime(session.created) : "unknown"),
    field("cwd", session.cwd === null ? "unknown" : visible(session.cwd)),
    field("model", model),
    field("policy", session.policy?.approval ?? "unknown"),
    ...(session.forkedFrom ? [field("forked", forkedText(session.forkedFrom))] : []),
    field(
      "turns",
      `${
        formatNumber(totals.turns)
      } (${totals.resumedTurns} resumed, ${totals.unfinishedTurns} did not finish)`,
    ),
    "",
  ];
}

/** A turn's heading: its run, time, model, policy and lines. */
function turnHeading(turn: Turn, paint: Painter): string {
  const parts = [
    `run ${visible(turn.runId)}`,
    formatTime(turn.time),
    visible(turn.model),
    turn.policy.approval,
    turn.resumed ? paint("yellow", "resumed") : "new",
  ];
  return `${paint("bold", `━━ Turn ${turn.index}`)} ${paint("dim", "·")} ${
    parts.join(paint("dim", " · "))
  } ${paint("dim", `· lines ${turn.startLine}-${turn.endLine}`)}`;
}

/** Digits of the gutter: enough for the largest line number the report names. */
export function lineWidthOf(report: InspectReport): number {
  return String(Math.max(1, report.session.lines, ...report.problems.map((p) => p.line))).length;
}

/**
 * The lines of one block: the lines before the first turn (none when it holds no entry), or a
 * turn with its heading; `last` marks the file's last turn.
 */
export function blockLines(
  block: Header | Turn,
  layout: { view: View; lineWidth: number; last: boolean },
): string[] {
  const { view, lineWidth, last } = layout;
  const { paint } = view;
  if (!("index" in block)) {
    if ((block.entries?.length ?? 0) === 0) return [];
    return [
      paint("bold", `── Before the first turn (lines 1-${block.endLine}) ──`),
      ...renderBlock(block, { view, lineWidth, turn: null, last: false }),
      "",
    ];
  }
  return [
    turnHeading(block, paint),
    ...renderBlock(block, { view, lineWidth, turn: block.index, last }),
    "",
  ];
}

/** What the view shows in place of the turns of a file that has none. */
export function noTurns(paint: Painter): string[] {
  return [paint("dim", "(no turns)"), ""];
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
  total: "total",
};

/** The table of records per turn. */
export function countTable(report: InspectReport, paint: Painter): string[] {
  const rows: string[][] = [];
  const title = ["turn", "lines", ...RECORD_COUNT_COLUMNS.map((c) => COLUMN_TITLES[c])];
  const cells = (counts: RecordCounts) => RECORD_COUNT_COLUMNS.map((c) => formatNumber(counts[c]));
  if (report.header.endLine > 0) {
    rows.push(["header", `1-${report.header.endLine}`, ...cells(report.header.counts)]);
  }
  for (const turn of report.turns) {
    rows.push([String(turn.index), `${turn.startLine}-${turn.endLine}`, ...cells(turn.counts)]);
  }
  const total = ["total", "", ...cells(report.totals.counts)];
  const widths = title.map((t, i) =>
    Math.max(t.length, ...[...rows, total].map((r) => r[i]!.length))
  );
  const line = (row: string[]) =>
    "  " + row.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join("  ");
  return [
    paint("bold", "Records per turn"),
    paint("dim", line(title)),
    ...rows.map(line),
    paint("bold", line(total)),
    "",
  ];
}

/** The findings: synthesized outputs, orphan calls, problems. */
export function findings(report: InspectReport, paint: Painter): string[] {
  const out: string[] = [];
  const section = (title: string, lines: string[]) => out.push(title, ...lines, "");
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
        }: resume would synthesize an output`
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

/** How to continue the session, and how to repair it when it is not healthy. */
export function nextSteps(report: InspectReport, paint: Painter): string[] {
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
