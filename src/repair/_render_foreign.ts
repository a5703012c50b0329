/**
 * What the text view of a repair adds for another tool's file: what its format's validator
 * finds, whether the file passes it afterwards, and how to undo the repair.
 *
 * @module
 */
import type { SessionAdapter, SessionValidation } from "../formats/mod.ts";
import { type Painter, plural, visible } from "../text/mod.ts";
import type { RepairPlan } from "./_plan.ts";
import { installedCommand } from "../store/mod.ts";

/** Findings listed at most; the rest are counted. */
const SHOWN = 20;

/** True when a plan moves, changes or writes any line. */
export function changesLines(plan: RepairPlan): boolean {
  return plan.moved.length + plan.rewritten.length + plan.inserted.length > 0;
}

function listed(findings: SessionValidation["findings"], paint: Painter): string[] {
  const out = findings.slice(0, SHOWN).map((finding) => `  ${visible(finding.message)}`);
  if (findings.length > SHOWN) {
    out.push(paint("dim", `  ... and ${plural(findings.length - SHOWN, "more finding")}`));
  }
  return out;
}

/**
 * A dry run on another tool's file: what its tool needs and the file lacks; or, when every
 * finding is a line its tool passes over (`passesOverBadLines`), those lines.
 */
export function foreignFindings(
  plan: RepairPlan,
  look: { paint: Painter; adapter: SessionAdapter },
): string[] {
  const { paint, adapter } = look;
  if (adapter.own || plan.findings.length === 0) return [];
  const passedOver = adapter.passesOverBadLines === true &&
    plan.findings.every((finding) => finding.kind === "bad_line");
  const heading = passedOver
    ? `Lines ${adapter.shortTool} passes over (it resumes the file as it is):`
    : `What ${adapter.shortTool} needs and the file lacks:`;
  return [paint("bold", heading), ...listed(plan.findings, paint)];
}

/**
 * After the steps, on another tool's file: the validator's verdict once written, and how to
 * undo the repair (or, in a dry run, to close the tool first).
 */
export function foreignFooter(
  plan: RepairPlan,
  options: {
    written: boolean;
    validation?: SessionValidation | null | undefined;
    adapter: SessionAdapter;
  },
  paint: Painter,
): string[] {
  const { adapter } = options;
  if (adapter.own) return [];
  const tool = adapter.shortTool;
  const out: string[] = [];
  const verdict = options.validation;
  if (options.written && verdict) {
    out.push(
      verdict.valid
        ? paint("green", `${tool}'s check passes: every call answered, every result asked for.`)
        : paint("yellow", `${tool}'s check still finds:`),
      ...listed(verdict.findings, paint),
    );
  }
  if (!changesLines(plan)) return out;
  if (!options.written) {
    out.push(paint(
      "dim",
      `Close ${tool} on this session first: --write leaves a file that changes meanwhile as it was.`,
    ));
    return out;
  }
  const kept = plan.moved.length + plan.rewritten.length;
  out.push(paint(
    "dim",
    // The package ships no docs/other-tools.md: named in a checkout only.
    `Undo${installedCommand() ? "" : " (docs/other-tools.md)"}: ` + [
      ...(plan.inserted.length > 0
        ? ['delete the lines that say "written by turnlog repair"']
        : []),
      ...(kept > 0
        ? [`put back the ${plural(kept, "original line")} kept in ${visible(plan.sidecar)}`]
        : []),
    ].join(", then ") + ".",
  ));
  return out;
}
