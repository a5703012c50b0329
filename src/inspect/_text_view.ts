/**
 * The text view of a session file, written as it is read: each turn is shown as soon as it is
 * complete, then let go of, so the view of a large file takes little memory.
 *
 * The view starts with the session's verdict and totals, which need the whole file: a first
 * pass makes the report without the lines of each turn (what `--json` makes, in bounded
 * memory), a second one reads the file again and writes it turn by turn. The header stays on
 * top, where a reader of the text looks for the verdict, and the text is the one
 * `renderReport` makes of a report with every entry; the price is reading the file twice.
 *
 * @module
 */
import { type InspectOptions, inspectSession } from "./_inspect.ts";
import { blockLines, endLines, headerLines, layoutOf } from "./_render_report.ts";
import { DEFAULT_TEXT_CHARS, type RenderOptions } from "./_render_text.ts";
import { DEFAULT_TEXT_LIMIT } from "./_segmenter.ts";
import type { InspectReport, LineRef, TurnEntry } from "./_types.ts";

/** Options of {@linkcode writeReportText}. */
export interface TextViewOptions
  extends Omit<InspectOptions, "entries" | "onBlock" | "onLaterOutput"> {
  /** How the text is rendered. */
  render: RenderOptions;
  /**
   * Takes the text, a piece at a time, as the file is read (a synchronous write: the pieces
   * are not queued).
   */
  write: (text: string) => void;
}

const asText = (lines: string[]) => lines.map((line) => line + "\n").join("");

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
 * Writes the text view of the session file at `path` to `options.write`: the header once a
 * first pass has made the report, each turn as a second pass completes it, then the table of
 * records per turn, the findings and how to continue. The text is the one `renderReport`
 * makes of `inspectSession(path, { entries: true })`, and at no point are more than one
 * turn's lines held. Returns the report (without entries), for its verdict.
 *
 * @example
 * ```ts ignore
 * const encoder = new TextEncoder();
 * const report = await writeReportText("session.jsonl", {
 *   render: { color: false },
 *   write: (text) => Deno.stdout.writeSync(encoder.encode(text)),
 * });
 * ```
 */
export async function writeReportText(
  path: string,
  options: TextViewOptions,
): Promise<InspectReport> {
  const { render, write, ...inspect } = options;
  const later = new Map<number, LineRef>();
  const report = await inspectSession(path, {
    ...inspect,
    onLaterOutput: (callLine, output) => later.set(callLine, output),
  });
  const layout = layoutOf(report, { ...render, adapter: inspect.adapter });
  const settle = settler(report, later);
  write(asText(headerLines(report, layout)));
  // The view shows at most `textChars` of a text: a turn's entries need keep no more (the
  // shortened text is the same), and a turn held while it is read stays small.
  const shown = Math.min(
    inspect.textLimit ?? DEFAULT_TEXT_LIMIT,
    render.textChars ?? DEFAULT_TEXT_CHARS,
  );
  // Its report is let go of: its turns are written as they end, before any cost is worked
  // out, so none is (at 1 GB the cost's copy of every turn beside the first pass's report).
  await inspectSession(path, {
    ...inspect,
    textLimit: shown,
    entries: true,
    priced: false,
    onBlock(block) {
      for (const entry of block.entries ?? []) settle(entry);
      const text = asText(blockLines(report, block, layout));
      block.entries = [];
      if (text.length > 0) write(text);
    },
  });
  write(asText(endLines(report, layout)));
  return report;
}
