/**
 * The turn segmenter: a reducer over a session file's lines in order. It opens a turn at every
 * `turn_context`, counts each turn's records, pairs calls with outputs, follows checkpoints,
 * and collects every problem with its line. It does no I/O, so the same segmentation serves
 * the CLI, the notebooks and the tests.
 *
 * @module
 */
import { basename, dirname } from "../_path.ts";
import { parseSessionFileName } from "../store/_layout.ts";
import type {
  CompactionCheckpoint,
  RecordEntry,
  ResponseItem,
  ResponseItemPayload,
  RunFinished,
  SessionMeta,
  SessionRecord,
} from "../record/mod.ts";
import type { SessionState } from "../formats/mod.ts";
import {
  type CallEntry,
  HistoryPairing,
  LinePairing,
  type LineRange,
  type Origin,
  type OutputEntry,
  type PendingCall,
} from "./_pairing.ts";
import {
  countColumn,
  droppedOutputs,
  emptyCounts,
  fileProblems,
  newTurn,
  orphanCalls,
  sessionFacts,
  type Stray,
  totalsOf,
} from "./_report.ts";
import {
  type Checkpoint,
  type Header,
  INSPECT_REPORT_VERSION,
  type InspectProblem,
  type InspectProblemKind,
  type InspectReport,
  type RecordCounts,
  type SegmenterOptions,
  type SynthesizedOutput,
  type Turn,
  type TurnEntry,
} from "./_types.ts";

import { isHealthy, withVerdict } from "./_verdict.ts";

/** The default number of characters of each text kept in a report. */
export const DEFAULT_TEXT_LIMIT = 2000;

export type { SegmenterOptions } from "./_types.ts";

/** Everything the segmenter knows when the file is read, before the store is asked. */
export type SegmentedSession = Omit<InspectReport, "continueCommand" | "continuePrefix">;

/** A block of lines with its counts: the header or a turn. */
type Block = Header | Turn;

/** What the file is, when the caller knows it (another tool's file: from its adapter). */
export interface FileFacts {
  /** The file's size in bytes. */
  sizeBytes: number;
  /** `empty` and `metadata-only` files hold no conversation, which is no problem. */
  state?: SessionState;
}

/**
 * A reducer over a session file's lines in order: feed it every {@linkcode RecordEntry}
 * with its byte range, then call {@linkcode TurnSegmenter.finish}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TurnSegmenter } from "./mod.ts";
 * import { makeRecord } from "../record/mod.ts";
 * const segmenter = new TurnSegmenter("s.jsonl");
 * segmenter.push({
 *   line: 1,
 *   record: makeRecord("turn_context", {
 *     runId: "r1", model: "m", wireApi: "chat", policy: { approval: "auto" }, resumed: false,
 *   }),
 * }, { start: 0, end: 10 });
 * assert.deepEqual(segmenter.finish({ sizeBytes: 10 }).turns.length, 1);
 * ```
 */
export class TurnSegmenter {
  /** The session file's path, for problem messages. */
  readonly path: string;
  readonly #textLimit: number;
  readonly #callTextLimit: number;
  readonly #keepEntries: boolean;
  #meta: SessionMeta | undefined;
  #sawValidRecord = false;
  #records = 0;
  #lines = 0;
  #lastLine = 0;
  #firstPrompt: string | null = null;
  #updated: string | null = null;
  readonly #models = new Set<string>();
  readonly #header: Header;
  readonly #turns: Turn[] = [];
  readonly #problems: InspectProblem[] = [];
  readonly #checkpoints: Checkpoint[] = [];
  #pairing = new HistoryPairing();
  #lineCalls = new LinePairing();
  readonly #options: SegmenterOptions;
  readonly #synthesized: SynthesizedOutput[] = [];
  readonly #onBlock: SegmenterOptions["onBlock"];
  readonly #onLaterOutput: SegmenterOptions["onLaterOutput"];
  #stray: Stray | undefined;
  /** The entries the last report marked, unmarked by the next one. */
  #markedCalls: CallEntry[] = [];
  #markedOutputs: OutputEntry[] = [];

