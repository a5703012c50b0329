/**
 * The inspector: segments a session file into turns, streaming, and gathers the facts a
 * person (or a notebook) asks about it: per-turn record counts, tool calls paired with their
 * outputs, synthesized outputs, orphans, checkpoints and every problem with its line.
 *
 * @module
 */
import { basename, dirname, resolve } from "node:path";
import {
  type Checkpoint,
  INSPECT_REPORT_VERSION,
  type InspectProblem,
  type InspectProblemKind,
  type InspectReport,
  type LineRef,
  type ListedSession,
  type OrphanCall,
  type OrphanOutput,
  type RecordCounts,
  type SessionListing,
  type SynthesizedOutput,
  type Turn,
  type TurnEntry,
} from "./_schema.ts";
import { readLines } from "../io/_lines.ts";
import { parseRecordLine, type RecordEntry } from "../record/_parse.ts";
import type { ResponseItem, SessionMeta, SessionRecord } from "../record/_schemas.ts";
import {
  findSession,
  oneLine,
  parseSessionFileName,
  readFirstUserMessage,
  resolveSessionsRoot,
  shortestUniquePrefix,
  walkSessions,
} from "../store/_store.ts";
import { shellQuote } from "../text/_shell.ts";

/** The default number of characters of each text kept in a report. */
export const DEFAULT_TEXT_LIMIT = 2000;

/** The byte range of a line, terminator included. */
export interface LineRange {
  start: number;
  end: number;
}

/** Options of {@linkcode TurnSegmenter}. */
export interface SegmenterOptions {
  /** Characters of each message, argument or output kept (the full length is recorded). */
  textLimit?: number;
  /**
   * Keep every line of each turn as an entry (`entries` of the header and of each turn), as
   * the text view shows them. Default false: then memory does not grow with the file, only
   * with its turns and its damage.
   */
  entries?: boolean;
}

/** Where a history item came from: a line of its own, or a checkpoint's replacement history. */
interface Origin extends LineRef, LineRange {
  inCheckpoint: boolean;
}

type CallEntry = Extract<TurnEntry, { kind: "function_call" }>;
type OutputEntry = Extract<TurnEntry, { kind: "function_call_output" }>;

/** A block of lines with its counts: the header or a turn. */
interface Block {
  counts: RecordCounts;
  entries?: TurnEntry[] | undefined;
}

/** A call of the current history that no output has followed yet. */
interface PendingCall {
  /** Its place in the history, so orphans come out in history order. */
  order: number;
  origin: Origin;
  callId: string;
  name: string;
  entry: CallEntry | undefined;
}

/** An output of the current history that normalization leaves out. */
interface DroppedOutput {
  origin: Origin;
  callId: string;
  toolName: string;
  reason: "orphan_output" | "duplicate_output";
  entry: OutputEntry | undefined;
}

/**
 * The verdicts of `normalizeHistory` (src/normalize.ts) on the model-visible history, reached
 * item by item without keeping the history: an output is dropped when no call with its id came before it
 * (orphan) or an earlier output already answered one (duplicate); a call is an orphan when no
 * output with its id follows it. A checkpoint starts a new history ({@linkcode reset}), so
 * what is kept is the unanswered calls and the answered call ids since the last checkpoint.
 */
class HistoryPairing {
  #order = 0;
  readonly #pending = new Map<string, PendingCall[]>();
  readonly #answered = new Set<string>();
  #dropped: DroppedOutput[] = [];

  /** A checkpoint replaced the history: nothing before it is in the history any more. */
  reset(): void {
    this.#pending.clear();
    this.#answered.clear();
    this.#dropped = [];
  }

