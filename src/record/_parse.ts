/**
 * One line of a session file turned into a validated record, or into a problem reported as
 * `path:line: what is wrong` instead of thrown.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type { Line } from "../io/mod.ts";
import { clip } from "../text/mod.ts";
import { firstIssue } from "./_issues.ts";
import { RECORD_TYPES } from "./_make.ts";
import type { SessionRecord } from "./_types.ts";
import { recordSchemas } from "./_schemas_lazy.ts";
import { validateRecord } from "./_validate.ts";

/** What is wrong with a line. */
export type ProblemKind =
  | "torn_tail"
  | "malformed_json"
  | "not_an_object"
  | "unknown_type"
  | "invalid_record";

/** A line that is not a valid record. */
export interface LineProblem {
  /** The 1-based line number. */
  line: number;
  /** What is wrong. */
  kind: ProblemKind;
  /** `path:line: what is wrong`. */
  message: string;
  /** Byte range of the line, terminator included, for repair. */
  start: number;
  /** Byte offset just past the line's terminator. */
  end: number;
}

/** One line of a session file: a record or a problem. */
export type RecordEntry =
  | { line: number; record: SessionRecord; problem?: undefined }
  | { line: number; record?: undefined; problem: LineProblem };

/** A session file that cannot be read as asked. */
export class SessionFileError extends TurnlogError {
  /** The problem, when the error is about one line. */
  readonly problem: LineProblem | undefined;
  /** An error with the message given, and the line problem it is about. */
  constructor(message: string, options?: ErrorOptions & { problem?: LineProblem }) {
    super("session_file", message, options);
    this.name = "SessionFileError";
    this.problem = options?.problem;
  }
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(RECORD_TYPES);

/**
 * Parses one line of a session file. `isLast` marks the file's last line, so a torn write
 * (no final newline, not valid JSON) is told apart from a corrupt line in the middle.
 */
export function parseRecordLine(path: string, line: Line): RecordEntry {
  const problem = (kind: ProblemKind, what: string) => lineProblem(path, line, kind, what);
  const fast = recordOf(line.text);
  if (fast !== undefined) return { line: line.line, record: fast };
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (error) {
    if (!line.terminated) {
      return problem(
        "torn_tail",
        `torn last line (${line.text.length} characters without a final newline, not valid JSON): an append was cut off`,
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    return problem("malformed_json", `not valid JSON (${clip(reason, 120, "...")})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return problem("not_an_object", "not a JSON object");
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || !KNOWN_TYPES.has(type)) {
    return problem(
      "unknown_type",
      `unknown record type ${JSON.stringify(type ?? null)} (expected one of ${
        RECORD_TYPES.join(", ")
      })`,
    );
  }
  const checked = validateRecord(value as Record<string, unknown>);
  if (checked !== undefined) return { line: line.line, record: checked };
  const parsed = recordSchemas().SessionRecordSchema.safeParse(value);
  if (!parsed.success) {
    return problem("invalid_record", `invalid ${type} record: ${firstIssue(parsed.error)}`);
  }
  return { line: line.line, record: parsed.data };
}

/**
 * The record a line's text holds, or undefined when it holds none: the valid lines'
 * short way, with nothing made for them but the record ({@linkcode parseRecordLine} says what
 * is wrong with the others).
 */
export function recordOf(text: string): SessionRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  return validateRecord(value as Record<string, unknown>) ??
    recordSchemas().SessionRecordSchema.safeParse(value).data;
}

function lineProblem(path: string, line: Line, kind: ProblemKind, what: string): RecordEntry {
  const { start, end } = line;
  const message = `${path}:${line.line}: ${what}`;
  return { line: line.line, problem: { line: line.line, kind, message, start, end } };
}

const encoder = new TextEncoder();

/** The texts records were read from, for the ones that must be written back as they were. */
const KEPT_TEXTS = new WeakMap<SessionRecord, string>();

/**
 * Marks `record` as written exactly as `text` (the line it was parsed from): a store appending
 * it writes those characters, not a new serialization. Import keeps a file's bytes this way.
 * Returns the record.
 */
export function keepText<T extends SessionRecord>(record: T, text: string): T {
  KEPT_TEXTS.set(record, text);
  return record;
}

/**
 * The text a store writes for a record: the line it was read from when {@linkcode keepText}
 * kept it, else its JSON.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keepText, makeRecord, recordText } from "./mod.ts";
 * const record = makeRecord("run_finished", {
 *   runId: "r",
 *   outcome: "succeeded",
 *   rounds: 1,
 *   usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
 * });
 * assert.deepEqual(recordText(record), JSON.stringify(record));
 * const line = JSON.stringify(record).replace(":1,", ": 1,");
 * assert.deepEqual(recordText(keepText(record, line)), line);
 * ```
 */
export function recordText(record: SessionRecord): string {
  return KEPT_TEXTS.get(record) ?? JSON.stringify(record);
}

/** Encodes records as JSONL, one line each, in one buffer. */
export function encodeRecords(records: readonly SessionRecord[]): Uint8Array {
  return encoder.encode(records.map((r) => recordText(r) + "\n").join(""));
}
