/**
 * The human-readable view of an inspection: a report becomes text, turn by turn. Pure: no
 * I/O, colours only when asked.
 *
 * @module
 */
import {
  type Header,
  type InspectReport,
  RECORD_COUNT_COLUMNS,
  type RecordCounts,
  type SessionListing,
  type Turn,
  type TurnEntry,
} from "./_schema.ts";
import type { RepairPlan } from "./_repair.ts";

/** Options of the renderers. */
export interface RenderOptions {
  /** ANSI colours (the CLI sets it only on a terminal without `NO_COLOR`). */
  color: boolean;
  /** Characters of a message, argument or output shown before it is shortened. */
  textChars?: number;
  /** Lines of one text shown before it is shortened. */
  textLines?: number;
}

const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
} as const;
type Style = keyof typeof CODES;

/** Styles text, or leaves it plain. */
type Painter = (style: Style, text: string) => string;

function painter(color: boolean): Painter {
  return color
    ? (style, text) => `\x1b[${CODES[style][0]}m${text}\x1b[${CODES[style][1]}m`
    : (_style, text) => text;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;

/** Makes control characters visible, so no byte of a session file can drive the terminal. */
export function visible(text: string): string {
  return text.replace(/\t/g, "  ").replace(
    CONTROL,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
}

/**
 * Shortens `text` (whose full length is `chars`) to at most `maxChars` characters and
 * `maxLines` lines, with a note of what was left out: `… (+1234 chars)`.
 */
export function shortenText(
  text: string,
  chars: number,
  options: { maxChars?: number; maxLines?: number } = {},
): string {
  const maxChars = options.maxChars ?? 300;
  const maxLines = options.maxLines ?? 6;
  let shown = text.length > maxChars ? text.slice(0, maxChars) : text;
  const lines = shown.split("\n");
  if (lines.length > maxLines) shown = lines.slice(0, maxLines).join("\n");
  shown = shown.replace(/\s+$/, "");
  const left = chars - shown.length;
  return left > 0 ? `${shown} … (+${left} chars)` : shown;
}

const number = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, word: string) => `${number(n)} ${word}${n === 1 ? "" : "s"}`;

function size(bytes: number): string {
  if (bytes < 1024) return plural(bytes, "byte");
  const units = ["KiB", "MiB", "GiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]} (${number(bytes)} bytes)`;
}

/** `2026-11-30T10:00:00.123Z` as `2026-11-30 10:00:00Z`. */
function time(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(iso);
  return match ? `${match[1]} ${match[2]}Z` : iso;
}

/** The message of a problem without its `path:line: ` prefix, shown inside its turn. */
function withoutLocation(message: string, line: number): string {
  const marker = `:${line}: `;
  const at = message.indexOf(marker);
  return at === -1 ? message : message.slice(at + marker.length);
}

/**
 * Renders an inspection as text: header, turn blocks, the count table, findings, continue.
 * The lines of each turn come from its `entries`: a report made without them
 * (`inspectSession(path)`) shows each turn's heading, the counts and the findings only.
 */
export function renderReport(report: InspectReport, options: RenderOptions): string {
  const paint = painter(options.color);
  const text = (value: string, chars: number, indent: string) =>
    visible(
      shortenText(value, chars, {
        maxChars: options.textChars ?? 300,
        maxLines: options.textLines ?? 6,
      }),
    ).replaceAll("\n", `\n${indent}`);
  const out: string[] = [];
  const { session } = report;

  const findings = [
    report.problems.length > 0 ? plural(report.problems.length, "problem") : "",
    report.orphanCalls.length > 0 ? plural(report.orphanCalls.length, "orphan call") : "",
  ].filter(Boolean);
  out.push(
    `${paint("bold", `Session ${session.id ?? "(unknown id)"}`)}  ${
      findings.length === 0 ? paint("green", "healthy") : paint("red", findings.join(", "))
    }`,
  );
  const field = (name: string, value: string) =>
    out.push(`  ${paint("dim", name.padEnd(9))}${value}`);
  field("file", visible(session.path));
  field(
    "size",
    `${size(session.sizeBytes)}, ${plural(session.records, "record")}, ${
      plural(session.lines, "line")
    }`,
  );
  field("created", session.created ? time(session.created) : "unknown");
  field("cwd", session.cwd === null ? "unknown" : visible(session.cwd));
  field(
    "model",
    session.model === null
      ? "unknown"
      : `${visible(session.model)} (${visible(session.modelProvider ?? "?")}, ${session.wireApi})`,
  );
  field("policy", session.policy?.approval ?? "unknown");
  field(
    "turns",
    `${
      number(report.totals.turns)
    } (${report.totals.resumedTurns} resumed, ${report.totals.unfinishedTurns} did not finish)`,
  );
  out.push("");

  const lineWidth = String(Math.max(1, session.lines, ...report.problems.map((p) => p.line)))
    .length;
  const gutter = (line: number) => paint("dim", `${String(line).padStart(lineWidth)} │ `);
  const pad = " ".repeat(lineWidth + 3);

  const renderEntries = (block: Header | Turn, turnIndex: number | null, last: boolean) => {
    const entries = block.entries ?? [];
    const byLine = new Map<number, TurnEntry>();
    for (const entry of entries) byLine.set(entry.line, entry);
    const shownBeneath = new Set<number>();
    for (const entry of entries) {
      if (shownBeneath.has(entry.line)) continue;
      const row = (label: string, body: string) =>
        out.push(`${gutter(entry.line)}${label.padEnd(10)} ${body}`);
      switch (entry.kind) {
        case "message": {
          const style: Style = entry.role === "user"
            ? "cyan"
            : entry.role === "assistant"
            ? "green"
            : "dim";
          row(
            paint(style, entry.role.padEnd(10)),
            text(entry.text, entry.chars, `${pad}${" ".repeat(11)}`),
          );
          break;
        }
        case "compaction_summary":
          row(
            paint("magenta", "summary".padEnd(10)),
            text(entry.text, entry.chars, `${pad}${" ".repeat(11)}`),
          );
          break;
        case "function_call": {
          row(
            paint("blue", "call".padEnd(10)),
            `${paint("bold", visible(entry.name))} ${
              text(entry.text, entry.chars, `${pad}${" ".repeat(11)}`)
            } ${paint("dim", `[${visible(entry.callId)}]`)}`,
          );
          const output = entry.output;
          const paired = output && output.turn === turnIndex ? byLine.get(output.line) : undefined;
          if (paired?.kind === "function_call_output") {
            shownBeneath.add(paired.line);
            out.push(`${gutter(paired.line)}  ↳ ${outputLine(paired, `${pad}${" ".repeat(15)}`)}`);
          } else if (output) {
            out.push(
              `${pad}  ↳ ${
                paint(
                  "dim",
                  `output at line ${output.line}${
                    output.turn === null ? "" : `, turn ${output.turn}`
                  }`,
                )
              }`,
            );
          } else if (entry.orphan) {
            out.push(
              `${pad}  ${
                paint(
                  "yellow",
                  "⚠ no output: resume would synthesize an output (--repair --write appends it now)",
                )
              }`,
            );
          } else {
            out.push(
              `${pad}  ${
                paint("dim", "no output; a later checkpoint removed the call from the history")
              }`,
            );
          }
          break;
        }
        case "function_call_output":
          out.push(`${gutter(entry.line)}${outputLine(entry, `${pad}${" ".repeat(11)}`)}`);
          break;
        case "compaction_checkpoint":
          row(
            paint("magenta", "✂ compact".padEnd(10)),
            `checkpoint (${visible(entry.reason)}, v${entry.version}): ${
              plural(entry.removedItemCount, "item")
            } removed, ${number(entry.keptItemCount)} kept, ${
              number(entry.tokensBefore)
            } tokens before; the history continues from its ${
              plural(entry.replacementItemCount, "item")
            }`,
          );
          break;
        case "run_finished": {
          const style: Style = entry.outcome === "succeeded"
            ? "green"
            : entry.outcome === "failed"
            ? "red"
            : "yellow";
          const mark = entry.outcome === "succeeded" ? "✓" : "✗";
          const parts = [plural(entry.rounds, "round")];
          if (entry.usage) {
            parts.push(
              `${number(entry.usage.totalTokens)} tokens (${number(entry.usage.inputTokens)} in, ${
                number(entry.usage.outputTokens)
              } out)`,
            );
          }
          row(
            paint(style, `${mark} ${entry.outcome}`.padEnd(10)),
            `${parts.join(", ")}${
              entry.error ? `: ${paint("red", text(entry.error, entry.error.length, pad))}` : ""
            }`,
          );
          break;
        }
        case "session_meta":
        case "turn_context":
          row(paint("yellow", entry.kind), paint("yellow", "a stray record (see problems)"));
          break;
        case "problem":
          row(
            paint("red", `✗ ${entry.problem}`),
            paint("red", visible(withoutLocation(entry.message, entry.line))),
          );
          break;
      }
    }
    if (turnIndex !== null && "outcome" in block && block.outcome === null) {
      out.push(
        `${pad}${
          paint(
            "yellow",
            `✗ the run did not finish: no run_finished record (crashed or killed${
              last ? ", or still running" : ""
            })`,
          )
        }`,
      );
    }
  };

  const outputLine = (
    entry: Extract<TurnEntry, { kind: "function_call_output" }>,
    indent: string,
  ) => {
    if (entry.synthesized) {
      const from = entry.call
        ? ` for ${visible(entry.callId)} (${visible(entry.toolName)}, line ${entry.call.line}${
          entry.call.turn === null ? "" : `, turn ${entry.call.turn}`
        })`
        : ` for ${visible(entry.callId)}`;
      return `${paint("magenta", "synthesized")}${from}: ${
        paint("dim", text(entry.text, entry.chars, indent))
      }`;
    }
    const label = entry.isError
      ? paint("red", "error".padEnd(10))
      : paint("blue", "output".padEnd(10));
    const head = entry.call ? "" : `${paint("dim", `[${visible(entry.callId)}]`)} `;
    const flag = entry.dropped === "orphan_output"
      ? ` ${paint("yellow", "⚠ orphan output: no call before it, resume drops it")}`
      : entry.dropped === "duplicate_output"
      ? ` ${paint("yellow", "⚠ a second output for this call: resume drops it")}`
      : "";
    return `${label} ${head}${text(entry.text, entry.chars, indent)}${flag}`;
  };

  if ((report.header.entries?.length ?? 0) > 0) {
    out.push(paint("bold", `── Before the first turn (lines 1-${report.header.endLine}) ──`));
    renderEntries(report.header, null, false);
    out.push("");
  }
  for (const turn of report.turns) {
    const parts = [
      `run ${visible(turn.runId)}`,
      time(turn.time),
      visible(turn.model),
      turn.policy.approval,
      turn.resumed ? paint("yellow", "resumed") : "new",
    ];
    out.push(
      `${paint("bold", `━━ Turn ${turn.index}`)} ${paint("dim", "·")} ${
        parts.join(paint("dim", " · "))
      } ${paint("dim", `· lines ${turn.startLine}-${turn.endLine}`)}`,
    );
    renderEntries(turn, turn.index, turn === report.turns[report.turns.length - 1]);
    out.push("");
  }
  if (report.turns.length === 0) out.push(paint("dim", "(no turns)"), "");

  out.push(paint("bold", "Records per turn"));
  out.push(...countTable(report, paint));
  out.push("");

  if (report.synthesizedOutputs.length > 0) {
    out.push(paint("bold", `Synthesized outputs (${report.synthesizedOutputs.length})`));
    for (const s of report.synthesizedOutputs) {
      out.push(
        `  line ${s.line} (turn ${s.turn ?? "-"}): ${visible(s.callId)} (${
          visible(s.toolName)
        }) answers ${
          s.call
            ? `the call at line ${s.call.line}, turn ${s.call.turn ?? "-"}`
            : "no call in the file"
        }`,
      );
    }
    out.push("");
  }
  if (report.orphanCalls.length > 0) {
    out.push(paint("yellow", paint("bold", `Orphan calls (${report.orphanCalls.length})`)));
    for (const c of report.orphanCalls) {
      out.push(
        `  line ${c.line} (turn ${c.turn ?? "-"}): ${visible(c.callId)} (${visible(c.name)})${
          c.inCheckpoint ? " in the checkpoint's replacement history" : ""
        }: resume would synthesize an output`,
      );
    }
    out.push("");
  }
  if (report.problems.length > 0) {
    out.push(paint("red", paint("bold", `Problems (${report.problems.length})`)));
    for (const p of report.problems) out.push(`  ${paint("red", p.kind)}  ${visible(p.message)}`);
    out.push("");
  }
  if (report.continueCommand) {
    out.push(paint("bold", "Continue this session:"), `  ${report.continueCommand}`);
  } else {
    out.push(
      paint("dim", "No continue command: the file is not in a sessions store under its id."),
    );
  }
  if (!report.healthy) {
    out.push(
      paint(
        "dim",
        "Repair: add --repair to see what would be done, --repair --write to do it.",
      ),
    );
  }
  return out.join("\n") + "\n";
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

function countTable(report: InspectReport, paint: Painter): string[] {
  const rows: string[][] = [];
  const title = ["turn", "lines", ...RECORD_COUNT_COLUMNS.map((c) => COLUMN_TITLES[c])];
  const cells = (counts: RecordCounts) => RECORD_COUNT_COLUMNS.map((c) => number(counts[c]));
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
    paint("dim", line(title)),
    ...rows.map(line),
    paint("bold", line(total)),
  ];
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Renders a listing of sessions, newest first. */
export function renderListing(listing: SessionListing, options: RenderOptions): string {
  const paint = painter(options.color);
  if (listing.sessions.length === 0) {
    return `No sessions in ${visible(listing.root)}\n`;
  }
  const rows = listing.sessions.map((s) => [
    s.shortId,
    time(s.created),
    number(s.turns),
    number(s.records),
    visible(clip(s.firstUserMessage ?? "(no user message)", options.textChars ?? 60)),
  ]);
  const title = ["id prefix", "created", "turns", "records", "first user message"];
  const widths = title.map((t, i) => Math.max(t.length, ...rows.map((r) => r[i]!.length)));
  const line = (row: string[]) =>
    row.map((cell, i) =>
      i === 4 ? cell : i === 2 || i === 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)
    ).join("  ");
  const out = [
    paint("bold", `Sessions in ${visible(listing.root)}, newest first`),
    paint("dim", line(title)),
    ...rows.map(line),
  ];
  if (listing.more) {
    out.push(paint("dim", `(more sessions: --limit N shows more)`));
  }
  out.push(paint("dim", "Inspect one: deno task inspect <id prefix>"));
  return out.join("\n") + "\n";
}

/**
 * Renders a repair plan: what a dry run would do, or (with `written`) what was done and how
 * the file looks afterwards.
 */
export function renderRepair(
  plan: RepairPlan,
  options: RenderOptions & { written: boolean; after?: InspectReport | undefined },
): string {
  const paint = painter(options.color);
  const out: string[] = [];
  const path = visible(plan.path);
  if (plan.refused !== null) {
    out.push(paint("red", `Not repaired: ${visible(plan.refused)}`));
    return out.join("\n") + "\n";
  }
  const empty = plan.moved.length === 0 && plan.appended.length === 0;
  out.push(
    paint(
      "bold",
      empty
        ? `Nothing to repair in ${path}`
        : options.written
        ? `Repaired ${path}`
        : `Repair plan for ${path} (dry run: nothing changed; add --write to do it)`,
    ),
  );
  const verb = (doing: string, done: string) => (options.written ? done : doing);
  let step = 1;
  for (const m of plan.moved) {
    out.push(
      `  ${step++}. ${verb("move", "moved")} line ${m.line} (${m.kind}, ${
        plural(m.end - m.start, "byte")
      }) to the sidecar ${visible(plan.sidecar)}`,
    );
    if (m.split) {
      out.push(
        `     and ${
          verb("write", "wrote")
        } back the ${m.split.length} records glued together on it, one a line: ${
          m.split.map((r) => r.type).join(", ")
        }`,
      );
    }
  }
  if (plan.method === "truncate") {
    out.push(
      `  ${step++}. ${
        verb("cut", "cut")
      } the torn last line off the session after the sidecar is flushed (nothing else changes)`,
    );
  } else if (plan.method === "rewrite") {
    const n = plan.moved.filter((m) => m.kind !== "torn_tail").length;
    out.push(
      `  ${step++}. ${verb("rewrite", "rewrote")} the session without ${
        n === 1 ? "that line" : `those ${n} lines`
      }: a temp file in the same folder, fsynced, renamed over it in one step`,
    );
  }
  if (plan.appended.length > 0) {
    out.push(
      `  ${step++}. ${verb("append", "appended")} ${
        plural(plan.appended.length, "synthesized output")
      }, exactly as resume would:`,
    );
    for (const a of plan.appended) {
      out.push(
        `       ${visible(a.callId)} (${visible(a.toolName)})${
          a.line > 0
            ? `, the call at line ${a.line}${a.turn === null ? "" : `, turn ${a.turn}`}`
            : ""
        }`,
      );
    }
  }
  if (plan.leftAsIs.length > 0) {
    out.push(paint("dim", "Left as is:"));
    for (const note of plan.leftAsIs) out.push(paint("dim", `  ${visible(note)}`));
  }
  if (options.after) {
    const a = options.after;
    out.push(
      a.healthy
        ? paint(
          "green",
          `The session is healthy now: ${plural(a.session.records, "record")}, ${
            plural(a.totals.turns, "turn")
          }.`,
        )
        : paint(
          "yellow",
          `Still ${plural(a.problems.length, "problem")} and ${
            plural(a.orphanCalls.length, "orphan call")
          } (see above).`,
        ),
    );
  }
  return out.join("\n") + "\n";
}
