/**
 * The line-level helpers every adapter shares: a line parsed into a JSON object or a problem
 * (the kinds and `path:line: what is wrong` messages of turnlog's own reader), and small
 * accessors for untyped JSON.
 *
 * @module
 */
import type { RecordType, RunOutcome, SessionRecord, Usage } from "../record/mod.ts";
import type { Line } from "../io/mod.ts";
import type { LineProblem, ProblemKind } from "../record/mod.ts";
import type { ForeignEntry, LineSpan } from "./_types.ts";

/** A parsed JSON object of unknown shape. */
export type Json = Record<string, unknown>;

/** Whether a value is a JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The value when it is a string, else undefined. On a reader's hot path `stringOf(value.key)`
 * beats `str(value, "key")`: the property is loaded where it is named, by an inline cache that
 * sees the few shapes of that place, where the helper's one keyed load sees every shape of
 * every caller and goes megamorphic (a slow lookup each time). The same for the two below.
 */
export const stringOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/** The value when it is a finite number, else undefined (see {@linkcode stringOf}). */
export const numberOf = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** The value when it is a JSON object, else undefined (see {@linkcode stringOf}). */
export const objectOf = (value: unknown): Json | undefined => isObject(value) ? value : undefined;

/** The string at `key`, or undefined. */
export const str = (value: Json, key: string): string | undefined => stringOf(value[key]);

/** The number at `key`, or undefined. */
export const num = (value: Json, key: string): number | undefined => numberOf(value[key]);

/** The object at `key`, or undefined. */
export const obj = (value: Json, key: string): Json | undefined => objectOf(value[key]);

function shorten(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** A problem about one line, worded `path:line: what is wrong`. */
export function lineProblem(
  path: string,
  span: LineSpan,
  kind: ProblemKind,
  what: string,
): LineProblem {
  return {
    line: span.line,
    kind,
    message: `${path}:${span.line}: ${what}`,
    start: span.start,
    end: span.end,
  };
}

/** A line parsed by {@linkcode parseJsonLine}: its object, or what is wrong with it. */
export type ParsedLine = { value: Json } | { problem: LineProblem };

/**
 * Told of each line of a file a reader parses, in the file's order, with what the parse gave:
 * for work done in the same pass (the catalog's text index), so that nothing reads or parses
 * the file again. Empty lines are not told.
 */
export type LineObserver = (line: Line, parsed: ParsedLine) => void;

/**
 * Parses a line as a JSON object, or says what is wrong with it in the words of turnlog's own
 * reader (`parseRecordLine`): a torn last line, a line that is not JSON (two objects glued on
 * one line, NUL padding), a line that is not an object. `observe` is told what it gave.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseJsonLine } from "./_line.ts";
 * const seen: number[] = [];
 * const line = { line: 3, start: 10, end: 19, text: '{"a": 1}', terminated: true };
 * const parsed = parseJsonLine("s.jsonl", line, (told) => seen.push(told.line));
 * assert.deepEqual([parsed, seen], [{ value: { a: 1 } }, [3]]);
 * ```
 */
export function parseJsonLine(
  path: string,
  line: Line,
  observe?: LineObserver,
): ParsedLine {
  const parsed = parseJsonLineAlone(path, line);
  observe?.(line, parsed);
  return parsed;
}

function parseJsonLineAlone(path: string, line: Line): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (error) {
    if (!line.terminated) {
      return {
        problem: lineProblem(
          path,
          line,
          "torn_tail",
          `torn last line (${line.text.length} characters without a final newline, not valid JSON): an append was cut off`,
        ),
      };
    }
    const reason = error instanceof Error ? error.message : String(error);
    return {
      problem: lineProblem(path, line, "malformed_json", `not valid JSON (${shorten(reason)})`),
    };
  }
  if (!isObject(value)) {
    return { problem: lineProblem(path, line, "not_an_object", "not a JSON object") };
  }
  return { value };
}

/**
 * The record `makeRecord` makes stamped `new Date(time)`, from a time the readers
 * already hold as {@linkcode isoTime} gives it (its own ISO time): without the `Date` and
 * its formatting, which cost a reader a few percent of its time when done per record.
 */
