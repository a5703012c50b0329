/**
 * Prints a turn's events for a person: the turn, tool calls and their results (shortened),
 * approvals, the answer. Colours only on a terminal, and never with NO_COLOR set.
 *
 * @module
 */
import type { RunEvent, RunEventOf } from "../src/runtime/mod.ts";
import { colorFor, stdout } from "./_output.ts";
import { clipLines, painter, plural, type Style, visible } from "../src/text/mod.ts";

/** Styles as functions, plain when colour is off. */
export function styles(enabled: boolean) {
  const paint = painter(enabled);
  const style = (name: Style) => (text: string) => paint(name, text);
  return {
    bold: style("bold"),
    dim: style("dim"),
    red: style("red"),
    green: style("green"),
    yellow: style("yellow"),
    blue: style("blue"),
    cyan: style("cyan"),
  };
}

function indent(text: string, prefix: string): string {
  return text.split("\n").map((line) => prefix + line).join("\n");
}

/** Turns events into readable lines, keeping track of streamed text. */
export class EventPrinter {
  readonly #write: (text: string) => void;
  readonly #s: ReturnType<typeof styles>;
  #streaming = false;

  readonly #workspaceWhy: string | undefined;

  /**
   * A printer to `write`; `workspaceWhy` says why the tools work in the workspace the header
   * names (`named with --workspace`), when the caller chose it.
   */
  constructor(
    options: { write?: (text: string) => void; colour?: boolean; workspaceWhy?: string } = {},
  ) {
    this.#write = options.write ?? stdout;
    this.#s = styles(options.colour ?? colorFor(this.#write));
    this.#workspaceWhy = options.workspaceWhy;
  }

