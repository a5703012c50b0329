/**
 * Reads a session file into validated records, streaming, every bad line reported as a
 * problem instead of thrown.
 *
 * @module
 */
import { forEachLine, type Line, readLines, type ReadLinesOptions } from "../io/mod.ts";
import {
  type LineProblem,
  parseRecordLine,
  type RecordEntry,
  SessionFileError,
  type SessionRecord,
} from "../record/mod.ts";

/**
 * Calls `each` with every line of a session file as a record or a problem, with the line it
 * came from, in file order (see {@linkcode forEachLine}); empty lines are skipped. When `each`
 * returns `false`, reading stops.
 *
 * @example
 * ```ts ignore
 * await forEachRecord("session.jsonl", (entry) => {
 *   if (entry.problem) console.error(entry.problem.message);
 * });
 * ```
 */
export async function forEachRecord(
  path: string,
  each: (entry: RecordEntry, line: Line) => boolean | void,
  options: ReadLinesOptions = {},
): Promise<void> {
  await forEachLine(path, (line) => {
    if (line.text.length === 0 && line.terminated) return true;
    return each(parseRecordLine(path, line), line);
  }, options);
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
  /** The valid records, in file order. */
  records: SessionRecord[];
  /** The lines that are not valid records, in file order. */
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
  await forEachRecord(path, (entry) => {
    if (entry.problem) {
      if (options.strict) {
        throw new SessionFileError(entry.problem.message, { problem: entry.problem });
      }
      problems.push(entry.problem);
    } else {
      records.push(entry.record);
    }
  });
  return { records, problems };
}