export function recordAt<T extends RecordType>(
  type: T,
  payload: Extract<SessionRecord, { type: T }>["payload"],
  time: string,
): Extract<SessionRecord, { type: T }> {
  return { timestamp: time, type, payload } as Extract<SessionRecord, { type: T }>;
}

/** An entry holding a record. */
export const recordEntry = (span: LineSpan, record: SessionRecord): ForeignEntry =>
  span.source === undefined
    ? { line: span.line, start: span.start, end: span.end, record }
    : { line: span.line, start: span.start, end: span.end, source: span.source, record };

/**
 * A record's time from a file's ISO time; the epoch when the file names none (a view shows it
 * as `no time`: see `formatTime`).
 */
export const recordTime = (time: string): Date => new Date(Date.parse(time) || 0);

/** How a turn read from another tool's file ended. */
export interface TurnEnd {
  /** The turn's run id (the tool's turn id). */
  runId: string;
  /** How it ended. */
  outcome: RunOutcome;
  /** Why it failed, for a person. */
  error?: string | undefined;
  /** Model responses in the turn. */
  rounds: number;
  /** Tokens of those responses. */
  usage: Usage;
}

/** The `run_finished` entry that closes a turn at `span`: its usage only when it had rounds. */
export function runFinishedEntry(span: LineSpan, end: TurnEnd, time: string): ForeignEntry {
  const { runId, outcome, error, rounds, usage } = end;
  return recordEntry(
    span,
    recordAt("run_finished", {
      runId,
      outcome,
      ...(error === undefined ? {} : { error }),
      rounds,
      ...(rounds > 0 ? { usage: { ...usage } } : {}),
    }, isoTime(time) ?? EPOCH), // the time `recordTime` gives, with no `Date` made
  );
}

const EPOCH = new Date(0).toISOString();

/** An entry naming something turnlog's model cannot hold (thinking: with its readable text). */
export const ignoredEntry = (span: LineSpan, kind: string, thought?: string): ForeignEntry => {
  const entry: ForeignEntry = span.source === undefined
    ? { line: span.line, start: span.start, end: span.end, ignored: kind }
    : { line: span.line, start: span.start, end: span.end, source: span.source, ignored: kind };
  if (thought !== undefined && thought.trim() !== "") entry.thought = thought;
  return entry;
};

/** An entry holding a problem. */
export const problemEntry = (problem: LineProblem): ForeignEntry => ({
  line: problem.line,
  start: problem.start,
  end: problem.end,
  problem,
});

/** Just the line number and byte range of a line. */
export const spanOf = (line: LineSpan): LineSpan => ({
  line: line.line,
  start: line.start,
  end: line.end,
});

/** Counts one more of `kind`. */
export function countKind(counts: Record<string, number>, kind: string, by = 1): void {
  counts[kind] = (counts[kind] ?? 0) + by;
}

/**
 * A time as `toISOString` writes it, on a day every month has and an hour before 24 (`Date`
 * rolls a 30 February or a 24:00 over to the next day): its own ISO time, with no `Date`.
 */
const CANONICAL_TIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** The ISO time of a timestamp string, or undefined when it is not one. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length === 0) return undefined;
  // Nearly every line's time: parsing and writing it again would give the same string.
  if (value.length === 24 && CANONICAL_TIME.test(value)) return value;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/** Keeps the earliest and latest of the times it sees. */
export class TimeSpan {
  first: string | null = null;
  last: string | null = null;
  see(value: unknown): void {
    this.seeTime(isoTime(value));
  }
  /** A time already made an ISO time by {@linkcode isoTime} (undefined: none). */
  seeTime(time: string | undefined): void {
    if (time === undefined) return;
    if (this.first === null || time < this.first) this.first = time;
    if (this.last === null || time > this.last) this.last = time;
  }
}

/** Remembers values in the order they first appear, each with its first line. */
export class FirstSeen {
  readonly #seen = new Map<string, number>();
  /** The value seen last: most lines repeat the line before's, known without a lookup. */
  #last: string | undefined;
  see(value: string | undefined, line: number): void {
    if (value === undefined || value === this.#last || value.length === 0) return;
    this.#last = value;
    if (!this.#seen.has(value)) this.#seen.set(value, line);
  }
  get values(): string[] {
    return [...this.#seen.keys()];
  }
  get entries(): { value: string; line: number }[] {
    return [...this.#seen].map(([value, line]) => ({ value, line }));
  }
}
