/**
 * The second pass over a Claude Code transcript: the active branch's lines, in file order,
 * as turnlog records. The lines of one API response are merged into one message; the lines
 * a compaction keeps go into its checkpoint.
 *
 * @module
 */
import {
  CHECKPOINT_VERSION,
  FORMAT_VERSION,
  makeRecord,
  type ResponseItem,
  type Usage,
} from "../../record/mod.ts";
import {
  countKind,
  ignoredEntry,
  isoTime,
  type Json,
  objectOf,
  problemEntry,
  recordAt,
  recordEntry,
  spanOf,
  stringOf,
} from "../_line.ts";
import type { ForeignEntry, LineSpan } from "../_types.ts";
import { oneLine } from "../../text/mod.ts";
import { assistantContent, summaryText, userContent } from "./_blocks.ts";
import { mapClaudePermission } from "./_facts.ts";
import { type Branch, readOrder } from "./_branch.ts";
import { type ClaudeIndex, type Node, usageKey } from "./_index.ts";
import { MODEL_SWAP } from "./_kinds.ts";
import { promptOf } from "./_prompt.ts";
import { ClaudeTurns } from "./_turns.ts";
import { NumberedValues } from "../_numbered.ts";
import { CallIdTable } from "../_call_ids.ts";

/** How a turn that Claude Code's resume found cut off ended. */
export const INTERRUPTED_TURN =
  "interrupted: the session ended in the middle of the turn (Claude Code's resume gave its " +
  'unanswered calls interrupted results and answered it with "No response requested.")';

/** Lines of one API response, merged as they come. */
interface Run {
  key: string;
  node: number;
  /** Its entries with where they are read (`at`, a line's place in the read) and go in it. */
  parts: { span: LineSpan; at: number; order: number; entry: ForeignEntry }[];
  texts: string[];
  textSpan: LineSpan | undefined;
  /** Where its first text's line is read. */
  textAt: number;
  calls: string[];
  usageKey: string | undefined;
  /** Entries of other lines met while the response was being merged. */
  held: ForeignEntry[];
  /** Results of its calls met before its last line (parallel calls), in read order. */
  results: { entries: ForeignEntry[]; callIds: string[] };
  /** The node of its last line on the branch: until then, it may go on. */
  last: number;
  /**
   * How the turn ended when the line is Claude Code's own stand-in, not the model's answer: its
   * resume's `No response requested.` (interrupted), or an API error it wrote (`isApiErrorMessage`).
   */
  standIn: { outcome: "cancelled" | "failed"; error: string } | undefined;
}

/** The text Claude Code's resume writes as the answer of a turn it found cut off. */
const NO_RESPONSE = "No response requested.";

/** How an assistant line Claude Code wrote itself (model `<synthetic>`) ends the turn. */
function standInOf(value: Json, message: Json): Run["standIn"] {
  if (stringOf(message.model) !== "<synthetic>") return undefined;
  const content = assistantContent(message);
  const text = content.texts.join("\n");
  if (content.calls.length > 0) return undefined;
  if (value.isApiErrorMessage === true) return { outcome: "failed", error: oneLine(text, 200) };
  return text === NO_RESPONSE ? { outcome: "cancelled", error: INTERRUPTED_TURN } : undefined;
}

/**
 * All the second pass reads of a line ({@linkcode ClaudeRead.branchLine}), for a line the first
 * pass keeps: a file parsed once keeps no more of its lines than this (a tool result's
 * `toolUseResult` alone repeats its output), in objects of one shape.
 */
export function branchFields(value: Json): Json {
  return {
    timestamp: value.timestamp,
    permissionMode: value.permissionMode,
    message: value.message,
    requestId: value.requestId,
    isApiErrorMessage: value.isApiErrorMessage,
    summary: value.summary,
  };
}

/**
 * Each call's tool name by its id, as a `Map` of them answers: the ids in a {@linkcode
 * CallIdTable}, the names numbered once. A `Map` of every call's id and name strings held them
 * in the heap to the read's end (at 1 GB, 170,000 calls).
 */