  /** A segmenter of the file at `path` (only named in messages; nothing is read). */
  constructor(path: string, options: SegmenterOptions = {}) {
    this.path = path;
    this.#options = options;
    this.#textLimit = options.textLimit ?? DEFAULT_TEXT_LIMIT;
    this.#callTextLimit = Math.max(this.#textLimit, options.callTextLimit ?? 0);
    this.#keepEntries = options.entries ?? false;
    this.#onBlock = options.onBlock;
    this.#onLaterOutput = options.onLaterOutput;
    this.#header = { endLine: 0, counts: emptyCounts(), ignored: {} };
    if (this.#keepEntries) this.#header.entries = [];
  }

  /**
   * A segmenter that goes on from where this one is, this one left as is: a followed file's
   * entries that may still change go to a clone, those that cannot to the original. What
   * the clone changes is copied first (the last block, the pairings); the rest is shared,
   * so the marks a report puts on shared entries (orphan calls, dropped outputs) are taken
   * off by the next report of a clone given `reported`, the last segmenter that reported.
   */
  clone(reported: TurnSegmenter = this): TurnSegmenter {
    // Every field is copied: one added to the class is added here.
    const copy = new TurnSegmenter(this.path, this.#options);
    copy.#meta = this.#meta;
    copy.#sawValidRecord = this.#sawValidRecord;
    copy.#records = this.#records;
    copy.#lines = this.#lines;
    copy.#lastLine = this.#lastLine;
    copy.#firstPrompt = this.#firstPrompt;
    copy.#updated = this.#updated;
    for (const model of this.#models) copy.#models.add(model);
    Object.assign(copy.#header, blockCopy(this.#header));
    const last = this.#turns.length - 1;
    this.#turns.forEach((turn, at) => copy.#turns.push(at === last ? blockCopy(turn) : turn));
    copy.#problems.push(...this.#problems);
    copy.#checkpoints.push(...this.#checkpoints);
    copy.#pairing = this.#pairing.clone();
    copy.#lineCalls = this.#lineCalls.clone();
    copy.#synthesized.push(...this.#synthesized);
    copy.#stray = this.#stray && { ...this.#stray };
    copy.#markedCalls = [...reported.#markedCalls];
    copy.#markedOutputs = [...reported.#markedOutputs];
    return copy;
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

  #entry(entry: TurnEntry): void {
    this.#block().entries?.push(entry);
  }

  #text(value: string, limit = this.#textLimit): { text: string; chars: number } {
    return {
      // A slice would keep the whole text alive (V8 slices point into it): copy it instead.
      text: value.length > limit ? (" " + value.slice(0, limit)).slice(1) : value,
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

  #count(column: keyof RecordCounts): void {
    const block = this.#block();
    block.counts[column]++;
    block.counts.total++;
    block.endLine = Math.max(block.endLine, this.#lastLine);
  }

  /** Another tool's line can give several entries: a line is counted once. */
  #see(line: number): void {
    if (line !== this.#lastLine) this.#lines++;
    this.#lastLine = line;
  }

  /**
   * Takes the next entry of the file: a record or a problem, with its line's byte range.
   * Several records of one line (another tool's) come one after the other.
   */
  push(entry: RecordEntry, range: LineRange): void {
    this.#see(entry.line);
    if (entry.problem) this.#badLine(entry.problem);
    else this.#record(entry.record, entry.line, range);
  }

  /**
   * Takes something of another tool's file that turnlog's model cannot hold (`reasoning`,
   * `thinking`, `image`...): counted in its turn, and shown with the ignored things of the
   * lines right before it; readable thinking (`thought`) is an entry of its own, with its text.
   */
  ignore(line: number, kind: string, thought?: string): void {
    this.#see(line);
    this.#count("ignored");
    const block = this.#block();
    block.ignored[kind] = (block.ignored[kind] ?? 0) + 1;
    // Without entries that is all: no entry made to be dropped (a file has tens of thousands).
    if (block.entries === undefined) return;
    if (thought !== undefined) {
      // Readable thinking is shown where it was written: an entry of its own.
      const entry = { kind: "ignored", line, lastLine: line, kinds: { [kind]: 1 } } as const;
      return this.#entry({ ...entry, ...this.#text(thought) });
    }
    const last = block.entries.at(-1);
    if (last?.kind === "ignored" && last.text === undefined) {
      last.lastLine = Math.max(last.lastLine, line);
      last.kinds[kind] = (last.kinds[kind] ?? 0) + 1;
    } else this.#entry({ kind: "ignored", line, lastLine: line, kinds: { [kind]: 1 } });
  }

  #badLine(problem: NonNullable<RecordEntry["problem"]>): void {
    this.#count("problem_lines");
    let message = problem.message;
    if (problem.kind === "malformed_json" && message.includes("after JSON at")) {
      message += " (two records on one line? a write that missed its newline)";
    }
    this.#entry({ kind: "problem", line: problem.line, problem: problem.kind, message });
    const { line, kind, start, end } = problem;
    this.#problems.push({ line, kind, message, turn: this.#turnNumber(), start, end });
  }

  #record(record: SessionRecord, line: number, range: LineRange): void {
    this.#records++;
    if (this.#updated === null || record.timestamp > this.#updated) {
      this.#updated = record.timestamp;
    }
    const first = !this.#sawValidRecord;
    this.#sawValidRecord = true;
    if (record.type === "turn_context") {
      this.#onBlock?.(this.#block());
      const turn = newTurn(this.#turns.length + 1, line, record);
      if (this.#keepEntries) turn.entries = [];
      this.#turns.push(turn);
      this.#models.add(record.payload.model);
    }
    this.#count(countColumn(record));
    if (record.type === "session_meta") {
      return this.#sessionMeta(record.payload, first, line, range);
    }
    if (first) {
      this.#problem(
        "missing_session_meta",
        line,
        `the first record is ${record.type}, not session_meta: resume refuses this file`,
        range,
      );
    } else if (this.#current() === undefined) {
      this.#strayRecord(countColumn(record), line);
    }
    if (record.type === "run_finished") this.#runFinished(record.payload, line);
    if (record.type === "response_item") this.#item(record.payload, line, range);
  }

  #sessionMeta(meta: SessionMeta, first: boolean, line: number, range: LineRange): void {
    if (first) {
      this.#meta = meta;
      const named = parseSessionFileName(basename(this.path), dirname(this.path))?.id;
      if (named !== undefined && named !== meta.id) {
        this.#problem(
          "id_mismatch",
          line,
          `session_meta names the session ${JSON.stringify(meta.id)}, but the file name says ` +
            `${JSON.stringify(named)}: resume refuses this file (copied or renamed by hand?)`,
          range,
        );
      }
      return;
    }
    this.#problem(
      "duplicate_session_meta",
      line,
      this.#meta
        ? "a second session_meta record; resume ignores it"
        : "a session_meta record after other records; resume refuses this file",
      range,
    );
    this.#entry({ kind: "session_meta", line });
  }

  /**
   * One problem for a whole run of records before the first turn: a lost turn_context strands
   * every record of its turn, and one line says so better than a hundred.
   */
  #strayRecord(type: string, line: number): void {
    if (this.#stray) {
      this.#stray.count++;
      this.#stray.lastLine = line;
    } else {
      this.#stray = { line, type, count: 1, lastLine: line };
    }
  }

