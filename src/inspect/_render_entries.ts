/**
 * The text view of one block of lines (the header or a turn): one small renderer per kind of
 * entry, each line behind a gutter with its line number, a call's output right beneath it.
 *
 * @module
 */
import { formatNumber, plural, type Style, visible } from "../text/mod.ts";
import { BlockOutputs } from "./_pairing.ts";
import { kindCounts } from "./_render_facts.ts";
import type { View } from "./_render_text.ts";
import type { Header, Turn, TurnEntry } from "./_types.ts";
import { unfinishedWords } from "./_verdict.ts";

type EntryOf<K extends TurnEntry["kind"]> = Extract<TurnEntry, { kind: K }>;

/** How a block is laid out: the gutter's width, and the turn it belongs to. */
export interface BlockLayout {
  view: View;
  /** Digits of the largest line number. */
  lineWidth: number;
  /** The block's turn number, or null for the header. */
  turn: number | null;
  /** True for the file's last turn (it may still be running). */
  last: boolean;
  /** True for another tool's file: repair writes it a result in that tool's shape. */
  foreign?: boolean;
  /** Another tool's file: the tool, in a sentence (its adapter's `shortTool`). */
  tool?: string;
}

const LABEL = 10;

class BlockWriter {
  readonly out: string[] = [];
  readonly pad: string;
  readonly #layout: BlockLayout;
  constructor(layout: BlockLayout) {
    this.#layout = layout;
    this.pad = " ".repeat(layout.lineWidth + 3);
  }
  get view(): View {
    return this.#layout.view;
  }
  get foreign(): boolean {
    return this.#layout.foreign === true;
  }
  gutter(line: number): string {
    return this.view.paint("dim", `${String(line).padStart(this.#layout.lineWidth)} │ `);
  }
  row(line: number, label: string, body: string): void {
    this.out.push(`${this.gutter(line)}${label.padEnd(LABEL)} ${body}`);
  }
  /** A text's continuation indent under a row's body. */
  indent(extra = LABEL + 1): string {
    return `${this.pad}${" ".repeat(extra)}`;
  }
}

const ROLE_STYLES: Record<EntryOf<"message">["role"], Style> = {
  user: "cyan",
  assistant: "green",
  system: "dim",
};

function message(w: BlockWriter, entry: EntryOf<"message">): void {
  const { paint, text } = w.view;
  w.row(
    entry.line,
    paint(ROLE_STYLES[entry.role], entry.role.padEnd(LABEL)),
    text(entry.text, entry.chars, w.indent()),
  );
}

function summary(w: BlockWriter, entry: EntryOf<"compaction_summary">): void {
  const { paint, text } = w.view;
  w.row(
    entry.line,
    paint("magenta", "summary".padEnd(LABEL)),
    text(entry.text, entry.chars, w.indent()),
  );
}

/** An output on one line: synthesized, an error, or a tool's output, and why resume drops it. */
function outputText(
  w: BlockWriter,
  entry: EntryOf<"function_call_output">,
  indent: string,
): string {
  const { paint, text } = w.view;
  if (entry.synthesized) {
    const where = entry.call
      ? ` for ${visible(entry.callId)} (${visible(entry.toolName)}, line ${entry.call.line}${
        entry.call.turn === null ? "" : `, turn ${entry.call.turn}`
      })`
      : ` for ${visible(entry.callId)}`;
    return `${paint("magenta", "synthesized")}${where}: ${
      paint("dim", text(entry.text, entry.chars, indent))
    }`;
  }
  const label = entry.isError
    ? paint("red", "error".padEnd(LABEL))
    : paint("blue", "output".padEnd(LABEL));
  const head = entry.call ? "" : `${paint("dim", `[${visible(entry.callId)}]`)} `;
  const flag = entry.dropped === "orphan_output"
    ? ` ${paint("yellow", "⚠ orphan output: no call before it, resume drops it")}`
    : entry.dropped === "duplicate_output"
    ? ` ${paint("yellow", "⚠ a second output for this call: resume drops it")}`
    : "";
  return `${label} ${head}${text(entry.text, entry.chars, indent)}${flag}`;
}

/** Where a call's output is when it is not right beneath it. */
function callFate(w: BlockWriter, entry: EntryOf<"function_call">): string {
  const { paint } = w.view;
  const output = entry.output;
  if (output) {
    const turn = output.turn === null ? "" : `, turn ${output.turn}`;
    return `  ↳ ${paint("dim", `output at line ${output.line}${turn}`)}`;
  }
  if (entry.orphan) {
    const fix = w.foreign
      ? "⚠ no output: --repair --write gives it a result saying it was interrupted"
      : "⚠ no output: resume would synthesize an output (--repair --write appends it now)";
    return `  ${paint("yellow", fix)}`;
  }
  return `  ${paint("dim", "no output; a later checkpoint removed the call from the history")}`;
}

