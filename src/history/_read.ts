/**
 * Reads a session file into validated records, streaming, every bad line reported as a
 * problem instead of thrown.
 *
 * @module
 */
import { readLines, type ReadLinesOptions } from "../io/mod.ts";
import {
  type LineProblem,
  parseRecordLine,
  type RecordEntry,
  SessionFileError,
  type SessionRecord,
} from "../record/mod.ts";

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
