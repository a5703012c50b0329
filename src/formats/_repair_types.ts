/**
 * What the validators find in another tool's session file and what its repair plans to do,
 * in the words of that tool's format: the shapes the format folders and the inspector share.
 *
 * @module
 */
import type { BadLineKind } from "./_view.ts";
import type { ForeignFormat, ValidationFinding } from "./_types.ts";

export type { ValidationFinding, ValidationKind } from "./_types.ts";

/** A validator's findings on the lines that are not the format's, in their order. */
export function badLineFindings(
  bad: readonly { line: number; message: string }[],
): ValidationFinding[] {
  return bad.map(({ line, message }) => ({ kind: "bad_line", line, callId: null, message }));
}

/** The verdict of a format's validator on a file. */
export interface SessionValidation {
  /** The file's format. */
  format: ForeignFormat;
  /** The file. */
  path: string;
  /** True when nothing is found. */
  valid: boolean;
  /** What is found, by line. */
  findings: ValidationFinding[];
}

/** Why a line leaves the file: it cannot be read, or it is a result no call asked for. */
export type MovedKind = BadLineKind | "orphan_output" | "duplicate_output" | "duplicate_call";

/** A line repair moves to the sidecar, with the records written back in its place. */
export interface ForeignMovedLine {
  /** The line's number before the repair. */
  line: number;
  /** Why it moves. */
  kind: MovedKind;
  /** Byte offset of its first byte. */
  start: number;
  /** Byte offset just past its terminator. */
  end: number;
  /** Bytes the sidecar keeps: the line without its newline. */
  bytes: number;
  /** `path:line: what is wrong`. */
  message: string;
  /** Records written back in its place, one a line; null when it only moves. */
  split: { type: string; text: string }[] | null;
}

/** A line repair changes: the original goes to the sidecar, the new text takes its place. */
export interface ForeignRewrittenLine {
  /** The line's number before the repair. */
  line: number;
  /**
   * `reparented`: only its `parentUuid` (or `logicalParentUuid`) changes; `orphan_output`: a
   * result no call asked for is taken out of it; `orphan_call`: a result is written into it
   * (a checkpoint that holds a call without one, with messages after it); `renumbered`: only its
   * ordinal changes (a Codex rollout's records numbered in order again).
   */
  kind: "reparented" | "orphan_output" | "orphan_call" | "renumbered";
  /** Byte offset of its first byte. */
  start: number;
  /** Byte offset just past its terminator. */
  end: number;
  /** Bytes the sidecar keeps: the line without its newline. */
  bytes: number;
  /** `path:line: what changes`. */
  message: string;
  /** The new line, without its newline. */
  text: string;
}

/** A line repair writes that was not in the file: the result of a call that has none. */
export interface ForeignInsertedLine {
  /** The line it goes right after (its number before the repair). */
  afterLine: number;
  /**
   * For a bad line: after which of the records written back in its place (-1: before them
   * all); null for a line of its own.
   */
  afterPiece: number | null;
  /** Byte offset it is written at: just past that line. */
  at: number;
  /** The call it answers. */
  callId: string;
  /** The called tool. */
  toolName: string;
  /** The call's line. */
  callLine: number;
  /** The line written, without its newline. */
  text: string;
}

/** What a repair of another tool's file does, worked out from the file. */
export interface ForeignRepair {
  /** The file's format. */
  format: ForeignFormat;
  /** Lines moved to the sidecar, in file order. */
  moved: ForeignMovedLine[];
  /** Lines changed in place (originals to the sidecar), in file order. */
  rewritten: ForeignRewrittenLine[];
  /** Results written for calls without one, in file order. */
  inserted: ForeignInsertedLine[];
  /** What repair leaves as it is, and why. */
  leftAsIs: string[];
  /** What the validator found before the repair. */
  findings: ValidationFinding[];
}

/** The text a synthesized result gives: the call was interrupted, its result is unknown. */
export const INTERRUPTED_RESULT: string =
  "The tool call was interrupted and its result is unknown: the session stopped before the " +
  "result was recorded (written by turnlog repair)";
