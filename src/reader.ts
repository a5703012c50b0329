/**
 * Turns a session file into validated records, streaming, with every bad line reported as
 * `path:line: what is wrong` instead of thrown.
 *
 * @module
 */
import { type Line, readLines, type ReadLinesOptions } from "./lines.ts";
import { RECORD_TYPES, type SessionRecord, SessionRecordSchema } from "./records.ts";

/** What is wrong with a line. */
export type ProblemKind =
  | "torn_tail"
  | "malformed_json"
  | "not_an_object"
  | "unknown_type"
  | "invalid_record";

/** A line that is not a valid record. */
export interface LineProblem {
  line: number;
  kind: ProblemKind;
  /** `path:line: what is wrong`. */
  message: string;
  /** Byte range of the line, terminator included, for repair. */
  start: number;
  end: number;
}

/** One line of a session file: a record or a problem. */
export type RecordEntry =
  | { line: number; record: SessionRecord; problem?: undefined }
  | { line: number; record?: undefined; problem: LineProblem };

/** A session file that cannot be read as asked. */
export class SessionFileError extends Error {
  /** The problem, when the error is about one line. */
  readonly problem: LineProblem | undefined;
  constructor(message: string, options?: ErrorOptions & { problem?: LineProblem }) {
    super(message, options);
    this.name = "SessionFileError";
    this.problem = options?.problem;
  }
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(RECORD_TYPES);

function describeZodIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return "invalid record";
  const where = issue.path.map(String).join(".");
  return where ? `${where}: ${issue.message}` : issue.message;
}

/**
 * Parses one line of a session file. `isLast` marks the file's last line, so a torn write
 * (no final newline, not valid JSON) is told apart from a corrupt line in the middle.
 */
export function parseRecordLine(path: string, line: Line): RecordEntry {
  const problem = (kind: ProblemKind, what: string): RecordEntry => ({
    line: line.line,
    problem: {
      line: line.line,
      kind,
      message: `${path}:${line.line}: ${what}`,
      start: line.start,
      end: line.end,
    },
  });
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
    return problem("malformed_json", `not valid JSON (${shorten(reason)})`);
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
  const parsed = SessionRecordSchema.safeParse(value);
  if (!parsed.success) {
    return problem("invalid_record", `invalid ${type} record: ${describeZodIssue(parsed.error)}`);
  }
  return { line: line.line, record: parsed.data };
}

function shorten(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/**
 * Yields every line of a session file as a record or a problem. Empty lines are skipped.
 *
 * @example
 * ```ts ignore
 * for await (const entry of readRecords("session.jsonl")) {
 *   if (entry.problem) console.error(entry.problem.message);
 * }
 * ```
 */
export async function* readRecords(
  path: string,
  options: ReadLinesOptions = {},
): AsyncGenerator<RecordEntry> {
  for await (const line of readLines(path, options)) {
    if (line.text.length === 0 && line.terminated) continue;
    yield parseRecordLine(path, line);
  }
}

/** Every record of a file, and every problem, in file order. */
export interface ReadResult {
  records: SessionRecord[];
  problems: LineProblem[];
}

/**
 * Reads a whole session file into records. With `strict`, the first problem throws a
 * {@linkcode SessionFileError} whose message is `path:line: what is wrong`.
 */
export async function collectRecords(
  path: string,
  options: { strict?: boolean } = {},
): Promise<ReadResult> {
  const records: SessionRecord[] = [];
  const problems: LineProblem[] = [];
  for await (const entry of readRecords(path)) {
    if (entry.problem) {
      if (options.strict) {
        throw new SessionFileError(entry.problem.message, { problem: entry.problem });
      }
      problems.push(entry.problem);
    } else {
      records.push(entry.record);
    }
  }
  return { records, problems };
}
