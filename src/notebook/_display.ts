/**
 * Display helpers for the notebooks on the Deno Jupyter kernel: tables, text and charts as
 * MIME bundles, each display followed by a short wait so its output reaches Jupyter before
 * the kernel reports the cell idle (the Deno kernel can report idle first, and a headless
 * run then loses the output).
 *
 * @module
 */
import { escapeHtml } from "../html/mod.ts";
import type { SessionRecord } from "../record/mod.ts";
import { oneLine } from "../text/mod.ts";
import type { RunEvent } from "../runtime/mod.ts";
import { svgToPngBase64 } from "./_png.ts";

/** How long a cell waits after a display, in milliseconds. */
export const DISPLAY_SETTLE_MS = 50;

/** A Jupyter MIME bundle: media type to content. */
export type MimeBundle = Record<string, string>;

/** Where a bundle goes; by default `Deno.jupyter.display`. */
export type DisplayFunction = (bundle: MimeBundle) => Promise<void> | void;

/** What every `show*` function accepts. */
export interface ShowOptions {
  /** Where to display (tests pass their own); default: the Jupyter kernel. */
  display?: DisplayFunction;
  /** Milliseconds to wait after the display (default {@linkcode DISPLAY_SETTLE_MS}). */
  settleMs?: number;
}

/** Displays a bundle, then waits for it to reach Jupyter before the cell ends. */
export async function show(bundle: MimeBundle, options: ShowOptions = {}): Promise<void> {
  const display = options.display ??
    ((raw: MimeBundle) => Deno.jupyter.display(raw, { raw: true }));
  await display(bundle);
  await new Promise((resolve) => setTimeout(resolve, options.settleMs ?? DISPLAY_SETTLE_MS));
}

/** A bundle for an SVG chart, with its `<title>` as the plain-text fallback. */
export function svgBundle(svg: string): MimeBundle {
  const title = /<title>([^<]*)<\/title>/.exec(svg)?.[1];
  return { "image/svg+xml": svg, "text/plain": `[chart: ${title ?? "untitled"}]` };
}

/**
 * A bundle for a chart that survives an export: {@linkcode svgBundle}, a PNG of it beside
 * (for viewers that drop SVG), and the SVG inline as HTML, which is what `jupyter nbconvert
 * --to html` picks first and keeps whole (it strips the shapes of an `image/svg+xml` output,
 * leaving only its text).
 */
export async function chartBundle(svg: string): Promise<MimeBundle> {
  return {
    ...svgBundle(svg),
    "image/png": await svgToPngBase64(svg),
    "text/html": `<div class="turnlog-chart-output">${svg}</div>`,
  };
}

/** A bundle for Markdown text. */
export function markdownBundle(markdown: string): MimeBundle {
  return { "text/markdown": markdown, "text/plain": markdown };
}

/** A bundle for preformatted text (file lines, JSON), shown as is. */
export function textBundle(text: string): MimeBundle {
  return { "text/plain": text };
}

/** A table cell's value. */
export type TableValue = string | number | boolean | null | undefined;

/** A table: rows of named values, the columns in the order given or of the first row. */
export interface TableOptions {
  /** The columns to show, in order; default: the keys of the first row. */
  columns?: readonly string[];
  /** A sentence above the table. */
  caption?: string;
}

/**
 * A bundle for a table, as HTML (what GitHub and JupyterLab render), Markdown and aligned
 * plain text. Every value is escaped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tableBundle } from "./mod.ts";
 * const bundle = tableBundle([{ turn: 1, records: 5 }]);
 * assert(bundle["text/markdown"]?.includes("| 1 | 5 |"));
 * ```
 */
