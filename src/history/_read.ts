/**
 * Reads a session file into validated records, streaming, every bad line reported as a
 * problem instead of thrown.
 *
 * @module
 */
import { readLineBatches, type ReadLinesOptions } from "../io/mod.ts";
import {
  type LineProblem,
  parseRecordLine,
  type RecordEntry,
  SessionFileError,
  type SessionRecord,
} from "../record/mod.ts";

/**
 * Yields the lines of a session file a chunk at a time, each as a record or a problem, in
 * file order (see {@linkcode readLineBatches}). Empty lines are skipped.
 *
 * @example
 * ```ts ignore
 * for await (const entries of readRecordBatches("session.jsonl")) {
 *   for (const entry of entries) if (entry.problem) console.error(entry.problem.message);
 * }
 * ```
 */
export async function* readRecordBatches(
  path: string,
  options: ReadLinesOptions = {},
): AsyncGenerator<RecordEntry[]> {
  for await (const lines of readLineBatches(path, options)) {
    const entries: RecordEntry[] = [];
    for (const line of lines) {
      if (line.text.length === 0 && line.terminated) continue;
      entries.push(parseRecordLine(path, line));
    }
    if (entries.length > 0) yield entries;
  }
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
  for await (const entries of readRecordBatches(path, options)) yield* entries;
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
  for await (const entries of readRecordBatches(path)) {
    for (const entry of entries) {
      if (entry.problem) {
        if (options.strict) {
          throw new SessionFileError(entry.problem.message, { problem: entry.problem });
        }
        problems.push(entry.problem);
      } else {
        records.push(entry.record);
      }
    }
  }
  return { records, problems };
}
