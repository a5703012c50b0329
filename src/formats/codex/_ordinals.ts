/**
 * The ordinals of a paginated rollout (Codex 0.169 and later number every record): what the
 * real Codex 0.171 makes of a record without one, a repeated one and one that goes back, and
 * the renumbering that gives every record its own, rising ordinal again.
 *
 * Measured with the real Codex 0.171.0 (`exec resume`, `exec fork`) on rollouts changed by hand:
 * a last record without an ordinal makes it refuse the file ("final paginated rollout record
 * ... is missing an ordinal"); a record without one between numbered ones, a repeated ordinal
 * and one lower than the one before are resumed and forked whole, but Codex keys its
 * paginated history (its thread store's pages, a fork's base) by ordinal, and users report such
 * threads' history stopping there (codex #43142, #44417, #38341).
 *
 * @module
 */
import type { ViewPlace } from "../_view.ts";
import { INTERRUPTED_RESULT } from "../_repair_types.ts";

/** What is wrong with a record's ordinal. */
export type OrdinalIssueKind = "missing_last" | "missing" | "duplicate" | "out_of_order";

/** A record whose ordinal is wrong, where it is. */
export interface OrdinalIssue extends Omit<ViewPlace, "k" | "piece"> {
  kind: OrdinalIssueKind;
  /** Its ordinal; null when it has none. */
  ordinal: number | null;
  /** The highest ordinal before it, and its line. */
  before: { ordinal: number; line: number };
}

/** What repair's own outputs say: they share their call's ordinal (see `isRepairOutput`). */
const REPAIR_WORDS = INTERRUPTED_RESULT.slice(INTERRUPTED_RESULT.lastIndexOf("("));

/**
 * Whether a record is an output turnlog's repair wrote: it carries its call's ordinal, which
 * Codex resumes (the real-client suite judges it); renumbering the rest of the file for it
 * would rewrite every line after it.
 */
export function isRepairOutput(value: Record<string, unknown>): boolean {
  const payload = value.payload as Record<string, unknown> | undefined;
  const output = payload?.output;
  return typeof output === "string" && output.endsWith(REPAIR_WORDS) &&
    (payload?.type === "function_call_output" || payload?.type === "custom_tool_call_output");
}

/** The ordinal of a parsed line, or undefined when it has none that is a whole number. */
export function ordinalOf(value: Record<string, unknown>): number | undefined {
  const ordinal = value.ordinal;
  return typeof ordinal === "number" && Number.isSafeInteger(ordinal) ? ordinal : undefined;
}

type Place = Omit<ViewPlace, "k" | "piece">;

/**
 * The ordinals of a rollout's records, fed in order: nothing is asked of a rollout none of
 * whose records is numbered (before 0.169), nor of the lines before its first numbered one.
 */
export class CodexOrdinals {
  readonly issues: OrdinalIssue[] = [];
  #numbered = false;
  #last = 0;
  #max = 0;
  #maxLine = 0;
  /** Records without an ordinal since the last numbered one. */
  #unnumbered: Place[] = [];

  /** Ordinals that go on from where these are (this one is left as is). */
  clone(): CodexOrdinals {
    // Every field is copied: one added to the class is added here.
    const copy = new CodexOrdinals();
    copy.issues.push(...this.issues);
    copy.#numbered = this.#numbered;
    copy.#last = this.#last;
    copy.#max = this.#max;
    copy.#maxLine = this.#maxLine;
    copy.#unnumbered = [...this.#unnumbered];
    return copy;
  }

  /** One record: its parsed object and where it is. */
  see(value: Record<string, unknown>, at: Place): void {
    const ordinal = ordinalOf(value);
    if (ordinal === undefined) {
      if (this.#numbered) this.#unnumbered.push(placeOf(at));
      return;
    }
    const before = { ordinal: this.#max, line: this.#maxLine };
    if (!this.#numbered) this.#numbered = true;
    else {
      for (const place of this.#unnumbered) {
        this.issues.push({ ...place, kind: "missing", ordinal: null, before });
      }
      const repairs = ordinal === this.#last && isRepairOutput(value);
      if (ordinal <= this.#max && !repairs) {
        const kind = ordinal === this.#last || ordinal === this.#max ? "duplicate" : "out_of_order";
        this.issues.push({ ...placeOf(at), kind, ordinal, before });
      }
    }
    this.#unnumbered = [];
    this.#last = ordinal;
    if (ordinal >= this.#max) {
      this.#max = ordinal;
      this.#maxLine = at.line;
    }
  }

  /** The issues, once every record has been fed: the records left without one are the last. */
  finish(): OrdinalIssue[] {
    const before = { ordinal: this.#max, line: this.#maxLine };
    for (const place of this.#unnumbered) {
      this.issues.push({ ...place, kind: "missing_last", ordinal: null, before });
    }
    this.#unnumbered = [];
    return this.issues.sort((a, b) => a.line - b.line);
  }
}

function placeOf(at: Place): Place {
  return { line: at.line, start: at.start, end: at.end, terminated: at.terminated };
}

/** An ordinal issue in words, after `path:line: `. */
export function ordinalWords(issue: OrdinalIssue): string {
  const { before } = issue;
  switch (issue.kind) {
    case "missing_last":
      return `a record without an ordinal at the end of a paginated rollout: Codex refuses this ` +
        `file ("final paginated rollout record is missing an ordinal")`;
    case "missing":
      return `a record without an ordinal after ordinal ${before.ordinal} (line ${before.line}): ` +
        `Codex's paginated history is keyed by ordinal`;
    case "duplicate":
      return `ordinal ${issue.ordinal} again (line ${before.line} has it): Codex's paginated ` +
        `history is keyed by ordinal`;
    case "out_of_order":
      return `ordinal ${issue.ordinal} after ordinal ${before.ordinal} (line ${before.line}): out ` +
        `of order, and Codex's paginated history is keyed by ordinal`;
  }
}

/**
 * The ordinals repair gives, fed the records repair keeps in order: a record keeps its own
 * when it is above every one before it; else it takes the next one up (and so may the records
 * after it, until one is above again). An output turnlog's repair wrote keeps its call's.
 */
export class Renumbering {
  #assigned: number | undefined;

  /** The record's new ordinal, or undefined when it keeps what it has. */
  next(value: Record<string, unknown>): number | undefined {
    const ordinal = ordinalOf(value);
    const assigned = this.#assigned;
    if (assigned === undefined) {
      this.#assigned = ordinal;
      return undefined;
    }
    if (ordinal !== undefined && ordinal > assigned) {
      this.#assigned = ordinal;
      return undefined;
    }
    if (ordinal === assigned && isRepairOutput(value)) return undefined;
    this.#assigned = assigned + 1;
    return assigned + 1;
  }
}

/**
 * The line with `ordinal` as its ordinal, right after its timestamp as Codex writes it (the
 * line is written anew: its original goes to the sidecar).
 */
export function withOrdinal(value: Record<string, unknown>, ordinal: number): string {
  const { timestamp, ordinal: _old, ...rest } = value;
  return JSON.stringify(
    timestamp === undefined ? { ordinal, ...rest } : { timestamp, ordinal, ...rest },
  );
}