function call(
  w: BlockWriter,
  entry: EntryOf<"function_call">,
  paired: EntryOf<"function_call_output"> | undefined,
): void {
  const { paint, text } = w.view;
  w.row(
    entry.line,
    paint("blue", "call".padEnd(LABEL)),
    `${paint("bold", visible(entry.name))} ${text(entry.text, entry.chars, w.indent())} ${
      paint("dim", `[${visible(entry.callId)}]`)
    }`,
  );
  if (paired) {
    w.out.push(`${w.gutter(paired.line)}  ↳ ${outputText(w, paired, w.indent(LABEL + 5))}`);
  } else w.out.push(`${w.pad}${callFate(w, entry)}`);
}

function checkpoint(w: BlockWriter, entry: EntryOf<"compaction_checkpoint">): void {
  w.row(
    entry.line,
    w.view.paint("magenta", "✂ compact".padEnd(LABEL)),
    `checkpoint (${visible(entry.reason)}, v${entry.version}): ${
      plural(entry.removedItemCount, "item")
    } removed, ${formatNumber(entry.keptItemCount)} kept, ${
      formatNumber(entry.tokensBefore)
    } tokens before; the history continues from its ${plural(entry.replacementItemCount, "item")}`,
  );
}

const OUTCOME_STYLES: Record<EntryOf<"run_finished">["outcome"], Style> = {
  succeeded: "green",
  failed: "red",
  cancelled: "yellow",
};

function runFinished(w: BlockWriter, entry: EntryOf<"run_finished">): void {
  const { paint, text } = w.view;
  const mark = entry.outcome === "succeeded" ? "✓" : "✗";
  const parts = [plural(entry.rounds, "round")];
  if (entry.usage) {
    const { totalTokens, inputTokens, outputTokens } = entry.usage;
    parts.push(
      `${formatNumber(totalTokens)} tokens (${formatNumber(inputTokens)} in, ${
        formatNumber(outputTokens)
      } out)`,
    );
  }
  const error = entry.error
    ? `: ${paint("red", text(entry.error, entry.error.length, w.pad))}`
    : "";
  w.row(
    entry.line,
    paint(OUTCOME_STYLES[entry.outcome], `${mark} ${entry.outcome}`.padEnd(LABEL)),
    `${parts.join(", ")}${error}`,
  );
}

/** The message of a problem without its `path:line: ` prefix, shown inside its turn. */
function withoutLocation(message: string, line: number): string {
  const marker = `:${line}: `;
  const at = message.indexOf(marker);
  return at === -1 ? message : message.slice(at + marker.length);
}

function problem(w: BlockWriter, entry: EntryOf<"problem">): void {
  const { paint } = w.view;
  w.row(
    entry.line,
    paint("red", `✗ ${entry.problem}`),
    paint("red", visible(withoutLocation(entry.message, entry.line))),
  );
}

/**
 * What turnlog's model cannot hold, on consecutive lines: counted, not shown; thinking the
 * file keeps readable is shown dim, as it is never sent back to the model.
 */
function ignored(w: BlockWriter, entry: EntryOf<"ignored">): void {
  if (entry.text !== undefined) {
    const { paint, text } = w.view;
    return w.row(
      entry.line,
      paint("dim", "thinking".padEnd(LABEL)),
      paint("dim", text(entry.text, entry.chars ?? entry.text.length, w.indent())),
    );
  }
  const lines = entry.lastLine > entry.line ? ` (lines ${entry.line}-${entry.lastLine})` : "";
  w.row(
    entry.line,
    w.view.paint("dim", "ignored".padEnd(LABEL)),
    w.view.paint("dim", `${kindCounts(entry.kinds)}${lines}`),
  );
}

/** The lines of a block; a call's output in the same block is shown beneath the call. */
export function renderBlock(block: Header | Turn, layout: BlockLayout): string[] {
  const w = new BlockWriter(layout);
  const entries = block.entries ?? [];
  const outputs = new BlockOutputs(entries);
  const shownBeneath = new Set<TurnEntry>();
  for (const entry of entries) {
    if (shownBeneath.has(entry)) continue;
    switch (entry.kind) {
      case "message":
        message(w, entry);
        break;
      case "compaction_summary":
        summary(w, entry);
        break;
      case "function_call": {
        const beneath = outputs.answer(entry, layout.turn);
        if (beneath) shownBeneath.add(beneath);
        call(w, entry, beneath);
        break;
      }
      case "function_call_output":
        w.out.push(`${w.gutter(entry.line)}${outputText(w, entry, w.indent())}`);
        break;
      case "compaction_checkpoint":
        checkpoint(w, entry);
        break;
      case "run_finished":
        runFinished(w, entry);
        break;
      case "session_meta":
      case "turn_context":
        w.row(
          entry.line,
          w.view.paint("yellow", entry.kind),
          w.view.paint("yellow", "a stray record (see problems)"),
        );
        break;
      case "problem":
        problem(w, entry);
        break;
      case "ignored":
        ignored(w, entry);
        break;
    }
  }
  if ("outcome" in block && block.outcome === null) {
    const words = unfinishedWords(layout.tool, layout.last);
    w.out.push(`${w.pad}${w.view.paint("yellow", `✗ ${words}`)}`);
  }
  return w.out;
}