  #line(text: string): void {
    if (this.#streaming) {
      this.#write("\n");
      this.#streaming = false;
    }
    this.#write(text + "\n");
  }

  /** The header of a turn: the session, the run, and which model and endpoint really answer. */
  #started(event: RunEventOf<"run_started">): void {
    const s = this.#s;
    const head = event.resumed ? "Resuming session" : "New session";
    const where = visible(`model ${event.model} (${event.modelProvider}, ${event.endpoint})`);
    this.#line(
      `${s.bold(head)} ${visible(event.sessionId)}  ${
        s.dim(
          `run ${
            visible(event.runId.slice(0, 13))
          } · ${where} · ${event.wireApi} · policy ${event.policy.approval}`,
        )
      }`,
    );
    const recorded = event.recordedCwd === undefined
      ? ""
      : ` (its tools work here; the session was recorded in ${visible(event.recordedCwd)})`;
    const why = this.#workspaceWhy === undefined ? "" : `: ${this.#workspaceWhy}`;
    this.#line(s.dim(`workspace ${visible(event.workspace)}${recorded}${why}`));
    if (event.heldPolicy !== undefined) {
      const { recorded, reason } = event.heldPolicy;
      this.#line(s.yellow(
        `Policy ${event.policy.approval}, not the recorded ${recorded.approval}: ${
          visible(reason)
        }; --policy ${recorded.approval} on this run gives it back.`,
      ));
    } else if (event.resumed && event.policy.approval === "auto") {
      this.#line(s.yellow(
        "Policy auto (recorded in this session): tools run without asking; --policy ask-changes asks again.",
      ));
    }
  }

  /** Prints one event. */
  print(event: RunEvent): void {
    if (event.type === "run_started") this.#started(event);
    else if (event.type === "assistant_delta") {
      if (!this.#streaming) this.#write(this.#s.bold("assistant: "));
      this.#streaming = true;
      this.#write(visible(event.text));
    } else if (event.type === "assistant_message") {
      if (!this.#streaming) this.#line(`${this.#s.bold("assistant:")} ${visible(event.text)}`);
      else this.#write("\n");
      this.#streaming = false;
    } else {
      for (const line of eventLines(event, this.#s)) this.#line(line);
    }
  }
}

type Styles = ReturnType<typeof styles>;

/** The lines of an event that prints whole lines (all but the turn's header and the answer). */
function eventLines(event: RunEvent, s: Styles): string[] {
  switch (event.type) {
    case "session_repaired":
      return repairLines(event, s);
    case "lines_skipped":
      return skippedLines(event, s);
    case "model_requested":
      return [
        s.dim(`  round ${event.round}: ${event.messageCount} history items sent to the model`),
      ];
    case "tool_requested":
      return [`  ${s.cyan("→")} ${s.cyan(visible(event.name))} ${visible(event.arguments)}`];
    case "approval_requested":
      return [`  ${s.yellow("?")} ${visible(event.name)} needs approval`];
    case "approval_resolved":
      return [
        event.approved
          ? `  ${s.green("✓ approved")} (${visible(event.reason)})`
          : `  ${s.red("✗ denied")} (${visible(event.reason)})`,
      ];
    case "tool_finished":
      return [toolFinishedLine(event, s)];
    case "history_compacted":
      return [s.yellow(
        `  compacted the history (${event.tokensBefore} tokens ≥ threshold ${event.threshold}): ` +
          `${event.itemsBefore} items → ${event.itemsAfter} (system, summary, recent user messages); ` +
          `a checkpoint record stores the new history`,
      )];
    case "compaction_failed":
      return [
        s.yellow(`  compaction skipped, the turn goes on uncompacted: ${visible(event.error)}`),
      ];
    case "run_succeeded":
      return succeededLines(event, s);
    case "run_failed":
      return [s.red(`Error: ${visible(event.error)}`)];
    case "run_cancelled":
      return [
        s.yellow(
          `Cancelled after ${event.rounds} round(s); the call in flight got a "cancelled" output.`,
        ),
      ];
    default:
      return [];
  }
}

function repairLines(event: RunEventOf<"session_repaired">, s: Styles): string[] {
  const lines: string[] = [];
  if (event.synthesized > 0) {
    lines.push(s.yellow(
      `Resume repaired the history: ${plural(event.synthesized, "tool call")} had no ` +
        `output (${
          visible(event.callIds.join(", "))
        }); a synthesized output was appended for each:`,
    ));
  }
  for (const output of event.outputs) {
    lines.push(indent(s.yellow(clipLines(visible(output.output), 3, 150)), "    "));
  }
  if (event.dropped > 0) {
    lines.push(s.yellow(
      `Resume left ${plural(event.dropped, "tool output")} out of the history: no call ` +
        "before it claims it (the file keeps it; inspect --repair moves it aside)",
    ));
  }
  return lines;
}

function skippedLines(event: RunEventOf<"lines_skipped">, s: Styles): string[] {
  const one = event.problems.length === 1;
  return [
    s.yellow(
      `Resume skipped ${plural(event.problems.length, "line")} that ${one ? "is" : "are"} ` +
        `not a valid record (the file keeps ${
          one ? "it" : "them"
        }; inspect --repair moves them aside):`,
    ),
    ...event.problems.map((problem) => s.yellow(`  ${visible(problem.message)}`)),
  ];
}

function toolFinishedLine(event: RunEventOf<"tool_finished">, s: Styles): string {
  const name = visible(event.name);
  const mark = event.isError ? s.red(`← ${name} error:`) : s.green(`← ${name}:`);
  const body = clipLines(visible(event.output));
  return body.includes("\n")
    ? `  ${mark}\n${indent(s.dim(body), "      ")}`
    : `  ${mark} ${s.dim(body)}`;
}

function succeededLines(event: RunEventOf<"run_succeeded">, s: Styles): string[] {
  const lines = [
    s.green(`Turn finished in ${event.rounds} round(s)`) +
    s.dim(` · tokens ${event.usage.inputTokens} in / ${event.usage.outputTokens} out`),
  ];
  if (event.roundLimitReached) {
    lines.push(s.yellow(
      `The turn stopped at the round limit (${event.rounds} rounds); its last tool results are saved. ` +
        "Continue the session to let the model go on.",
    ));
  }
  return lines;
}
