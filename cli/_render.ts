/**
 * Prints a turn's events for a person: the turn, tool calls and their results (shortened),
 * approvals, the answer. Colours only on a terminal, and never with NO_COLOR set.
 *
 * @module
 */
import type { RunEvent, RunEventOf } from "../src/runtime/mod.ts";
import { stdout } from "./_output.ts";
import { clipLines, colorEnabled, painter, plural, type Style, visible } from "../src/text/mod.ts";

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

  constructor(options: { write?: (text: string) => void; colour?: boolean } = {}) {
    this.#write = options.write ?? stdout;
    this.#s = styles(options.colour ?? colorEnabled());
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
    const where = `model ${event.model} (${event.modelProvider}, ${event.endpoint})`;
    this.#line(
      `${s.bold(head)} ${event.sessionId}  ${
        s.dim(
          `run ${
            event.runId.slice(0, 13)
          } · ${where} · ${event.wireApi} · policy ${event.policy.approval}`,
        )
      }`,
    );
    this.#line(s.dim(`workspace ${event.workspace}`));
    if (event.resumed && event.policy.approval === "auto") {
      this.#line(s.yellow(
        "Policy auto (recorded in this session): tools run without asking; --policy ask-changes asks again.",
      ));
    }
  }

  /** Prints one event. */
  print(event: RunEvent): void {
    const s = this.#s;
    switch (event.type) {
      case "run_started":
        this.#started(event);
        break;
      case "session_repaired":
        if (event.synthesized > 0) {
          this.#line(s.yellow(
            `Resume repaired the history: ${plural(event.synthesized, "tool call")} had no ` +
              `output (${event.callIds.join(", ")}); a synthesized output was appended for each:`,
          ));
        }
        for (const output of event.outputs) {
          this.#line(indent(s.yellow(clipLines(output.output, 3, 150)), "    "));
        }
        if (event.dropped > 0) {
          this.#line(s.yellow(
            `Resume left ${plural(event.dropped, "tool output")} out of the history: no call ` +
              "before it claims it (the file keeps it; inspect --repair moves it aside)",
          ));
        }
        break;
      case "lines_skipped":
        this.#line(s.yellow(
          `Resume skipped ${plural(event.problems.length, "line")} that ${
            event.problems.length === 1 ? "is" : "are"
          } not a valid record (the file keeps ${event.problems.length === 1 ? "it" : "them"}; ` +
            "inspect --repair moves them aside):",
        ));
        for (const problem of event.problems) this.#line(s.yellow(`  ${visible(problem.message)}`));
        break;
      case "model_requested":
        this.#line(
          s.dim(`  round ${event.round}: ${event.messageCount} history items sent to the model`),
        );
        break;
      case "assistant_delta":
        if (!this.#streaming) {
          this.#write(s.bold("assistant: "));
          this.#streaming = true;
        }
        this.#write(event.text);
        break;
      case "assistant_message":
        if (this.#streaming) {
          this.#write("\n");
          this.#streaming = false;
        } else {
          this.#line(`${s.bold("assistant:")} ${event.text}`);
        }
        break;
      case "tool_requested":
        this.#line(`  ${s.cyan("→")} ${s.cyan(event.name)} ${event.arguments}`);
        break;
      case "approval_requested":
        this.#line(`  ${s.yellow("?")} ${event.name} needs approval`);
        break;
      case "approval_resolved":
        this.#line(
          event.approved
            ? `  ${s.green("✓ approved")} (${event.reason})`
            : `  ${s.red("✗ denied")} (${event.reason})`,
        );
        break;
      case "tool_finished": {
        const mark = event.isError ? s.red(`← ${event.name} error:`) : s.green(`← ${event.name}:`);
        const body = clipLines(event.output);
        this.#line(
          body.includes("\n")
            ? `  ${mark}\n${indent(s.dim(body), "      ")}`
            : `  ${mark} ${s.dim(body)}`,
        );
        break;
      }
      case "history_compacted":
        this.#line(s.yellow(
          `  compacted the history (${event.tokensBefore} tokens ≥ threshold ${event.threshold}): ` +
            `${event.itemsBefore} items → ${event.itemsAfter} (system, summary, recent user messages); ` +
            `a checkpoint record stores the new history`,
        ));
        break;
      case "compaction_failed":
        this.#line(s.yellow(`  compaction skipped, the turn goes on uncompacted: ${event.error}`));
        break;
      case "run_succeeded":
        this.#line(
          s.green(`Turn finished in ${event.rounds} round(s)`) +
            s.dim(
              ` · tokens ${event.usage.inputTokens} in / ${event.usage.outputTokens} out`,
            ),
        );
        if (event.roundLimitReached) {
          this.#line(s.yellow(
            `The turn stopped at the round limit (${event.rounds} rounds); its last tool results are saved. Continue the session to let the model go on.`,
          ));
        }
        break;
      case "run_failed":
        this.#line(s.red(`Error: ${event.error}`));
        break;
      case "run_cancelled":
        this.#line(
          s.yellow(
            `Cancelled after ${event.rounds} round(s); the call in flight got a "cancelled" output.`,
          ),
        );
        break;
    }
  }
}