  call(origin: Origin, call: { callId: string; name: string; entry: CallEntry | undefined }): void {
    const { callId, name, entry } = call;
    const pending: PendingCall = { order: this.#order++, origin, callId, name, entry };
    const waiting = this.#pending.get(callId);
    if (waiting) waiting.push(pending);
    else this.#pending.set(callId, [pending]);
  }

  output(
    origin: Origin,
    output: { callId: string; toolName: string; entry: OutputEntry | undefined },
  ): void {
    this.#order++;
    const { callId, toolName, entry } = output;
    // Any output answers every call with its id before it, even one normalization drops.
    const called = this.#pending.delete(callId) || this.#answered.has(callId);
    if (called && !this.#answered.has(callId)) {
      this.#answered.add(callId);
      return;
    }
    const reason = called ? "duplicate_output" : "orphan_output";
    this.#dropped.push({ origin, callId, toolName, reason, entry });
  }

  /** The verdicts on the history as it ends: orphan calls and dropped outputs, in order. */
  verdicts(): { orphans: PendingCall[]; dropped: DroppedOutput[] } {
    const orphans = [...this.#pending.values()].flat().sort((a, b) => a.order - b.order);
    return { orphans, dropped: this.#dropped };
  }
}

/** Zero counts. */
export function emptyCounts(): RecordCounts {
  return {
    session_meta: 0,
    turn_context: 0,
    message: 0,
    function_call: 0,
    function_call_output: 0,
    compaction_summary: 0,
    compaction_checkpoint: 0,
    run_finished: 0,
    problem_lines: 0,
    total: 0,
  };
}

function countColumn(record: SessionRecord): keyof RecordCounts {
  return record.type === "response_item" ? record.payload.type : record.type;
}

/** Everything the segmenter knows when the file is read, before the store is asked. */
export type SegmentedSession = Omit<InspectReport, "continueCommand" | "continuePrefix">;

/**
 * A reducer over a session file's lines in order: feed it every {@linkcode RecordEntry}
 * with its byte range, then call {@linkcode TurnSegmenter.finish}. It does no I/O, so the
 * same segmentation serves the CLI, the notebooks and the tests.
 *
 * @example
 * ```ts
 * import { TurnSegmenter } from "./_inspect.ts";
 * import { makeRecord } from "../record/_schemas.ts";
 * const segmenter = new TurnSegmenter("s.jsonl");
 * segmenter.push({
 *   line: 1,
 *   record: makeRecord("turn_context", {
 *     runId: "r1", model: "m", wireApi: "chat", policy: { approval: "auto" }, resumed: false,
 *   }),
 * }, { start: 0, end: 10 });
 * console.assert(segmenter.finish({ sizeBytes: 10 }).turns.length === 1);
 * ```
 */
export class TurnSegmenter {
  readonly path: string;
  readonly #textLimit: number;
  readonly #keepEntries: boolean;
  #meta: SessionMeta | undefined;
  #sawValidRecord = false;
  #records = 0;
  #lines = 0;
  #lastLine = 0;
  readonly #header: Block & { endLine: number };
  readonly #turns: Turn[] = [];
  readonly #problems: InspectProblem[] = [];
  readonly #checkpoints: Checkpoint[] = [];
  readonly #pairing = new HistoryPairing();
  /**
   * Calls seen in the file that no output has answered yet, by call id, paired with outputs
   * line by line (not by history): where the text view shows a call's output.
   */
  readonly #unanswered = new Map<string, { entry: CallEntry | undefined; ref: LineRef }[]>();
  readonly #synthesized: SynthesizedOutput[] = [];
  #stray: { line: number; type: string; count: number; lastLine: number } | undefined;

  constructor(path: string, options: SegmenterOptions = {}) {
    this.path = path;
    this.#textLimit = options.textLimit ?? DEFAULT_TEXT_LIMIT;
    this.#keepEntries = options.entries ?? false;
    this.#header = { endLine: 0, counts: emptyCounts() };
    if (this.#keepEntries) this.#header.entries = [];
  }

  #current(): Turn | undefined {
    return this.#turns[this.#turns.length - 1];
  }

  #block(): Block {
    return this.#current() ?? this.#header;
  }

  #turnNumber(): number | null {
    return this.#current()?.index ?? null;
  }

  #text(value: string): { text: string; chars: number } {
    return {
      // A slice would keep the whole text alive (V8 slices point into it): copy it instead.
      text: value.length > this.#textLimit
        ? (" " + value.slice(0, this.#textLimit)).slice(1)
        : value,
      chars: value.length,
    };
  }

  #problem(kind: InspectProblemKind, line: number, what: string, range?: LineRange): void {
    this.#problems.push({
      line,
      kind,
      message: `${this.path}:${line}: ${what}`,
      turn: this.#turnNumber(),
      start: range?.start ?? null,
      end: range?.end ?? null,
    });
  }

  /** Takes the next line of the file: a record or a problem, with its byte range. */
  push(entry: RecordEntry, range: LineRange): void {
    this.#lines++;
    this.#lastLine = entry.line;
    if (entry.problem) {
      const block = this.#block();
      block.counts.problem_lines++;
      block.counts.total++;
      const problem = { ...entry.problem };
      if (problem.kind === "malformed_json" && problem.message.includes("after JSON at")) {
        problem.message += " (two records on one line? a write that missed its newline)";
      }
      block.entries?.push({
        kind: "problem",
        line: problem.line,
        problem: problem.kind,
        message: problem.message,
      });
      this.#problems.push({
        line: problem.line,
        kind: problem.kind,
        message: problem.message,
        turn: this.#turnNumber(),
        start: problem.start,
        end: problem.end,
      });
      this.#touch();
      return;
    }
    const { record, line } = entry;
    this.#records++;
    const first = !this.#sawValidRecord;
    this.#sawValidRecord = true;
    if (record.type === "turn_context") {
      const turn: Turn = {
        index: this.#turns.length + 1,
        runId: record.payload.runId,
        startLine: line,
        endLine: line,
        time: record.timestamp,
        resumed: record.payload.resumed,
        model: record.payload.model,
        wireApi: record.payload.wireApi,
        policy: record.payload.policy,
        outcome: null,
        error: null,
        rounds: null,
        usage: null,
        counts: emptyCounts(),
      };
      if (this.#keepEntries) turn.entries = [];
      this.#turns.push(turn);
    }
    const block = this.#block();
    block.counts[countColumn(record)]++;
    block.counts.total++;
    this.#touch();

    if (record.type === "session_meta") {
      if (first) {
        this.#meta = record.payload;
      } else {
        this.#problem(
          "duplicate_session_meta",
          line,
          this.#meta
            ? "a second session_meta record; resume ignores it"
            : "a session_meta record after other records; resume refuses this file",
          range,
        );
        block.entries?.push({ kind: "session_meta", line });
      }
      return;
    }
    if (first) {
      this.#problem(
        "missing_session_meta",
        line,
        `the first record is ${record.type}, not session_meta: resume refuses this file`,
        range,
      );
    } else if (this.#current() === undefined) {
      // One problem for the whole run of them: a lost turn_context strands every record of
      // its turn, and one line says so better than a hundred.
      if (this.#stray) {
        this.#stray.count++;
        this.#stray.lastLine = line;
      } else {
        this.#stray = { line, type: countColumn(record), count: 1, lastLine: line };
      }
    }
    switch (record.type) {
      case "turn_context":
        return;
      case "run_finished": {
        const turn = this.#current();
        const { payload } = record;
        if (turn && turn.outcome === null) {
          turn.outcome = payload.outcome;
          turn.error = payload.error ?? null;
          turn.rounds = payload.rounds;
          turn.usage = payload.usage ?? null;
        }
        block.entries?.push({
          kind: "run_finished",
          line,
          runId: payload.runId,
          outcome: payload.outcome,
          error: payload.error ?? null,
          rounds: payload.rounds,
          usage: payload.usage ?? null,
        });
        return;
      }
      case "response_item":
        this.#item(record.payload, line, range, block);
        return;
    }
  }

  #touch(): void {
    const turn = this.#current();
    if (turn) turn.endLine = this.#lastLine;
    else this.#header.endLine = this.#lastLine;
  }

  #item(
    payload: Extract<SessionRecord, { type: "response_item" }>["payload"],
    line: number,
    range: LineRange,
    block: Block,
  ): void {
    const turn = this.#turnNumber();
    const ref: LineRef = { line, turn };
    // Only the offsets: `range` may be the whole line, text and all.
    const origin: Origin = { line, turn, start: range.start, end: range.end, inCheckpoint: false };
    const entries = block.entries;
    switch (payload.type) {
      case "message":
        entries?.push({
          kind: "message",
          line,
          role: payload.role,
          ...this.#text(payload.content),
        });
        return;
      case "compaction_summary":
        entries?.push({ kind: "compaction_summary", line, ...this.#text(payload.content) });
        return;
      case "function_call": {
        const entry: CallEntry | undefined = entries && {
          kind: "function_call",
          line,
          callId: payload.callId,
          name: payload.name,
          ...this.#text(payload.arguments),
          output: null,
          orphan: false,
        };
        this.#pairing.call(origin, { callId: payload.callId, name: payload.name, entry });
        const waiting = this.#unanswered.get(payload.callId);
        if (waiting) waiting.push({ entry, ref });
        else this.#unanswered.set(payload.callId, [{ entry, ref }]);
        if (entry) entries?.push(entry);
        return;
      }
      case "function_call_output": {
        const waiting = this.#unanswered.get(payload.callId);
        const call = waiting?.shift();
        if (waiting && waiting.length === 0) this.#unanswered.delete(payload.callId);
        if (call?.entry) call.entry.output = ref;
        const synthesized = payload.synthesized === true;
        const entry: OutputEntry | undefined = entries && {
          kind: "function_call_output",
          line,
          callId: payload.callId,
          toolName: payload.toolName,
          isError: payload.isError,
          synthesized,
          ...this.#text(payload.output),
          call: call?.ref ?? null,
          dropped: null,
        };
        this.#pairing.output(origin, { callId: payload.callId, toolName: payload.toolName, entry });
        if (synthesized) {
          this.#synthesized.push({
            line,
            turn,
            callId: payload.callId,
            toolName: payload.toolName,
            call: call?.ref ?? null,
          });
        }
        if (entry) entries?.push(entry);
        return;
      }
      case "compaction_checkpoint": {
        // From here on the history is the replacement history (as replay has it).
        this.#pairing.reset();
        const kept: Origin = { line, turn, start: range.start, end: range.end, inCheckpoint: true };
        for (const item of payload.replacementHistory) this.#replacementItem(item, kept);
        const checkpoint = {
          line,
          version: payload.version,
          reason: payload.reason,
          tokensBefore: payload.tokensBefore,
          removedItemCount: payload.removedItemCount,
          keptItemCount: payload.keptItemCount,
          replacementItemCount: payload.replacementHistory.length,
        };
        this.#checkpoints.push({ ...checkpoint, turn: ref.turn });
        entries?.push({ kind: "compaction_checkpoint", ...checkpoint });
        return;
      }
    }
  }

  #replacementItem(item: ResponseItem, origin: Origin): void {
    if (item.type === "function_call") {
      this.#pairing.call(origin, { callId: item.callId, name: item.name, entry: undefined });
    } else if (item.type === "function_call_output") {
      this.#pairing.output(origin, {
        callId: item.callId,
        toolName: item.toolName,
        entry: undefined,
      });
    }
  }

  /**
   * Ends the file and returns the report. Its orphans are the verdicts
   * `normalizeHistory` gives on the history as the file leaves it, so they are
   * exactly the calls resume would synthesize an output for and the outputs it would drop.
   */
  finish(file: { sizeBytes: number }): SegmentedSession {
    if (!this.#sawValidRecord) {
      this.#problems.push({
        line: Math.max(1, this.#lastLine),
        kind: "missing_session_meta",
        message: `${this.path}:1: ${
          this.#lines === 0 ? "empty session file" : "no line is a valid record"
        }, no session_meta record: resume refuses this file`,
        turn: null,
        start: null,
        end: null,
      });
    }
    if (this.#stray) {
      const { line, type, count, lastLine } = this.#stray;
      this.#problems.push({
        line,
        kind: "record_before_first_turn",
        message: `${this.path}:${line}: a ${type} record before the first turn_context${
          count > 1 ? ` (and ${count - 1} more, up to line ${lastLine})` : ""
        }`,
        turn: null,
        start: null,
        end: null,
      });
    }
    const { orphanCalls, orphanOutputs } = this.#orphans();
    const problems = [...this.#problems].sort((a, b) => a.line - b.line);
    const fileName = parseSessionFileName(basename(this.path), dirname(this.path));
    const meta = this.#meta;
    const totals = emptyCounts();
    for (const block of [this.#header, ...this.#turns]) {
      for (const column of Object.keys(totals) as (keyof RecordCounts)[]) {
        totals[column] += block.counts[column];
      }
    }
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
    for (const turn of this.#turns) {
      if (!turn.usage) continue;
      usage.inputTokens += turn.usage.inputTokens;
      usage.outputTokens += turn.usage.outputTokens;
      usage.totalTokens += turn.usage.totalTokens;
    }
    return {
      format: "turnlog-inspect",
      version: INSPECT_REPORT_VERSION,
      healthy: problems.length === 0 && orphanCalls.length === 0,
      session: {
        id: meta?.id ?? fileName?.id ?? null,
        path: this.path,
        sizeBytes: file.sizeBytes,
        records: this.#records,
        lines: this.#lines,
        created: meta?.createdAt ?? fileName?.createdAt ?? null,
        cwd: meta?.cwd ?? null,
        modelProvider: meta?.modelProvider ?? null,
        model: meta?.model ?? null,
        wireApi: meta?.wireApi ?? null,
        policy: meta?.policy ?? null,
        formatVersion: meta?.version ?? null,
      },
      header: this.#header,
      turns: this.#turns,
      totals: {
        turns: this.#turns.length,
        unfinishedTurns: this.#turns.filter((turn) => turn.outcome === null).length,
        resumedTurns: this.#turns.filter((turn) => turn.resumed).length,
        counts: totals,
        usage,
      },
      synthesizedOutputs: this.#synthesized,
      orphanCalls,
      orphanOutputs,
      checkpoints: this.#checkpoints,
      problems,
    };
  }

  #orphans(): { orphanCalls: OrphanCall[]; orphanOutputs: OrphanOutput[] } {
    const { orphans, dropped } = this.#pairing.verdicts();
    const orphanCalls = orphans.map(({ origin, callId, name, entry }): OrphanCall => {
      if (entry) entry.orphan = true;
      return {
        line: origin.line,
        turn: origin.turn,
        callId,
        name,
        inCheckpoint: origin.inCheckpoint,
      };
    });
    const orphanOutputs = dropped.map(({ origin, callId, toolName, reason, entry }) => {
      if (entry) entry.dropped = reason;
      const what = reason === "orphan_output"
        ? `output for call ${callId} (${toolName}) has no call before it`
        : `a second output for call ${callId} (${toolName})`;
      this.#problems.push({
        line: origin.line,
        kind: reason,
        message: `${this.path}:${origin.line}: ${what}${
          origin.inCheckpoint ? " (in the checkpoint's replacement history)" : ""
        }: resume drops it`,
        turn: origin.turn,
        start: origin.inCheckpoint ? null : origin.start,
        end: origin.inCheckpoint ? null : origin.end,
      });
      return {
        line: origin.line,
        turn: origin.turn,
        callId,
        toolName,
        reason,
        inCheckpoint: origin.inCheckpoint,
      } satisfies OrphanOutput;
    });
    return { orphanCalls, orphanOutputs };
  }
}

