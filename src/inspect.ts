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
} from "./inspect_schema.ts";
import { readLines } from "./lines.ts";
import { normalizeHistory } from "./normalize.ts";
import { parseRecordLine, type RecordEntry } from "./reader.ts";
import type { ResponseItem, SessionMeta, SessionRecord } from "./records.ts";
import { replayRecord } from "./replay.ts";
import {
  findSession,
  oneLine,
  parseSessionFileName,
  readFirstUserMessage,
  resolveSessionsRoot,
  shortestUniquePrefix,
  walkSessions,
} from "./store.ts";
import { shellQuote } from "./shell.ts";

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
  entries: TurnEntry[];
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
 * import { TurnSegmenter } from "./inspect.ts";
 * import { makeRecord } from "./records.ts";
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
  #meta: SessionMeta | undefined;
  #sawValidRecord = false;
  #records = 0;
  #lines = 0;
  #lastLine = 0;
  readonly #header: Block & { endLine: number } = {
    endLine: 0,
    counts: emptyCounts(),
    entries: [],
  };
  readonly #turns: Turn[] = [];
  readonly #problems: InspectProblem[] = [];
  readonly #checkpoints: Checkpoint[] = [];
  readonly #replayed: ResponseItem[] = [];
  readonly #origins = new Map<ResponseItem, Origin>();
  readonly #callEntries = new Map<ResponseItem, CallEntry>();
  readonly #outputEntries = new Map<ResponseItem, OutputEntry>();
  /** Calls seen in the file that no output has answered yet, by call id. */
  readonly #unanswered = new Map<string, { entry: CallEntry; ref: LineRef }[]>();
  readonly #synthesized: SynthesizedOutput[] = [];
  #stray: { line: number; type: string; count: number; lastLine: number } | undefined;

  constructor(path: string, options: SegmenterOptions = {}) {
    this.path = path;
    this.#textLimit = options.textLimit ?? DEFAULT_TEXT_LIMIT;
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
      text: value.length > this.#textLimit ? value.slice(0, this.#textLimit) : value,
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
      block.entries.push({
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
      this.#turns.push({
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
        entries: [],
      });
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
        block.entries.push({ kind: "session_meta", line });
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
    replayRecord(this.#replayed, record);
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
        block.entries.push({
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
    const ref: LineRef = { line, turn: this.#turnNumber() };
    switch (payload.type) {
      case "message":
        this.#origins.set(payload, { ...ref, ...range, inCheckpoint: false });
        block.entries.push({
          kind: "message",
          line,
          role: payload.role,
          ...this.#text(payload.content),
        });
        return;
      case "compaction_summary":
        this.#origins.set(payload, { ...ref, ...range, inCheckpoint: false });
        block.entries.push({ kind: "compaction_summary", line, ...this.#text(payload.content) });
        return;
      case "function_call": {
        this.#origins.set(payload, { ...ref, ...range, inCheckpoint: false });
        const entry: CallEntry = {
          kind: "function_call",
          line,
          callId: payload.callId,
          name: payload.name,
          ...this.#text(payload.arguments),
          output: null,
          orphan: false,
        };
        this.#callEntries.set(payload, entry);
        const waiting = this.#unanswered.get(payload.callId) ?? [];
        waiting.push({ entry, ref });
        this.#unanswered.set(payload.callId, waiting);
        block.entries.push(entry);
        return;
      }
      case "function_call_output": {
        this.#origins.set(payload, { ...ref, ...range, inCheckpoint: false });
        const waiting = this.#unanswered.get(payload.callId);
        const call = waiting?.shift();
        if (waiting && waiting.length === 0) this.#unanswered.delete(payload.callId);
        if (call) call.entry.output = ref;
        const entry: OutputEntry = {
          kind: "function_call_output",
          line,
          callId: payload.callId,
          toolName: payload.toolName,
          isError: payload.isError,
          synthesized: payload.synthesized === true,
          ...this.#text(payload.output),
          call: call?.ref ?? null,
          dropped: null,
        };
        this.#outputEntries.set(payload, entry);
        if (entry.synthesized) {
          this.#synthesized.push({
            ...ref,
            callId: payload.callId,
            toolName: payload.toolName,
            call: entry.call,
          });
        }
        block.entries.push(entry);
        return;
      }
      case "compaction_checkpoint": {
        for (const item of payload.replacementHistory) {
          this.#origins.set(item, { ...ref, ...range, inCheckpoint: true });
        }
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
        block.entries.push({ kind: "compaction_checkpoint", ...checkpoint });
        return;
      }
    }
  }

  /**
   * Ends the file: pairs what resume would pair (through {@linkcode normalizeHistory}, so
   * the orphans reported are exactly the ones resume would repair or drop) and returns the
   * report.
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
    const { history, synthesized, dropped } = normalizeHistory(this.#replayed);
    const orphanCalls: OrphanCall[] = [];
    const made = new Set<ResponseItem>(synthesized);
    for (let i = 1; i < history.length; i++) {
      if (!made.has(history[i]!)) continue;
      // normalizeHistory puts a synthesized output right after its call.
      const call = history[i - 1]!;
      const origin = this.#origins.get(call);
      if (call.type !== "function_call" || !origin) continue;
      const entry = this.#callEntries.get(call);
      if (entry) entry.orphan = true;
      orphanCalls.push({
        line: origin.line,
        turn: origin.turn,
        callId: call.callId,
        name: call.name,
        inCheckpoint: origin.inCheckpoint,
      });
    }
    const orphanOutputs: OrphanOutput[] = [];
    for (const { item, reason } of dropped) {
      const origin = this.#origins.get(item);
      if (!origin) continue;
      const entry = this.#outputEntries.get(item);
      if (entry) entry.dropped = reason;
      orphanOutputs.push({
        line: origin.line,
        turn: origin.turn,
        callId: item.callId,
        toolName: item.toolName,
        reason,
        inCheckpoint: origin.inCheckpoint,
      });
      const what = reason === "orphan_output"
        ? `output for call ${item.callId} (${item.toolName}) has no call before it`
        : `a second output for call ${item.callId} (${item.toolName})`;
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
    }
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
