/**
 * The turn bookkeeping of a Codex rollout: where a turn starts and ends, which entries wait
 * until that is known, and the `session_meta`, `turn_context` and `run_finished` records that
 * stand for Codex's own markers. Pure: it is fed entries and returns them in order.
 *
 * @module
 */
import type { ImportedFrom } from "../../record/mod.ts";
import { FORMAT_VERSION } from "../../record/mod.ts";
import type { ApprovalMode } from "../../record/mod.ts";
import { recordAt, recordEntry, runFinishedEntry } from "../_line.ts";
import type { ForeignEntry, LineSpan } from "../_types.ts";

/** What the synthesized `session_meta` holds. */
export interface CodexMetaInput {
  id: string;
  createdAt: string;
  cwd: string;
  modelProvider: string;
  span: LineSpan;
  /** Where an exported rollout came from (its `turnlog_exported_from`). */
  importedFrom?: ImportedFrom | undefined;
}

/** The token usage of a turn, as `run_finished` records it. */
export interface TurnUsage {
  rounds: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

interface OpenTurn {
  id: string;
}

interface Starting {
  turnId: string | undefined;
  span: LineSpan;
}

/**
 * Orders a rollout's entries into turns. A turn is open once its `turn_context` record is
 * out. Messages that are not the model's (user, developer) wait in a buffer while it is not
 * yet known whether they open the next turn: re-injected context after a crash belongs to the
 * turn it precedes, a developer message between a call and its output to the running one.
 */
export class CodexTurns {
  /** Entries ready, in order; the reader drains it. */
  out: ForeignEntry[] = [];
  turns = 0;
  #meta: CodexMetaInput | undefined;
  #metaOut = false;
  #turn: OpenTurn | undefined;
  #starting: Starting | undefined;
  #buffer: ForeignEntry[] = [];
  #usage: TurnUsage = { rounds: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  model = "unknown";
  approval: ApprovalMode = "ask-changes";
  /**
   * Whether a turn's end is read from its last output, for a file without task events (an old
   * Codex's, a trimmed one): a turn that ends on the model's answer, no call waiting, finished.
   * The reader turns it off at the first task event: then `task_complete` says it.
   */
  inferEnds = true;
  /** The open turn's last answer, while no call follows it. */
  #answer: LineSpan | undefined;
  /** The open turn's calls without an output yet. */
  readonly #calls = new Set<string>();
  /**
   * The time stamped on synthesized records: the latest the file gave, as `isoTime` gives it
   * (its own ISO time, so the records take it as it is: see `recordAt`).
   */
  clock = "1970-01-01T00:00:00.000Z";