/** Options of {@linkcode inspectSession}. */
export interface InspectOptions extends SegmenterOptions {
  /**
   * The sessions root the continue command should use; absent: the root the file's own
   * path implies (`<root>/YYYY/MM/DD/<file>`), when that root finds it.
   */
  root?: string | undefined;
}

/**
 * Segments the session file at `path`, streaming, without changing it, and works out the
 * command that continues it.
 *
 * @throws {Deno.errors.NotFound} when there is no such file
 */
export async function inspectSession(
  path: string,
  options: InspectOptions = {},
): Promise<InspectReport> {
  const info = await Deno.stat(path);
  if (!info.isFile) throw new NotAFileError(path);
  const segmenter = new TurnSegmenter(path, options);
  for await (const line of readLines(path)) {
    if (line.text.length === 0 && line.terminated) continue;
    segmenter.push(parseRecordLine(path, line), line);
  }
  const segmented = segmenter.finish({ sizeBytes: info.size });
  const continued = segmented.session.id === null
    ? undefined
    : await continueCommandFor(path, segmented.session.id, options.root);
  return {
    ...segmented,
    continueCommand: continued?.command ?? null,
    continuePrefix: continued?.prefix ?? null,
  };
}

/**
 * The text of `JSON.stringify(report, null, 2)`, in pieces: one per top-level field and one
 * per turn, so a report with every line's entry is never one string of the whole document.
 *
 * @example
 * ```ts ignore
 * for (const piece of reportJsonPieces(report)) await write(piece);
 * ```
 */