export function tableBundle(
  rows: readonly Record<string, TableValue>[],
  options: TableOptions = {},
): MimeBundle {
  const columns = options.columns ?? Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const numeric = columns.map((column) =>
    rows.length > 0 && rows.every((row) => typeof row[column] === "number")
  );
  const html = [
    "<table>",
    options.caption ? `<caption>${escapeHtml(options.caption)}</caption>` : "",
    "<thead><tr>",
    ...columns.map((column) => `<th>${escapeHtml(column)}</th>`),
    "</tr></thead><tbody>",
    ...cells.map((row) =>
      "<tr>" +
      row.map((cell, index) =>
        `<td${numeric[index] ? ' style="text-align:right"' : ""}>${escapeHtml(cell)}</td>`
      ).join("") +
      "</tr>"
    ),
    "</tbody></table>",
  ].join("");
  const markdown = [
    options.caption ? `${options.caption}\n` : "",
    `| ${columns.map(escapeMarkdown).join(" | ")} |`,
    `| ${numeric.map((right) => right ? "---:" : "---").join(" | ")} |`,
    ...cells.map((row) => `| ${row.map(escapeMarkdown).join(" | ")} |`),
  ].filter((line) => line !== "").join("\n");
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((row) => row[index]?.length ?? 0))
  );
  const line = (values: string[]) =>
    values.map((value, index) =>
      numeric[index] ? value.padStart(widths[index] ?? 0) : value.padEnd(widths[index] ?? 0)
    ).join("  ").trimEnd();
  const plain = [
    ...(options.caption ? [options.caption] : []),
    line([...columns]),
    line(widths.map((width) => "-".repeat(width))),
    ...cells.map(line),
  ].join("\n");
  return { "text/html": html, "text/markdown": markdown, "text/plain": plain };
}

/** Shows an SVG chart, with its PNG ({@linkcode chartBundle}). */
export async function showSvg(svg: string, options?: ShowOptions): Promise<void> {
  return show(await chartBundle(svg), options);
}

/** Shows Markdown text. */
export function showMarkdown(markdown: string, options?: ShowOptions): Promise<void> {
  return show(markdownBundle(markdown), options);
}

/** Shows preformatted text. */
export function showText(text: string, options?: ShowOptions): Promise<void> {
  return show(textBundle(text), options);
}

/** Shows a value as indented JSON. */
export function showJson(value: unknown, options?: ShowOptions): Promise<void> {
  return show(textBundle(JSON.stringify(value, null, 2)), options);
}

/** Shows a table. */
export function showTable(
  rows: readonly Record<string, TableValue>[],
  options: TableOptions & ShowOptions = {},
): Promise<void> {
  return show(tableBundle(rows, options), options);
}

/**
 * An id shortened to its first 8 and last 4 characters. A UUIDv7 begins with its time, so two
 * ids made in the same minute share their first 8: the end tells a run from its session.
 */
export function shortId(id: string): string {
  return id.length <= 14 ? id : `${id.slice(0, 8)}…${id.slice(-4)}`;
}

/** Replaces each given path in a text by a short name (`/tmp/x/ws` -> `<workspace>`). */
export function maskPaths(text: string, names: Readonly<Record<string, string>>): string {
  let masked = text;
  // Longest first, so a folder inside another is named by its own name.
  for (const path of Object.keys(names).sort((a, b) => b.length - a.length)) {
    masked = masked.replaceAll(path, names[path] ?? path);
  }
  return masked;
}

/** A record in a few words: what a reader looks for in its line. */
export function describeRecord(record: SessionRecord): string {
  switch (record.type) {
    case "session_meta": {
      const meta = record.payload;
      return `session ${shortId(meta.id)}, model ${meta.model}, policy ${meta.policy.approval}`;
    }
    case "turn_context": {
      const turn = record.payload;
      return `run ${shortId(turn.runId)}, ${turn.resumed ? "resumed" : "fresh"}, ` +
        `model ${turn.model}, policy ${turn.policy.approval}`;
    }
    case "run_finished": {
      const run = record.payload;
      return `${run.outcome} after ${run.rounds} model round${run.rounds === 1 ? "" : "s"}` +
        (run.usage ? `, ${run.usage.totalTokens} tokens` : "") +
        (run.error ? `: ${oneLine(run.error, 60)}` : "");
    }
    case "response_item": {
      const item = record.payload;
      switch (item.type) {
        case "message":
          return `${item.role}: ${oneLine(item.content, 70)}`;
        case "function_call":
          return `call ${item.name} ${oneLine(item.arguments, 50)} (${item.callId})`;
        case "function_call_output":
          return `output of ${item.toolName} (${item.callId})` +
            (item.synthesized ? ", SYNTHESIZED" : "") + (item.isError ? ", error" : "") +
            `: ${oneLine(item.output, 50)}`;
        case "compaction_summary":
          return `summary: ${oneLine(item.content, 70)}`;
        case "compaction_checkpoint":
          return `checkpoint: ${item.removedItemCount} items removed, ${item.keptItemCount} kept, ` +
            `history replaced by ${item.replacementHistory.length} items ` +
            `(${item.tokensBefore} tokens before)`;
      }
    }
  }
}

