/**
 * A repair's plan: which lines go to the sidecar, which glued lines split back into their
 * records, which lines change or are written, which outputs are appended, and what is left as
 * is. The one shape turnlog's own repair and every format's repair are worked out into.
 *
 * @module
 */
import type {
  ForeignInsertedLine,
  ForeignRewrittenLine,
  SessionFormat,
  ValidationFinding,
} from "../formats/mod.ts";
import type { InspectProblemKind } from "../inspect/mod.ts";

/** A line repair moves from the session file to the sidecar. */
export interface MovedLine {
  /** The line's number before the repair. */
  line: number;
  /** What is wrong with it. */
  kind: InspectProblemKind;
  /** Byte range in the session file, terminator included. */
  start: number;
  /** Byte offset just past the line's terminator. */
  end: number;
  /** The problem, `path:line: what is wrong`. */
  message: string;
  /** The bytes the sidecar keeps: the line without its newline. */
  bytes: number;
  /**
   * The records a line of several records glued together splits into, each written back on
   * a line of its own in the line's place; null for a line that only moves.
   */
  split: { type: string; text: string }[] | null;
}

/** An output repair appends for a call without one. */
export interface AppendedOutput {
  /** The call's id. */
  callId: string;
  /** The called tool's name. */
  toolName: string;
  /** The call's line and turn. */
  line: number;
  /** The call's turn, or null for the header. */
  turn: number | null;
}

/** What a repair does to one file. */
export interface RepairPlan {
  /** The session file. */
  path: string;
  /** Its format: turnlog's own, or another tool's (repaired in that tool's own shapes). */
  format: SessionFormat;
  /** The sidecar that keeps every byte taken out (`<file>.quarantine`). */
  sidecar: string;
  /** Lines moved to the sidecar, in file order. */
  moved: MovedLine[];
  /**
   * How the lines leave the session file: `truncate` when only the last line goes (it is cut
   * off), `rewrite` otherwise (temp file, fsync, atomic rename).
   */
  method: "none" | "truncate" | "rewrite";
  /** Synthesized outputs appended at the end, exactly as resume would write them. */
  appended: AppendedOutput[];
  /**
   * Lines changed in place, each original kept in the sidecar (another tool's file: a line
   * re-parented onto a synthesized result, a result no call asked for taken out of a line).
   */
  rewritten: ForeignRewrittenLine[];
  /**
   * Lines written where they belong (another tool's file: the result of a call that has
   * none, in that tool's own shape, right after the call or its other results).
   */
  inserted: ForeignInsertedLine[];
  /** What the format's validator found before the repair (another tool's file; else empty). */
  findings: ValidationFinding[];
  /** Problems repair leaves as they are, and why. */
  leftAsIs: string[];
  /** Why repair refuses to touch the file at all, or null. */
  refused: string | null;
}

/** True when a plan changes nothing. */
export function isEmptyPlan(plan: RepairPlan): boolean {
  return plan.moved.length === 0 && plan.appended.length === 0 && plan.rewritten.length === 0 &&
    plan.inserted.length === 0;
}

/** How the moved lines leave the file: cut off when only the last line goes, else a rewrite. */
export function methodOf(moved: readonly MovedLine[], size: number): RepairPlan["method"] {
  if (moved.length === 0) return "none";
  const only = moved[0]!;
  return moved.length === 1 && only.end === size && only.split === null ? "truncate" : "rewrite";
}