export function* reportJsonPieces(report: InspectReport): Generator<string> {
  const nested = (value: unknown, indent: string) =>
    JSON.stringify(value, null, 2).replaceAll("\n", `\n${indent}`);
  const fields = Object.entries(report).filter(([, value]) => value !== undefined);
  yield "{";
  for (const [index, [key, value]] of fields.entries()) {
    yield `${index === 0 ? "" : ","}\n  ${JSON.stringify(key)}: `;
    if (Array.isArray(value) && value.length > 0) {
      for (const [i, item] of value.entries()) {
        yield `${i === 0 ? "[" : ","}\n    ${nested(item, "    ")}`;
      }
      yield "\n  ]";
    } else {
      yield nested(value, "  ");
    }
  }
  yield fields.length === 0 ? "}" : "\n}";
}

/** A path that exists but is not a regular file. */
export class NotAFileError extends Error {
  constructor(path: string, options?: ErrorOptions) {
    super(`Not a session file: ${path} is a directory or another special file`, options);
    this.name = "NotAFileError";
  }
}

/**
 * The sessions root a session file's path implies: `<root>/YYYY/MM/DD/<time>-<id>.jsonl`,
 * or undefined when the path does not have that shape.
 */
export function impliedSessionsRoot(path: string): string | undefined {
  const location = parseSessionFileName(basename(path), dirname(path));
  if (!location) return undefined;
  const day = dirname(path);
  const [y, m, d] = location.createdAt.slice(0, 10).split("-");
  if (basename(day) !== d || basename(dirname(day)) !== m) return undefined;
  if (basename(dirname(dirname(day))) !== y) return undefined;
  return dirname(dirname(dirname(day)));
}

