/**
 * The text view of a repair: the plan a dry run shows, or what was done and how the file looks
 * afterwards.
 *
 * @module
 */
import type { SessionAdapter, SessionValidation } from "../formats/mod.ts";
import type { InspectReport, RenderOptions } from "../inspect/mod.ts";
import { type Painter, painter, plural, visible } from "../text/mod.ts";
import type { RepairPlan } from "./_plan.ts";
import { changesLines, foreignFindings, foreignFooter } from "./_render_foreign.ts";

type Verb = (doing: string, done: string) => string;

/** The steps about single lines, in file order: moved, changed, written after a line. */
function lineSteps(plan: RepairPlan, verb: Verb): { at: number; lines: string[] }[] {
  const items: { at: number; lines: string[] }[] = [];
  for (const m of plan.moved) {
    const lines = [
      `${verb("move", "moved")} line ${m.line} (${m.kind}, ${
        plural(m.bytes, "byte")
      }) to the sidecar ${visible(plan.sidecar)}`,
    ];
    if (m.split) {
      lines.push(
        `     and ${verb("write", "wrote")} back the ${m.split.length} records glued together ` +
          `on it, one a line: ${m.split.map((r) => r.type).join(", ")}`,
      );
    }
    items.push({ at: m.line, lines });
  }
  for (const line of plan.rewritten) {
    items.push({
      at: line.line,
      lines: [
        `${verb("change", "changed")} line ${line.line} (its original to the sidecar): ${
          visible(line.message.replace(/^.*?:\d+: /, ""))
        }`,
      ],
    });
  }
  for (const add of plan.inserted) {
    items.push({
      at: add.afterLine + 0.5,
      lines: [
        `${verb("write", "wrote")} after line ${add.afterLine} a result for ${
          visible(add.callId)
        } (${visible(add.toolName)}, the call at line ${add.callLine}): an error saying the ` +
        "call was interrupted and its result is unknown",
      ],
    });
  }
  // A stable sort keeps the results written after one line in their order.
  return items.sort((a, b) => a.at - b.at);
}

/** The numbered steps of a plan: lines moved, how the file changes, outputs appended. */
function steps(plan: RepairPlan, verb: Verb): string[] {
  const out: string[] = [];
  const step = () => `  ${out.filter((line) => /^ {2}\d+\./.test(line)).length + 1}.`;
  for (const item of lineSteps(plan, verb)) {
    out.push(`${step()} ${item.lines[0]}`, ...item.lines.slice(1));
  }
  const changes = plan.rewritten.length + plan.inserted.length;
  if (plan.method === "rewrite" && changes > 0) {
    out.push(
      `${step()} ${verb("rewrite", "rewrote")} the session with ${
        changes + plan.moved.length === 1 ? "that change" : "those changes"
      }: a temp file in the same folder, fsynced, renamed over it in one step`,
    );
  } else if (plan.method === "truncate") {
    out.push(
      `${step()} ${verb("cut", "cut")} that last line off the session once the sidecar is ` +
        "flushed (nothing else changes)",
    );
  } else if (plan.method === "rewrite") {
    const n = plan.moved.length;
    out.push(
      `${step()} ${verb("rewrite", "rewrote")} the session without ${
        n === 1 ? "that line" : `those ${n} lines`
      }: a temp file in the same folder, fsynced, renamed over it in one step`,
    );
  }
  if (plan.appended.length > 0) {
    out.push(
      `${step()} ${verb("append", "appended")} ${
        plural(plan.appended.length, "synthesized output")
      }, exactly as resume would:`,
    );
    for (const a of plan.appended) {
      const where = a.line > 0
        ? `, the call at line ${a.line}${a.turn === null ? "" : `, turn ${a.turn}`}`
        : "";
      out.push(`       ${visible(a.callId)} (${visible(a.toolName)})${where}`);
    }
  }
  return out;
}

/** How the file looks after a repair. */
function afterwards(after: InspectReport, paint: Painter): string {
  return after.healthy
    ? paint(
      "green",
      `The session is healthy now: ${plural(after.session.records, "record")}, ${
        plural(after.totals.turns, "turn")
      }.`,
    )
    : paint(
      "yellow",
      `Still ${plural(after.problems.length, "problem")} and ${
        plural(after.orphanCalls.length, "orphan call")
      } (see above).`,
    );
}

/**
 * Renders a repair plan: what a dry run would do, or (with `written`) what was done and how
 * the file looks afterwards.
 */
export function renderRepair(
  plan: RepairPlan,
  options: RenderOptions & {
    written: boolean;
    after?: InspectReport | undefined;
    validation?: SessionValidation | null | undefined;
    /** The adapter of the file's format, handed on by the command that found the file. */
    adapter: SessionAdapter;
  },
): string {
  const paint = painter(options.color);
  if (plan.refused !== null) return paint("red", `Not repaired: ${visible(plan.refused)}`) + "\n";
  const path = visible(plan.path);
  const empty = !changesLines(plan) && plan.appended.length === 0;
  const title = empty
    ? `Nothing to repair in ${path}`
    : options.written
    ? `Repaired ${path}`
    : `Repair plan for ${path} (dry run: nothing changed; add --write to do it)`;
  const out = [
    paint("bold", title),
    ...(options.written ? [] : foreignFindings(plan, { paint, adapter: options.adapter })),
    ...steps(plan, (doing, done) => (options.written ? done : doing)),
  ];
  if (plan.leftAsIs.length > 0) {
    out.push(paint("dim", "Left as is:"));
    for (const note of plan.leftAsIs) out.push(paint("dim", `  ${visible(note)}`));
  }
  out.push(...foreignFooter(plan, options, paint));
  if (options.after) out.push(afterwards(options.after, paint));
  return out.join("\n") + "\n";
}
