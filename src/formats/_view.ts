/**
 * Another tool's session file as its repair and its validator see it: the lines its reader
 * reads, in order, and the lines it cannot read set aside, with the records such a line still
 * holds (two glued together, one behind NUL padding or after a torn fragment) recovered as
 * lines of their own. Streaming: a line's text is handed on, never kept.
 *
 * @module
 */
import { jsonObjectsIn, type Line, readLines } from "../io/mod.ts";
import { isObject, type Json, lineProblem, parseJsonLine, str } from "./_line.ts";

/** Why a line cannot be read: the kinds of the format readers' problems. */
export type BadLineKind =
  | "torn_tail"
  | "malformed_json"
  | "not_an_object"
  | "unknown_type"
  | "invalid_record";

/** A line the format's reader cannot read: it goes to the sidecar. */
export interface BadLine {
  /** The line's number. */
  line: number;
  /** What is wrong with it. */
  kind: BadLineKind;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past its terminator. */
  end: number;
  /** Bytes the sidecar keeps: the line without its newline. */
  bytes: number;
  /** `path:line: what is wrong`. */
  message: string;
  /** The records recovered from it, each written back on a line of its own, in order. */
  pieces: { type: string; text: string }[];
  /**
   * A Claude Code line's parent and (when its end is not lost) its own uuid, as far as they
   * can still be read in it: its children are re-linked to that parent once it leaves.
   */
  links?: LineLinks | undefined;
}

/** A line's own id and its parent's, as far as they can be read in a damaged line. */
export interface LineLinks {
  /** The line's own id, or null when that part of it is lost. */
  uuid: string | null;
  /** Its parent's id, or null for a root. */
  parentUuid: string | null;
}

/** Where a line of the view is: its index, its file line and bytes, its piece of a bad line. */
export interface ViewPlace {
  /** Its index in the view. */
  k: number;
  /** The number of the file's line it is (or was recovered from). */
  line: number;
  /** Byte offset of that line's first byte. */
  start: number;
  /** Byte offset just past that line's terminator. */
  end: number;
  /** False only for a last line without its newline. */
  terminated: boolean;
  /** Its index among the records recovered from a bad line, or null for a line of its own. */
  piece: number | null;
}

/** A line of the view: a line of the file, or a record recovered from a bad one. */
export interface ViewLine extends ViewPlace {
  /** Its text. */
  text: string;
  /** Its parsed object. */
  value: Json;
}

/** One step of the view: a line, or a bad line set aside. */
export type ViewItem = { line: ViewLine; bad?: undefined } | { bad: BadLine; line?: undefined };

/**
 * What a format counts as one of its lines, beyond a JSON object: each adapter gives its own
 * (its `lines`), and its check and repair read the file through it.
 */
export interface LineRules {
  /** Why a parsed object is not a line of the format, or undefined when it is one. */
  notALine(value: Record<string, unknown>): { kind: BadLineKind; what: string } | undefined;
  /**
   * The format's hook for lines that link to a parent (Claude Code's `uuid` / `parentUuid`):
   * what is left of a bad line, read for its links as far as they can be, so its repair can
   * re-link its children once it leaves. Absent: the format's lines link to nothing.
   */
  links?: (text: string) => LineLinks | undefined;
  /** The keys a line of the format may start with: where a line glued after another starts. */
  firstKeys: readonly string[];
}

/** A recovered record, when the text is one line of the format. */
function pieceOf(rules: LineRules, text: string): { type: string; text: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || rules.notALine(value) !== undefined) return undefined;
  return { type: str(value, "type") ?? "object", text };
}

/** Where a line of the format may start: its first key, unescaped (never inside a string). */
function lineStart(rules: LineRules): RegExp {
  return new RegExp(`\\{"(?:${rules.firstKeys.join("|")})":`, "g");
}

/** Start positions tried after a torn fragment, at most. */
const MAX_STARTS = 32;

/**
 * The records a bad line still holds, each a whole line of the format: objects glued
 * together, an object behind or before NUL padding, or the objects after a torn fragment
 * (the fragment itself stays in the sidecar only). Empty when there is none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recoverLinePieces } from "./_view.ts";
 * const anyObject = { notALine: () => undefined, firstKeys: ["type"] };
 * const glued = '{"type":"user","uuid":"a"}{"type":"user","uuid":"b"}';
 * assert.equal(recoverLinePieces(anyObject, glued).length, 2);
 * assert.equal(recoverLinePieces(anyObject, "\u0000\u0000").length, 0);
 * ```
 */
export function recoverLinePieces(
  rules: LineRules,
  text: string,
): { type: string; text: string }[] {
  const whole = jsonObjectsIn(text, { nulIsBlank: true });
  const tries = whole === null ? [] : [whole];
  if (whole === null) {
    for (const match of text.matchAll(lineStart(rules))) {
      if (match.index === 0) continue;
      if (tries.length >= MAX_STARTS) break;
      const rest = jsonObjectsIn(text.slice(match.index), { nulIsBlank: true });
      if (rest !== null && rest.length > 0) tries.push(rest);
    }
  }
  for (const objects of tries) {
    const pieces = objects.map((piece) => pieceOf(rules, piece));
    if (pieces.every((piece) => piece !== undefined)) return pieces;
  }
  return [];
}

/** A bad line of the file, with what it still holds. */
function badLine(
  rules: LineRules,
  line: Line,
  problem: { kind: BadLineKind; message: string },
): BadLine {
  const pieces = recoverLinePieces(rules, line.text);
  // What is left once the records that come back are taken out: a torn line's own fragment.
  let lost = line.text;
  for (const piece of pieces) lost = lost.replace(piece.text, "");
  const links = rules.links?.(lost);
  return {
    line: line.line,
    kind: problem.kind,
    start: line.start,
    end: line.end,
    bytes: line.end - line.start - (line.terminated ? 1 : 0),
    message: problem.message,
    pieces,
    links,
  };
}

/**
 * The view of the session file at `path` by a format's line `rules`, up to `sizeBytes`: each line the
 * reader reads, and each line it cannot read (then the records recovered from it, as lines of
 * the view), in file order. Empty lines are passed over, as the readers pass them over.
 */
export async function* readView(
  path: string,
  rules: LineRules,
  sizeBytes: number,
): AsyncGenerator<ViewItem> {
  let k = 0;
  for await (const line of readLines(path)) {
    if (line.start >= sizeBytes) break;
    if (line.text.length === 0 && line.terminated) continue;
    const parsed = parseJsonLine(path, line);
    const wrong = "value" in parsed ? rules.notALine(parsed.value) : undefined;
    if ("value" in parsed && wrong === undefined) {
      yield { line: { ...line, k: k++, piece: null, value: parsed.value } };
      continue;
    }
    const problem = "problem" in parsed
      ? parsed.problem
      : lineProblem(path, line, wrong!.kind, wrong!.what);
    const bad = badLine(rules, line, problem as { kind: BadLineKind; message: string });
    yield { bad };
    for (const [piece, { text }] of bad.pieces.entries()) {
      const value = JSON.parse(text) as Json;
      yield {
        line: { ...line, text, terminated: true, k: k++, piece, value },
      };
    }
  }
}