/**
 * The command that continues a session, or undefined when its file is not where the store
 * would find it by id.
 */
export async function continueCommandFor(
  path: string,
  id: string,
  root?: string,
): Promise<{ command: string; prefix: string } | undefined> {
  const store = root ?? impliedSessionsRoot(path);
  if (store === undefined) return undefined;
  try {
    const found = await findSession(store, id);
    if (resolve(found.path) !== resolve(path)) return undefined;
    const prefix = await shortestUniquePrefix(store, id);
    const usual = resolve(resolveSessionsRoot()) === resolve(store);
    const flag = usual ? "" : ` --sessions-dir ${shellQuote(store)}`;
    return { command: `./denow task resume${flag} --session ${prefix} "<your message>"`, prefix };
  } catch {
    // An id the store cannot look up (not a plain id, or gone meanwhile): no command.
    return undefined;
  }
}

/** What a fast byte scan of a session file counts, without validating anything. */
export interface ScanCounts {
  sizeBytes: number;
  /** Non-empty lines. */
  records: number;
  /** Lines holding `"type":"turn_context"`. */
  turns: number;
}

const TURN_MARK = new TextEncoder().encode('"type":"turn_context"');

/**
 * Counts the non-empty lines and the `turn_context` records of a file by scanning its bytes
 * in chunks, with no JSON parsing. A record's own `"type"` is the only place the marker can
 * appear unescaped: inside a string, JSON escapes its quotes.
 */