class CallNames {
  constructor(
    readonly ids: CallIdTable = new CallIdTable(),
    /** Shared by the copies: a name is numbered the same in each, and never renumbered. */
    readonly names: NumberedValues = new NumberedValues(),
  ) {}

  set(id: string, name: string): void {
    this.ids.set(id, this.names.number(name));
  }

  get(id: string): string | undefined {
    const number = this.ids.get(id);
    return number === undefined ? undefined : this.names.at(number);
  }

  /** The same names by id, going on apart from these. */
  clone(): CallNames {
    return new CallNames(this.ids.clone(), this.names);
  }

  /** Gives the ids' memory back now; any use after throws. */
  release(): void {
    this.ids.release();
  }
}

/** Whether the node is a line of the model's answer that names the model (not Claude Code's own). */
const answers = (node: Node): boolean =>
  node.kind === "assistant" && !!node.model && node.model !== "<synthetic>";

/** The second pass: fed every node with its parsed line, in file order. */
export class ClaudeRead {
  readonly out: ForeignEntry[] = [];
  readonly ignored: Record<string, number> = {};
  readonly turns: ClaudeTurns;
  problems = 0;
  /** The first prompt a person typed; else the first command sent to the model (`/init`). */
  get firstPrompt(): string | null {
    return this.#typed ?? this.#firstCommand ?? null;
  }
  #typed: string | null = null;
  #firstCommand: string | undefined;
  #run: Run | undefined;
  #names = new CallNames();
  readonly #keptItems = new Map<number, ResponseItem[]>();
  /**
   * The last answer of {@linkcode ClaudeRead.modelAfter}, in places of the read: from place
   * `#askedFrom` on, the first node that answers is at `#answeredAt` (the node count: none), with
   * the model `#answer`. Turns begin in read order, so each asks past the last one's place and
   * the nodes are passed once; a column of the answer by node held 3 MB at 1 GB through the read.
   */
  #askedFrom = -1;
  #answeredAt = -1;
  #answer: string | undefined;
  /**
   * The last node of each API response on the branch, by its key: in a table outside the heap
   * (a `Map` of them held 110,000 keys at 1 GB through the read).
   */
  readonly #lastOfResponse = new CallIdTable();
  #historyLength = 0;
  #clock = "1970-01-01T00:00:00.000Z";
  #firstPrompt = -1;
  /**
   * Each node's place in the read, and the node at each place, where the read is not in file
   * order (a line written before its parent, `Branch.after`); undefined for a file read in file
   * order, as Claude Code writes them.
   */
  readonly #place: Int32Array | undefined;
  readonly #order: Int32Array | undefined;
  #openedFor = -1;
  #permission: string | undefined;
  readonly #firstModel: string | undefined;