  /** The head's facts, for the `session_meta` record. */
  /** Turns that go on from where these are (a followed rollout's end is made on a copy). */
  clone(): CodexTurns {
    // Every field is copied: one added to the class is added here (the follower's test
    // compares its report with a whole read's).
    const copy = new CodexTurns();
    copy.turns = this.turns;
    copy.#meta = this.#meta;
    copy.#metaOut = this.#metaOut;
    copy.#turn = this.#turn && { ...this.#turn };
    copy.#starting = this.#starting;
    copy.#buffer = [...this.#buffer];
    copy.#usage = { ...this.#usage };
    copy.model = this.model;
    copy.approval = this.approval;
    copy.clock = this.clock;
    copy.inferEnds = this.inferEnds;
    copy.#answer = this.#answer;
    for (const id of this.#calls) copy.#calls.add(id);
    return copy;
  }

  setMeta(meta: CodexMetaInput): void {
    this.#meta = meta;
  }

  get open(): boolean {
    return this.#turn !== undefined;
  }

  /** Whether a turn has been announced (by a task event) and not yet opened. */
  get announced(): boolean {
    return this.#starting !== undefined;
  }

  get currentId(): string | undefined {
    return this.#turn?.id;
  }

  /** Whether the buffer holds a record (a message waiting for its turn). */
  get waiting(): boolean {
    return this.#buffer.some((entry) => entry.record !== undefined);
  }

  /** Adds model usage to the turn being built. */
  addUsage(input: number, output: number, total: number): void {
    this.#usage.rounds++;
    this.#usage.inputTokens += input;
    this.#usage.outputTokens += output;
    this.#usage.totalTokens += total;
  }

  /** An entry that may belong to the next turn: it waits unless a turn runs and nothing waits. */
  hold(entry: ForeignEntry): void {
    this.#buffer.push(entry);
  }

  /** An entry that belongs wherever the file is now (ignored kinds, problems). */
  note(entry: ForeignEntry): void {
    if (this.#turn && this.#buffer.length === 0) this.out.push(entry);
    else this.#buffer.push(entry);
  }

  /** Entries of the running turn (model output, tool outputs): they open one if needed. */
  inTurn(entries: ForeignEntry[], span: LineSpan): void {
    if (this.#turn) this.#flush();
    else this.openTurn(span);
    this.out.push(...entries);
    for (const entry of entries) {
      if (entry.record?.type !== "response_item") continue;
      const item = entry.record.payload;
      if (item.type === "message" && item.role === "assistant") this.#answer = entry;
      else if (item.type === "function_call") {
        this.#calls.add(item.callId);
        this.#answer = undefined;
      } else if (item.type === "function_call_output") this.#calls.delete(item.callId);
    }
  }

  /**
   * A new turn begins here (a task event, a prompt): the open one ends unfinished, unless the
   * file has no task events and it ended on an answer (see {@linkcode inferEnds}).
   */
  startTurn(turnId: string | undefined, span: LineSpan): void {
    this.#settle();
    this.#turn = undefined;
    this.#starting = { turnId, span };
    this.#usage = { rounds: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  }

  /**
   * Opens the announced (or an implicit) turn: its `turn_context` goes at the line of the
   * first record that waited for it, so the turn's lines stay in file order.
   */
  openTurn(span: LineSpan, contextTurnId?: string): void {
    this.#emitMeta(span);
    const first = this.#buffer.findIndex((entry) => entry.record !== undefined);
    const place = first === -1 ? this.#starting?.span ?? span : this.#buffer[first]!;
    const id = this.#starting?.turnId ?? contextTurnId ?? `line-${place.line}`;
    const lead = first === -1 ? this.#buffer : this.#buffer.slice(0, first);
    const rest = first === -1 ? [] : this.#buffer.slice(first);
    this.out.push(...lead);
    this.out.push(recordEntry(
      place,
      recordAt("turn_context", {
        runId: id,
        model: this.model,
        wireApi: "responses",
        policy: { approval: this.approval },
        resumed: false,
      }, this.clock),
    ));
    this.out.push(...rest);
    this.#buffer = [];
    this.#starting = undefined;
    this.#turn = { id };
    this.#answer = undefined;
    this.#calls.clear();
    this.turns++;
  }

  /** Ends the open turn with a `run_finished` record at `span`. */
  finishTurn(
    span: LineSpan,
    outcome: "succeeded" | "cancelled" | "failed",
    error?: string,
  ): void {
    if (!this.#turn) {
      if (!this.#starting && !this.waiting) return;
      this.openTurn(span);
    }
    this.#flush();
    const { rounds, ...usage } = this.#usage;
    const end = { runId: this.#turn!.id, outcome, error, rounds, usage };
    this.out.push(runFinishedEntry(span, end, this.clock));
    this.#turn = undefined;
    this.#usage = { rounds: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  }

  /** Ends the open turn as finished at its answer, when its end is read from its last output. */
  #settle(): void {
    if (!this.inferEnds || !this.#turn || !this.#answer || this.#calls.size > 0) return;
    const { rounds, ...usage } = this.#usage;
    const end = { runId: this.#turn.id, outcome: "succeeded" as const, rounds, usage };
    this.out.push(runFinishedEntry(this.#answer, end, this.clock));
    this.#turn = undefined;
  }

  /** The end of the file: what waits goes out (into an implicit turn when it holds records). */
  end(span: LineSpan | undefined): void {
    // A prompt still waiting belongs to the open turn, which then did not end on its answer.
    if (this.#turn && !this.waiting) this.#settle();
    if (this.#turn) this.#flush();
    else if (span && (this.#starting || this.waiting)) this.openTurn(span);
    else {
      if (span) this.#emitMeta(span);
      this.out.push(...this.#buffer);
      this.#buffer = [];
    }
  }

  #flush(): void {
    this.out.push(...this.#buffer);
    this.#buffer = [];
  }

  #emitMeta(fallback: LineSpan): void {
    if (this.#metaOut) return;
    this.#metaOut = true;
    const meta = this.#meta;
    const record = recordAt("session_meta", {
      version: FORMAT_VERSION,
      id: meta?.id ?? "unknown",
      createdAt: meta?.createdAt ?? this.clock,
      cwd: meta?.cwd ?? "",
      modelProvider: meta?.modelProvider ?? "openai",
      model: this.model,
      wireApi: "responses",
      policy: { approval: this.approval },
      ...(meta?.importedFrom === undefined ? {} : { importedFrom: meta.importedFrom }),
    }, meta?.createdAt ?? this.clock);
    this.out.push(recordEntry(meta?.span ?? fallback, record));
  }
}