/** The kind of a record for a table: the record type, and the item type of a response item. */
export function recordLabel(record: SessionRecord): string {
  return record.type === "response_item" ? `response_item/${record.payload.type}` : record.type;
}

/** A table of records: line number, kind, and what it says. */
export function recordRows(
  records: readonly SessionRecord[],
  options: { firstLine?: number } = {},
): { line: number; record: string; what: string }[] {
  const first = options.firstLine ?? 1;
  return records.map((record, index) => ({
    line: first + index,
    record: recordLabel(record),
    what: describeRecord(record),
  }));
}

/** An event in a few words; `undefined` for the streamed text pieces, which the message repeats. */
export function describeEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case "run_started":
      return `session ${shortId(event.sessionId)}, ${event.resumed ? "resumed" : "fresh"}, ` +
        `${event.recordCountBefore} records in the file before this turn`;
    case "session_repaired":
      return `${event.synthesized} synthesized output(s) appended for ${event.callIds.join(", ")}` +
        (event.dropped > 0 ? `, ${event.dropped} orphan output(s) left out` : "");
    case "lines_skipped":
      return `${event.problems.length} line(s) that are not valid records skipped: ` +
        oneLine(event.problems.map((p) => `line ${p.line} (${p.kind})`).join(", "), 60);
    case "model_requested":
      return `round ${event.round}: ${event.messageCount} history items sent to the model`;
    case "assistant_delta":
      return undefined;
    case "assistant_message":
      return oneLine(event.text, 90);
    case "tool_requested":
      return `${event.name} ${oneLine(event.arguments, 60)} (${event.callId})`;
    case "approval_requested":
      return `${event.name} needs approval`;
    case "approval_resolved":
      return `${event.approved ? "approved" : "denied"}: ${oneLine(event.reason, 60)}`;
    case "tool_finished":
      return `${event.name}${event.isError ? " failed" : ""}: ${oneLine(event.output, 70)}`;
    case "history_compacted":
      return `${event.tokensBefore} tokens ≥ ${event.threshold}: history ${event.itemsBefore} → ` +
        `${event.itemsAfter} items (checkpoint appended)`;
    case "compaction_failed":
      return `compaction skipped: ${oneLine(event.error, 70)}`;
    case "run_succeeded":
      return `${event.rounds} model round${event.rounds === 1 ? "" : "s"}, ` +
        `${event.usage.totalTokens} tokens`;
    case "run_failed":
      return `${event.kind}: ${oneLine(event.error, 80)}`;
    case "run_cancelled":
      return `after ${event.rounds} rounds`;
  }
}

/** A table of a turn's events, the streamed text pieces left out. */
export function eventRows(events: readonly RunEvent[]): { event: string; what: string }[] {
  return events.flatMap((event) => {
    const what = describeEvent(event);
    return what === undefined ? [] : [{ event: event.type, what }];
  });
}

function cellText(value: TableValue): string {
  if (value === null || value === undefined) return "";
  return String(value).replaceAll(/\s+/g, " ");
}

function escapeMarkdown(text: string): string {
  return text.replaceAll("\\", "\\\\").replaceAll("|", "\\|").replaceAll("<", "&lt;");
}