export async function scanSessionFile(path: string, chunkSize = 1 << 20): Promise<ScanCounts> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(chunkSize + TURN_MARK.length);
  let carry = 0;
  let sizeBytes = 0;
  let records = 0;
  let turns = 0;
  let lineHasBytes = false;
  let lineHasTurn = false;
  while (true) {
    const read = await file.read(buffer.subarray(carry, carry + chunkSize));
    if (read === null) break;
    sizeBytes += read;
    const length = carry + read;
    const bytes = buffer.subarray(0, length);
    for (let i = carry; i < length; i++) {
      const byte = bytes[i]!;
      if (byte === 10) {
        if (lineHasBytes) records++;
        if (lineHasTurn) turns++;
        lineHasBytes = false;
        lineHasTurn = false;
        continue;
      }
      if (byte !== 13) lineHasBytes = true;
      if (byte === 0x22 && !lineHasTurn && i + 1 >= TURN_MARK.length) {
        const from = i + 1 - TURN_MARK.length;
        if (bytes[from] === 0x22 && matchesAt(bytes, from)) lineHasTurn = true;
      }
    }
    // Keep the tail, so a marker split across two chunks is still seen; a newline in it
    // resets nothing because only bytes after `carry` are counted.
    carry = Math.min(TURN_MARK.length - 1, length);
    buffer.copyWithin(0, length - carry, length);
  }
  if (lineHasBytes) records++;
  if (lineHasTurn) turns++;
  return { sizeBytes, records, turns };
}

function matchesAt(bytes: Uint8Array, from: number): boolean {
  for (let j = 0; j < TURN_MARK.length; j++) {
    if (bytes[from + j] !== TURN_MARK[j]) return false;
  }
  return true;
}

/**
 * Lists the newest `limit` sessions of a store: ids and times from file names, counts from a
 * byte scan and the first user message from the head, only for the sessions listed.
 */
export async function listSessionsDetailed(
  root: string,
  options: { limit?: number } = {},
): Promise<SessionListing> {
  const limit = options.limit ?? 25;
  const sessions: ListedSession[] = [];
  let more = false;
  for await (const location of walkSessions(root)) {
    if (sessions.length >= limit) {
      more = true;
      break;
    }
    const counts = await scanSessionFile(location.path);
    const first = await readFirstUserMessage(location.path);
    sessions.push({
      id: location.id,
      shortId: await shortestUniquePrefix(root, location.id),
      created: location.createdAt,
      path: location.path,
      sizeBytes: counts.sizeBytes,
      turns: counts.turns,
      records: counts.records,
      firstUserMessage: first === undefined ? null : oneLine(first, 500),
    });
  }
  return { format: "turnlog-sessions", version: INSPECT_REPORT_VERSION, root, sessions, more };
}