  constructor(
    readonly path: string,
    readonly index: ClaudeIndex,
    readonly branch: Branch,
    readonly sessionId: string,
    /** A reader of the same index and branch: what it worked out from them is shared. */
    like?: ClaudeRead,
  ) {
    this.turns = new ClaudeTurns(this.out, index.hasTurnDuration);
    if (like !== undefined && like.index === index && like.branch === branch) {
      this.#lastOfResponse = like.#lastOfResponse;
      this.#firstPrompt = like.#firstPrompt;
      this.#firstModel = like.#firstModel;
      this.#place = like.#place;
      this.#order = like.#order;
      return;
    }
    const order = branch.after.size === 0
      ? undefined
      : Int32Array.from(readOrder(index.nodes.length, branch.after));
    if (order !== undefined) {
      this.#order = order;
      this.#place = new Int32Array(order.length);
      order.forEach((at, place) => this.#place![at] = place);
    }
    let next: string | undefined;
    for (let back = index.nodes.length - 1; back >= 0; back--) {
      const at = order?.[back] ?? back;
      const node = index.nodes.at(at);
      if (!branch.active.has(at)) continue;
      if (node.kind === "assistant" && node.messageId !== undefined) {
        if (this.#lastOfResponse.get(node.messageId) === undefined) {
          this.#lastOfResponse.set(node.messageId, at);
        }
      }
      if (answers(node)) next = node.model;
      if (this.#isPrompt(at)) this.#firstPrompt = at;
    }
    this.#firstModel = next;
  }

  /**
   * Every node of the index in read order ({@linkcode readOrder}), as the constructor worked it
   * out: a transcript with lines before their parents' has it built once.
   */
  order(): Iterable<number> {
    return this.#order ?? readOrder(this.index.nodes.length, this.branch.after);
  }

  /**
   * A reader of the same transcript grown (`index`, and the active `branch` found on it) that
   * goes on from where this one is: its state copied, what it works out from the branch
   * (the models that answer, where responses end) worked out again, or taken from `like`
   * (a reader of that index and branch). This one is left as is.
   */
  fork(index: ClaudeIndex, branch: Branch, like?: ClaudeRead): ClaudeRead {
    // Every field is copied: one added to the class is added here (the follower's test
    // compares its report with a whole read's).
    const next = new ClaudeRead(this.path, index, branch, this.sessionId, like ?? this);
    Object.assign(next.ignored, this.ignored);
    next.turns.takeFrom(this.turns);
    next.problems = this.problems;
    next.#typed = this.#typed;
    next.#firstCommand = this.#firstCommand;
    const run = this.#run;
    next.#run = run && {
      ...run,
      parts: [...run.parts],
      texts: [...run.texts],
      calls: [...run.calls],
      held: [...run.held],
      results: { entries: [...run.results.entries], callIds: [...run.results.callIds] },
      last: next.#lastOfResponse.get(run.key) ?? run.last,
    };
    next.#names = this.#names.clone();
    for (const [at, items] of this.#keptItems) next.#keptItems.set(at, items);
    next.#historyLength = this.#historyLength;
    next.#clock = this.#clock;
    next.#openedFor = this.#openedFor;
    next.#permission = this.#permission;
    return next;
  }

  /** The last node of the API response `key` on the branch (undefined: none). */
  responseEnd(key: string): number | undefined {
    return this.#lastOfResponse.get(key);
  }

  /** The key of the API response being merged (its lines may go on), or undefined. */
  get openResponse(): string | undefined {
    return this.#run?.key;
  }

  /** Whether the node opens a turn: a prompt, or a command sent to the model. */
  isPrompt(at: number): boolean {
    return this.#isPrompt(at);
  }

  #isPrompt(at: number): boolean {
    const kind = this.index.nodes.at(at).kind;
    return kind === "prompt" || (kind === "command" && !this.branch.localCommands.has(at));
  }

  /** The model that answers first after a node of the branch. */
  modelAfter(at: number): string {
    const fallback = this.index.models.values[0] ?? "unknown";
    if (!this.branch.active.has(at)) return fallback;
    const from = this.#placeOf(at);
    if (this.#askedFrom < 0 || from < this.#askedFrom || from > this.#answeredAt) {
      const { nodes } = this.index;
      const answering = (place: number) => {
        const node = this.#order?.[place] ?? place;
        return this.branch.active.has(node) && answers(nodes.at(node));
      };
      let found = from;
      while (found < nodes.length && !answering(found)) found++;
      this.#askedFrom = from;
      this.#answeredAt = found;
      this.#answer = found < nodes.length
        ? nodes.at(this.#order?.[found] ?? found).model
        : undefined;
    }
    return this.#answer ?? fallback;
  }

  /** The synthesized `session_meta`, at the file's first line. */
  meta(first: Node): void {
    const created = this.index.times.first ?? this.#clock;
    const permission = this.index.permissionMode;
    this.out.push(recordEntry(
      first,
      makeRecord("session_meta", {
        version: FORMAT_VERSION,
        id: this.sessionId,
        createdAt: created,
        cwd: this.index.cwds.values[0] ?? "",
        modelProvider: "anthropic",
        model: this.#firstModel ?? this.index.models.values[0] ?? "unknown",
        wireApi: "chat",
        policy: { approval: mapClaudePermission(permission) },
        ...(this.index.exportedFrom === undefined ? {} : { importedFrom: this.index.exportedFrom }),
      }, new Date(Date.parse(created) || 0)),
    ));
  }

  #note(entry: ForeignEntry): void {
    if (entry.ignored !== undefined && entry.ignored !== MODEL_SWAP) {
      countKind(this.ignored, entry.ignored);
    }
    if (this.#run) this.#run.held.push(entry);
    else this.out.push(entry);
  }

  #record(span: LineSpan, item: ResponseItem): ForeignEntry {
    this.#historyLength++;
    return recordEntry(span, recordAt("response_item", item, this.#clock));
  }

  /** Records of the branch: they need a turn, opened here when none is. */
  #emit(at: number, span: LineSpan, entries: ForeignEntry[]): void {
    if (!this.turns.open) {
      const forPrompt = this.#firstPrompt >= 0 &&
        this.#placeOf(at) <= this.#placeOf(this.#firstPrompt);
      const owner = forPrompt ? this.#firstPrompt : at;
      if (forPrompt) this.#openedFor = this.#firstPrompt;
      this.#begin(owner, span);
    }
    this.out.push(...entries);
  }

  #begin(owner: number, span: LineSpan): void {
    const node = this.index.nodes.at(owner);
    this.turns.begin(span, {
      runId: node.uuid ?? `line-${node.line}`,
      model: this.modelAfter(owner),
      approval: mapClaudePermission(this.#permission ?? this.index.permissionMode),
      time: this.#clock,
    });
  }

  /** A line the first pass found not valid: the same problem, now in its place. */
  problemLine(problem: Parameters<typeof problemEntry>[0]): void {
    this.problems++;
    this.#note(problemEntry(problem));
  }

  /** A line without a uuid (titles, file history, queue operations). */
  metaLine(node: Node): void {
    if (node.label !== undefined) this.#note(ignoredEntry(node, node.label));
  }

  /**
   * A line of the branch with a label (a hook's progress, an attachment, a system line) that
   * no checkpoint keeps: the first pass kept all it needs of it, so it is not read again.
   */
  labeledLine(at: number): void {
    const node = this.index.nodes.at(at);
    this.#clock = node.time ?? this.#clock;
    this.#permission = node.mode ?? this.#permission;
    if (!this.branch.active.has(at)) return;
    // Whether the open response goes on past it or not, it is counted where it is.
    if (!this.#goesOn(at, {})) this.#flush();
    this.#note(ignoredEntry(spanOf(node), node.label!));
  }

  /** A line of the active branch, or one a checkpoint keeps. */
  branchLine(at: number, value: Json): void {
    const node = this.index.nodes.at(at);
    const span = spanOf(node);
    this.#clock = isoTime(value.timestamp) ?? this.#clock;
    this.#permission = stringOf(value.permissionMode) ?? this.#permission;
    if (this.branch.kept.has(at)) this.#keptItems.set(at, this.#itemsOf(node, value));
    if (!this.branch.active.has(at)) return;
    if (node.kind === "assistant") return this.#assistant(at, value, span);
    if (this.#goesOn(at, value)) {
      if (node.label !== undefined) return this.#note(ignoredEntry(span, node.label));
      return this.#holdResults(at, value, span);
    }
    this.#flush();
    if (node.label !== undefined) return this.#note(ignoredEntry(span, node.label));
    if (this.#isPrompt(at)) this.#prompt(at, span);
    switch (node.kind) {
      case "boundary":
      case "compact_summary":
      case "summary":
        if (this.branch.checkpoints.has(at)) return this.#checkpoint(at, value, span);
        if (this.branch.foldedBoundaries.has(at)) return;
        break;
      case "turn_duration":
        return this.turns.finish(span, "succeeded", this.#clock);
    }
    this.#user(at, value, span);
    if (node.kind === "interrupt") {
      this.turns.finish(span, "cancelled", this.#clock, "interrupted by the user");
    }
  }

  #prompt(at: number, span: LineSpan): void {
    if (this.#openedFor === at) return;
    this.turns.close();
    this.#begin(at, span);
  }

  /**
   * Whether the open response goes on past this line: Claude Code writes each `tool_use` of a
   * message as its block ends and starts the tool at once, so the results (and hook lines) of
   * its first calls can come before its later calls' lines. It merges the message back into
   * one, and sends the results after it, in the order it reads their lines.
   */
  #goesOn(at: number, value: Json): boolean {
    const run = this.#run;
    if (!run || this.#placeOf(at) > this.#placeOf(run.last)) return false;
    const kind = this.index.nodes.at(at).kind;
    if (kind === "progress" || kind === "attachment" || kind === "system") return true;
    if (kind !== "tool_result") return false;
    const content = userContent(objectOf(value.message) ?? {}, () => undefined);
    return content.text === undefined &&
      content.outputs.every((output) => run.calls.includes(output.callId));
  }

  /** The results of the open response's calls, held until the response is written. */
  #holdResults(at: number, value: Json, span: LineSpan): void {
    const run = this.#run!;
    const { entries, callIds } = this.#userEntries(at, value, span);
    run.results.entries.push(...entries);
    run.results.callIds.push(...callIds);
  }

  #user(at: number, value: Json, span: LineSpan): void {
    const { entries, callIds } = this.#userEntries(at, value, span);
    for (const callId of callIds) this.turns.output(callId);
    if (entries.length > 0) this.#emit(at, span, entries);
  }

  #userEntries(
    at: number,
    value: Json,
    span: LineSpan,
  ): { entries: ForeignEntry[]; callIds: string[] } {
    const message = objectOf(value.message) ?? {};
    const content = userContent(message, (id) => this.#names.get(id));
    const entries: ForeignEntry[] = [];
    for (const output of content.outputs) entries.push(this.#record(span, output));
    const kind = this.index.nodes.at(at).kind;
    const text = kind === "summary" ? summaryText(value) : content.text;
    if (text !== undefined) {
      entries.push(this.#record(span, { type: "message", role: "user", content: text }));
      if (kind === "prompt") this.#typed ??= promptOf(text) ?? null;
      else if (this.#isPrompt(at)) this.#firstCommand ??= promptOf(text);
    }
    for (const kind of content.ignored) {
      countKind(this.ignored, kind);
      entries.push(ignoredEntry(span, kind));
    }
    return { entries, callIds: content.outputs.map((output) => output.callId) };
  }

  #assistant(at: number, value: Json, span: LineSpan): void {
    const node = this.index.nodes.at(at);
    const key = node.messageId ?? node.uuid ?? `line-${node.line}`;
    if (this.#run && this.#run.key !== key) this.#flush();
    const message = objectOf(value.message) ?? {};
    const run = this.#run ??= {
      key,
      node: at,
      parts: [],
      texts: [],
      textSpan: undefined,
      textAt: 0,
      calls: [],
      usageKey: usageKey(value, message),
      held: [],
      results: { entries: [], callIds: [] },
      last: this.#lastOfResponse.get(key) ?? at,
      standIn: standInOf(value, message),
    };
    const content = assistantContent(message);
    const place = this.#placeOf(at);
    if (content.texts.length > 0) {
      run.texts.push(...content.texts);
      if (run.textSpan === undefined) [run.textSpan, run.textAt] = [span, place];
    }
    for (const call of content.calls) {
      this.#names.set(call.callId, call.name);
      run.calls.push(call.callId);
      run.parts.push({ span, at: place, order: 1, entry: this.#record(span, call) });
    }
    for (const [i, kind] of content.ignored.entries()) {
      countKind(this.ignored, kind);
      const entry = ignoredEntry(span, kind, content.thoughts[i]);
      run.parts.push({ span, at: place, order: 0, entry });
    }
  }

  /** Where node `at` is read: its own index unless a line was written before its parent. */
  #placeOf(at: number): number {
    return this.#place?.[at] ?? at;
  }

  /** Writes the merged response: one message for its text, then its calls, in read order. */
  #flush(): void {
    const run = this.#run;
    if (!run) return;
    this.#run = undefined;
    const parts = [...run.parts];
    if (run.textSpan) {
      const content = run.texts.join("\n\n");
      const entry = this.#record(run.textSpan, { type: "message", role: "assistant", content });
      parts.push({ span: run.textSpan, at: run.textAt, order: 0.5, entry });
    }
    parts.sort((a, b) => a.at - b.at || a.order - b.order);
    const entries = [...parts.map((part) => part.entry), ...run.results.entries];
    if (parts[0] !== undefined) this.#emit(run.node, parts[0].span, entries);
    const end = parts[parts.length - 1]?.span;
    if (run.standIn) {
      // Claude Code wrote it, not the model: no round, and the turn ends there.
      if (end) this.turns.finish(end, run.standIn.outcome, this.#clock, run.standIn.error);
    } else {
      const usage = run.usageKey === undefined ? undefined : this.index.usage.tokens(run.usageKey);
      const turnUsage: Usage | undefined = usage && {
        inputTokens: usage.input + usage.cacheRead + usage.cacheCreation,
        outputTokens: usage.output,
        totalTokens: usage.input + usage.cacheRead + usage.cacheCreation + usage.output,
      };
      this.turns.response(run.usageKey ?? run.key, turnUsage, run.calls);
      for (const callId of run.results.callIds) this.turns.output(callId);
      if (end) this.turns.answered(end, this.#clock);
    }
    this.out.push(...run.held);
  }

  /** The items of a line a checkpoint keeps (its text and calls, or its outputs and text). */
  #itemsOf(node: Node, value: Json): ResponseItem[] {
    const message = objectOf(value.message) ?? {};
    if (node.kind === "assistant") {
      const content = assistantContent(message);
      const items: ResponseItem[] = [];
      if (content.texts.length > 0) {
        items.push({ type: "message", role: "assistant", content: content.texts.join("\n\n") });
      }
      for (const call of content.calls) this.#names.set(call.callId, call.name);
      return [...items, ...content.calls];
    }
    if (node.kind === "progress" || node.kind === "attachment" || node.kind === "system") return [];
    const content = userContent(message, (id) => this.#names.get(id));
    const text = content.text === undefined
      ? []
      : [{ type: "message", role: "user", content: content.text } as const];
    return [...content.outputs, ...text];
  }

  #checkpoint(at: number, value: Json, span: LineSpan): void {
    const { boundary, kept } = this.branch.checkpoints.get(at)!;
    const info = this.index.nodes.at(boundary).boundary;
    const summary: ResponseItem[] = at === boundary
      ? []
      : [{ type: "compaction_summary", content: summaryText(value) }];
    const keptItems = kept.flatMap((node) => this.#keptItems.get(node) ?? []);
    const replacementHistory = [...summary, ...keptItems];
    const record = makeRecord("response_item", {
      type: "compaction_checkpoint",
      version: CHECKPOINT_VERSION,
      reason: `claude-code ${info?.trigger ?? "unknown"} compaction (compact_boundary at line ${
        this.index.nodes.at(boundary).line
      })`,
      tokensBefore: Math.max(0, Math.round(info?.preTokens ?? 0)),
      removedItemCount: this.#historyLength,
      keptItemCount: keptItems.length,
      replacementHistory,
    }, new Date(this.#clock));
    this.#historyLength = replacementHistory.length;
    this.#emit(at, span, [recordEntry(span, record)]);
  }

  /** The end of the file. */
  end(): void {
    this.#flush();
    this.turns.close();
  }

  /**
   * Gives the memory of its tables (the tool names by call id, where each response ends) back
   * now, for a read that is done: about 13 MB at 1 GB. It is not to be fed nor forked after.
   */
  release(): void {
    this.#names.release();
    this.#lastOfResponse.release();
  }
}