  #runFinished(payload: RunFinished, line: number): void {
    const turn = this.#current();
    if (turn && turn.outcome === null) {
      turn.outcome = payload.outcome;
      turn.error = payload.error ?? null;
      turn.rounds = payload.rounds;
      turn.usage = payload.usage ?? null;
    }
    if (this.#block().entries === undefined) return;
    this.#entry({
      kind: "run_finished",
      line,
      runId: payload.runId,
      outcome: payload.outcome,
      error: payload.error ?? null,
      rounds: payload.rounds,
      usage: payload.usage ?? null,
    });
  }

  #item(payload: ResponseItemPayload, line: number, range: LineRange): void {
    // Without entries a text is copied only for the first prompt: a large file's report stays
    // small, and no copy is made per message.
    const keep = this.#block().entries !== undefined;
    switch (payload.type) {
      case "message":
        if (payload.role === "user") this.#firstPrompt ??= this.#text(payload.content).text;
        if (!keep) return;
        return this.#entry({
          kind: "message",
          line,
          role: payload.role,
          ...this.#text(payload.content),
        });
      case "compaction_summary":
        if (!keep) return;
        return this.#entry({ kind: "compaction_summary", line, ...this.#text(payload.content) });
      case "function_call":
        return this.#call(payload, line, range);
      case "function_call_output":
        return this.#output(payload, line, range);
      case "compaction_checkpoint":
        return this.#checkpoint(payload, {
          line,
          turn: this.#turnNumber(),
          start: range.start,
          end: range.end,
          inCheckpoint: false,
        });
    }
  }

  #call(
    payload: Extract<ResponseItem, { type: "function_call" }>,
    line: number,
    range: LineRange,
  ): void {
    const { callId, name } = payload;
    const entry: CallEntry | undefined = this.#block().entries && {
      kind: "function_call",
      line,
      callId,
      name,
      ...this.#text(payload.arguments, this.#callTextLimit),
      output: null,
      orphan: false,
    };
    // One object a call, both pairings keep it: only the offsets of `range` (it may be the
    // whole line, text and all).
    const call: PendingCall = {
      line,
      turn: this.#turnNumber(),
      start: range.start,
      end: range.end,
      inCheckpoint: false,
      order: 0,
      callId,
      name,
      entry,
    };
    this.#pairing.call(call);
    this.#lineCalls.call(call);
    if (entry) this.#entry(entry);
  }

  #output(
    payload: Extract<ResponseItem, { type: "function_call_output" }>,
    line: number,
    range: LineRange,
  ): void {
    const turn = this.#turnNumber();
    const { callId, toolName } = payload;
    const answered = this.#lineCalls.output(callId, line, turn);
    if (answered !== undefined && answered.turn !== turn) {
      this.#onLaterOutput?.(answered.line, { line, turn });
    }
    const synthesized = payload.synthesized === true;
    const block = this.#block();
    // Where the call is, as the report says it: made only for an entry or a synthesized output.
    const call = answered === undefined || (block.entries === undefined && !synthesized)
      ? null
      : { line: answered.line, turn: answered.turn };
    const entry: OutputEntry | undefined = block.entries && {
      kind: "function_call_output",
      line,
      callId,
      toolName,
      isError: payload.isError,
      synthesized,
      ...this.#text(shownOutput(payload.output)),
      call,
      dropped: null,
    };
    const { start, end } = range;
    this.#pairing.output({ line, turn, start, end, inCheckpoint: false, callId, toolName, entry });
    if (synthesized) {
      this.#synthesized.push({
        line,
        turn,
        callId: payload.callId,
        toolName: payload.toolName,
        call,
      });
    }
    if (entry) this.#entry(entry);
  }

  #checkpoint(payload: CompactionCheckpoint, origin: Origin): void {
    this.#pairing.restart(payload.replacementHistory, origin);
    const checkpoint = {
      line: origin.line,
      version: payload.version,
      reason: payload.reason,
      tokensBefore: payload.tokensBefore,
      removedItemCount: payload.removedItemCount,
      keptItemCount: payload.keptItemCount,
      replacementItemCount: payload.replacementHistory.length,
    };
    this.#checkpoints.push({ ...checkpoint, turn: origin.turn });
    this.#entry({ kind: "compaction_checkpoint", ...checkpoint });
  }

  /**
   * Ends the file and returns the report. Its orphans are the verdicts `normalizeHistory`
   * gives on the history as the file leaves it, so they are exactly the calls resume would
   * synthesize an output for and the outputs it would drop.
   */
  finish(file: FileFacts): SegmentedSession {
    this.#onBlock?.(this.#block());
    return this.report(file);
  }

  /**
   * The report of the lines taken so far, as {@linkcode TurnSegmenter.finish} gives it, with
   * the segmenter left able to take more (a live page's reading goes on from where it
   * stopped). The entries the previous report marked (orphan calls, dropped outputs) are
   * unmarked first: an output that came since answers its call.
   */
  report(file: FileFacts): SegmentedSession {
    for (const entry of this.#markedCalls) entry.orphan = false;
    for (const entry of this.#markedOutputs) entry.dropped = null;
    const conversation = (file.state ?? "records") === "records";
    const found = [
      ...this.#problems,
      ...fileProblems(this.path, {
        noRecord: conversation && !this.#sawValidRecord,
        lines: this.#lines,
        lastLine: this.#lastLine,
        stray: this.#stray,
      }),
    ];
    const { orphans, dropped } = this.#pairing.verdicts();
    const calls = orphanCalls(orphans);
    const outputs = droppedOutputs(this.path, dropped, found);
    this.#markedCalls = orphans.flatMap((call) => call.entry ?? []);
    this.#markedOutputs = dropped.flatMap((output) => output.entry ?? []);
    const problems = found.sort((a, b) => a.line - b.line);
    const totals = totalsOf(this.#header, this.#turns);
    return withVerdict({
      format: "turnlog-inspect",
      version: INSPECT_REPORT_VERSION,
      healthy: isHealthy({ problems, orphanCalls: calls }),
      session: sessionFacts(this.path, this.#meta, {
        sizeBytes: file.sizeBytes,
        records: this.#records,
        lines: this.#lines,
        state: file.state ?? (this.#lines === 0 ? "empty" : "records"),
        firstPrompt: this.#firstPrompt,
        models: [...this.#models],
        updated: this.#updated,
        usage: totals.usage,
      }),
      header: this.#header,
      turns: [...this.#turns],
      totals,
      synthesizedOutputs: [...this.#synthesized],
      orphanCalls: calls,
      orphanOutputs: outputs,
      checkpoints: [...this.#checkpoints],
      forks: [],
      subagents: [],
      problems,
    });
  }
}

/** A block as the next entries may change it: its counts, kinds and entries copied. */
function blockCopy<T extends Block>(block: T): T {
  const copy = { ...block, counts: { ...block.counts }, ignored: { ...block.ignored } };
  if (block.entries !== undefined) {
    copy.entries = [...block.entries];
    const last = copy.entries.at(-1);
    // An ignored entry takes the ignored things of the lines right after it.
    if (last?.kind === "ignored") {
      copy.entries[copy.entries.length - 1] = { ...last, kinds: { ...last.kinds } };
    }
  }
  return copy;
}

/**
 * An output as a person reads it: a tool's result wrapped in JSON with its metadata (Codex's
 * `apply_patch`: `{"output":"Success. Updated ...\n","metadata":{"exit_code":0}}`) is its
 * text, newlines and all; any other output as it is. The history keeps the wrapped text: it is
 * what the model was sent.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { shownOutput } from "./_segmenter.ts";
 * const wrapped = JSON.stringify({ output: "Done\nM a.ts\n", metadata: { exit_code: 0 } });
 * assert.equal(shownOutput(wrapped), "Done\nM a.ts\n");
 * assert.equal(shownOutput('{"ok":true}'), '{"ok":true}');
 * ```
 */
export function shownOutput(output: string): string {
  if (!output.startsWith('{"output":')) return output;
  try {
    const value = JSON.parse(output);
    return typeof value.output === "string" && typeof value.metadata === "object"
      ? value.output
      : output;
  } catch {
    return output;
  }
}
