/**
 * The text view of a repair: the plan a dry run shows, or what was done and how the file looks
 * afterwards.
 *
 * @module
 */
import { painter, plural, visible } from "../text/mod.ts";
import type { RepairPlan } from "./_repair_plan.ts";
import type { RenderOptions } from "./_render_text.ts";
import type { InspectReport } from "./_schema.ts";

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
