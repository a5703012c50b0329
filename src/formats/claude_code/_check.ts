/**
 * What the Anthropic API needs from a Claude Code transcript's active branch, checked: the
 * branch's messages as Claude Code sends them (the lines of one response merged, consecutive
 * user lines merged), every `tool_use` answered by a `tool_result` in the very next message,
 * no `tool_result` without a `tool_use` in the message right before it, and a parent chain that
 * reaches its root. The same analysis tells repair where each missing result goes.
 *
 * @module
 */
import type { Line } from "../../io/mod.ts";
import { isObject, type Json, objectOf, stringOf } from "../_line.ts";
import { badLineFindings, type ValidationFinding } from "../_repair_types.ts";
import { type BadLine, readView, type ViewLine, type ViewPlace } from "../_view.ts";
import { CLAUDE_LINES } from "./_lines.ts";
import { type Branch, findBranch, readOrder } from "./_branch.ts";
import { type ClaudeIndex, indexTranscript } from "./_index.ts";
import { isMessageKind, USER_KINDS } from "./_kinds.ts";
import { NumberedValues } from "../_numbered.ts";
import { freeArrays, IdList } from "../_call_ids.ts";

/** A `tool_use` block: its id, its tool, its line in the view. */
export interface ToolUse {
  id: string;
  name: string;
  k: number;
}

/** A `tool_result` block: the call it answers, its line in the view and its place there. */
export interface ToolResult {
  id: string;
  k: number;
  block: number;
}

/** What the pairing check needs of a message line (never its text). */
export interface ClaudeLineCheck {
  type: string | undefined;
  uses: ToolUse[];
  results: ToolResult[];
  /** Content blocks of a user line (0 for string content). */
  blocks: number;
}

/** What the check keeps of each line of the view for its repair: also the line's place. */
export interface ClaudeLineInfo extends ViewPlace, ClaudeLineCheck {}

/** One message as the API gets it: lines of the branch merged. */
export interface ClaudeMessage {
  role: "user" | "assistant";
  /** Its lines in the view, in file order. */
  ks: number[];
  uses: ToolUse[];
  results: ToolResult[];
  /** Blocks of a user message that are not tool results (string content counts as none). */
  texts: number;
}

/** Calls of a message that the next message does not answer. */
export interface Unanswered {
  message: ClaudeMessage;
  /** The next message, or undefined at the end of the branch. */
  next: ClaudeMessage | undefined;
  missing: ToolUse[];
}

/**
 * Everything the check learns; a reader's check keeps of each line what pairing needs alone
 * (`ClaudeLineCheck`), repair's also its place.
 */
export interface ClaudeAnalysis<Info extends ClaudeLineCheck = ClaudeLineInfo> {
  infos: Info[];
  bad: BadLine[];
  index: ClaudeIndex;
  branch: Branch;
  /** The texts of the records recovered from bad lines, by view index. */
  pieces: Map<number, string>;
  unanswered: Unanswered[];
  unexpected: { message: ClaudeMessage; bad: ToolResult[] }[];
}

function infoOf(line: ViewLine): ClaudeLineInfo {
  const { k, line: number, start, end, terminated, piece } = line;
  return { k, line: number, start, end, terminated, piece, ...lineCheck(line.value, k) };
}

/** The calls or results of the lines that have none: one array for all, never changed. */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/**
 * The checks of lines with no call and no result, by type and count of blocks: most message
 * lines have neither, and one object stands for all of each kind (a 100 MB transcript's check
 * held an object per line, with its place: 3.9 MB more after its first pass).
 */
const PLAIN_CHECKS = new Map<string | undefined, ClaudeLineCheck[]>();

/** The shared check of a line with no call and no result. */
function plainCheck(type: string | undefined, blocks: number): ClaudeLineCheck {
  let byBlocks = PLAIN_CHECKS.get(type);
  if (byBlocks === undefined) {
    byBlocks = [];
    // Only the types message lines have are kept: any other string would be held for good.
    if (type === "user" || type === "assistant") PLAIN_CHECKS.set(type, byBlocks);
  }
  return byBlocks[blocks] ??= Object.freeze({ type, uses: NONE, results: NONE, blocks });
}

/** Where {@linkcode readToolBlocks} tells the calls and results of a line. */
interface ToolBlockSink {
  /** A call of node `k`'s line. */
  use(k: number, id: string, name: string): void;
  /** A result of node `k`'s line, in its block `block`. */
  result(k: number, id: string, block: number): void;
}

/**
 * Tells `sink` the blocks of node `k`'s line the check counts: an assistant line's `tool_use`
 * blocks and a user line's `tool_result` blocks, each with an id; other lines' blocks are not
 * looked at (a plain loop, each field loaded where it is named). One rule for the objects
 * ({@linkcode lineCheck}) and the columns ({@linkcode LineChecks}).
 */
function readToolBlocks(
  type: string | undefined,
  content: unknown[],
  k: number,
  sink: ToolBlockSink,
): void {
  const assistant = type === "assistant";
  if (!assistant && type !== "user") return;
  for (let at = 0; at < content.length; at++) {
    const block: unknown = content[at];
    if (!isObject(block)) continue;
    if (assistant && block.type === "tool_use") {
      const id = stringOf(block.id);
      if (id !== undefined && id.length > 0) sink.use(k, id, stringOf(block.name) || "unknown");
    } else if (!assistant && block.type === "tool_result") {
      const id = stringOf(block.tool_use_id);
      if (id !== undefined && id.length > 0) sink.result(k, id, at);
    }
  }
}

/**
 * A line's calls and results as objects. Each starts as an array of the first alone: an empty
 * array grown by `push` takes room for 17, and nearly every line has one (4.4 MB less held by
 * the 100 MB transcript's check).
 */
class ToolBlocks implements ToolBlockSink {
  uses: ToolUse[] = NONE;
  results: ToolResult[] = NONE;
  use(k: number, id: string, name: string): void {
    const use = { id, name, k };
    if (this.uses === NONE) this.uses = [use];
    else this.uses.push(use);
  }
  result(k: number, id: string, block: number): void {
    const result = { id, k, block };
    if (this.results === NONE) this.results = [result];
    else this.results.push(result);
  }
}

/**
 * What the check keeps of a line at view index `k`: its type, its calls and results
 * ({@linkcode readToolBlocks}). A line with neither shares one object with the lines of its
 * type and blocks.
 */
export function lineCheck(value: Json, k: number): ClaudeLineCheck {
  const type = stringOf(value.type);
  const content = objectOf(value.message)?.content;
  if (!Array.isArray(content)) return plainCheck(type, 0);
  const found = new ToolBlocks();
  readToolBlocks(type, content, k, found);
  const { uses, results } = found;
  if (uses === NONE && results === NONE) return plainCheck(type, content.length);
  return { type, uses, results, blocks: content.length };
}

/** What a line's type is held as in {@linkcode LineChecks} (0: no check kept). */
const TYPE_NONE = 1;
const TYPE_USER = 2;
const TYPE_ASSISTANT = 3;
const TYPE_OTHER = 4;

/**
 * The check's view of the message lines of a transcript as its reader indexes them ({@linkcode
 * lineCheck} of each, by node index), held in columns of typed arrays: a line's type and count
 * of blocks, and its calls' or results' ids, tools and places in flat lists. An object per line
 * with a call or a result (the object, its array, the call's object and its id) held 71 MB of a
 * 1 GB transcript's first pass; {@linkcode LineChecks.at} makes them on asking.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { LineChecks } from "./_check.ts";
 * const checks = new LineChecks();
 * checks.add({
 *   type: "assistant",
 *   message: { content: [{ type: "text" }, { type: "tool_use", id: "c1", name: "Bash" }] },
 * }, 3);
 * checks.add({ type: "user", message: { content: "hi" } }, 4);
 * assert.deepEqual(checks.at(3), {
 *   type: "assistant",
 *   uses: [{ id: "c1", name: "Bash", k: 3 }],
 *   results: [],
 *   blocks: 2,
 * });
 * assert.deepEqual(checks.at(4), { type: "user", uses: [], results: [], blocks: 0 });
 * assert.equal(checks.at(5), undefined);
 * ```
 */
export class LineChecks implements ToolBlockSink {
  #types = new Uint8Array(1024);
  #blocks = new Int32Array(1024);
  /** The first of a line's calls or results in the flat lists, or -1. */
  #first = new Int32Array(1024).fill(-1);
  /** Types other than `user` and `assistant`, by line. */
  readonly #otherTypes = new Map<number, string>();
  /** Calls and results: the line, the tool's number (a call) or the block (a result), the id. */
  #entryK = new Int32Array(1024);
  #entryValue = new Int32Array(1024);
  readonly #entryIds = new IdList();
  /** Tool names by number, and their numbers. */
  readonly #names = new NumberedValues();

  /**
   * Gives the columns' memory back now, for a read whose check is done (a 1 GB transcript's are
   * 21 MB, held through its second pass otherwise); the checks are empty after.
   */
  release(): void {
    freeArrays(this.#types, this.#blocks, this.#first, this.#entryK, this.#entryValue);
    this.#types = new Uint8Array(0);
    this.#blocks = new Int32Array(0);
    this.#first = new Int32Array(0);
    this.#entryK = new Int32Array(0);
    this.#entryValue = new Int32Array(0);
    this.#otherTypes.clear();
    this.#entryIds.release();
  }

  /** Keeps the check of `value`, the line of node `k` (see {@linkcode lineCheck}). */
  add(value: Json, k: number): void {
    if (k >= this.#types.length) this.#growLines(k + 1);
    const type = stringOf(value.type);
    const assistant = type === "assistant";
    this.#types[k] = type === undefined
      ? TYPE_NONE
      : assistant
      ? TYPE_ASSISTANT
      : type === "user"
      ? TYPE_USER
      : TYPE_OTHER;
    if (this.#types[k] === TYPE_OTHER) this.#otherTypes.set(k, type!);
    const content = objectOf(value.message)?.content;
    this.#blocks[k] = Array.isArray(content) ? content.length : 0;
    this.#first[k] = -1;
    if (Array.isArray(content)) readToolBlocks(type, content, k, this);
  }

  /** Keeps a call of node `k`'s line (see {@linkcode readToolBlocks}). */
  use(k: number, id: string, name: string): void {
    this.#addEntry(k, this.#names.number(name), id);
  }

  /** Keeps a result of node `k`'s line, in its block `block`. */
  result(k: number, id: string, block: number): void {
    this.#addEntry(k, block, id);
  }

  /** The check of node `k`'s line, or undefined when none was kept. */
  at(k: number): ClaudeLineCheck | undefined {
    const code = this.#types[k];
    if (code === undefined || code === 0) return undefined;
    const type = code === TYPE_USER
      ? "user"
      : code === TYPE_ASSISTANT
      ? "assistant"
      : code === TYPE_OTHER
      ? this.#otherTypes.get(k)
      : undefined;
    const blocks = this.#blocks[k]!;
    const first = this.#first[k]!;
    if (first < 0) return plainCheck(type, blocks);
    const uses: ToolUse[] = [];
    const results: ToolResult[] = [];
    for (let at = first; at < this.#entryIds.length && this.#entryK[at] === k; at++) {
      const id = this.#entryIds.at(at)!;
      const value = this.#entryValue[at]!;
      if (code === TYPE_ASSISTANT) uses.push({ id, name: this.#names.at(value)!, k });
      else results.push({ id, k, block: value });
    }
    return {
      type,
      uses: uses.length > 0 ? uses : NONE,
      results: results.length > 0 ? results : NONE,
      blocks,
    };
  }

  #addEntry(k: number, value: number, id: string): void {
    const at = this.#entryIds.length;
    if (at === this.#entryK.length) {
      const size = Math.max(1024, at * 2);
      this.#entryK = grown(this.#entryK, new Int32Array(size));
      this.#entryValue = grown(this.#entryValue, new Int32Array(size));
    }
    this.#entryK[at] = k;
    this.#entryValue[at] = value;
    this.#entryIds.push(id);
    if (this.#first[k]! < 0) this.#first[k] = at;
  }

  #growLines(least: number): void {
    let size = Math.max(1024, this.#types.length * 2);
    while (size < least) size *= 2;
    this.#types = grown(this.#types, new Uint8Array(size));
    this.#blocks = grown(this.#blocks, new Int32Array(size));
    const first = new Int32Array(size).fill(-1);
    first.set(this.#first);
    this.#first = first;
  }
}

/** `made` with `old` copied to its start. */
function grown<T extends Uint8Array | Int32Array>(old: T, made: T): T {
  made.set(old as never);
  return made;
}

/**
 * The earlier assistant message a line of the same API response joins: Claude Code writes each
 * `tool_use` block of a response on a line of its own as the block ends and runs the tool at
 * once, so the results of its first calls can come before its later calls' lines. Building its
 * request, it merges every line of one `message.id` into one message, passing back over
 * messages that hold tool results only.
 */
function sameResponse(
  list: readonly (ClaudeMessage | "reset")[],
  keys: ReadonlyMap<ClaudeMessage, string>,
  id: string,
): ClaudeMessage | undefined {
  for (let at = list.length - 1; at >= 0; at--) {
    const message = list[at]!;
    if (message === "reset") return undefined;
    if (message.role === "assistant") return keys.get(message) === id ? message : undefined;
    if (message.results.length === 0 || message.texts > 0) return undefined;
  }
  return undefined;
}

/**
 * The pairing verdicts on the branch's messages as Claude Code sends them (`reset` where a
 * compaction starts again), each message paired with the one before and after it as soon as
 * those can change no more: a message is joined while it is one of the last two (an assistant
 * message by a later line of its response past a message of results, see {@linkcode
 * sameResponse}), so the messages held are the last few, not the branch's (at 1 GB its messages
 * and their calls' ids, made at once, were about 125 MB of heap at the read's end, its peak).
 */
function pairedMessages(
  analysis: Omit<ClaudeAnalysis<ClaudeLineCheck>, "unanswered" | "unexpected">,
  infoAt: (k: number) => ClaudeLineCheck | undefined = (k) => analysis.infos[k],
) {
  const { index, branch } = analysis;
  const verdicts: Pairing = { unanswered: [], unexpected: [] };
  // The messages from number `first` on: the one before the next to pair, and those after it.
  const list: (ClaudeMessage | "reset")[] = [];
  let first = 0;
  let paired = 0;
  const keys = new Map<ClaudeMessage, string>();
  /** Pairs the messages before number `end`, and lets go of those no pairing needs. */
  const pairUpTo = (end: number) => {
    for (; paired < end; paired++) pairAt(list, paired - first, verdicts);
    while (first < paired - 1) {
      const gone = list.shift()!;
      if (gone !== "reset") keys.delete(gone);
      first++;
    }
  };
  for (const k of readOrder(index.nodes.length, branch.after)) {
    if (!branch.active.has(k)) continue;
    const node = index.nodes.at(k);
    const info = infoAt(k)!;
    const last = list[list.length - 1];
    if (node.kind === "boundary") {
      list.push("reset");
    } else if (node.kind === "assistant" && info.type === "assistant") {
      const id = node.messageId ?? `line:${k}`;
      const joined = sameResponse(list, keys, id);
      if (joined) {
        joined.ks.push(k);
        joined.uses.push(...info.uses);
      } else {
        const message: ClaudeMessage = {
          role: "assistant",
          ks: [k],
          uses: [...info.uses],
          results: [],
          texts: 0,
        };
        keys.set(message, id);
        list.push(message);
      }
    } else if (USER_KINDS.has(node.kind) && info.type === "user") {
      const texts = info.blocks - info.results.length;
      if (last !== "reset" && last?.role === "user") {
        last.ks.push(k);
        last.results.push(...info.results);
        last.texts += texts;
      } else {
        list.push({ role: "user", ks: [k], uses: [], results: [...info.results], texts });
      }
    }
    // The last two can still be joined; a message is paired once the one after it is final.
    const count = first + list.length;
    if (count - 3 > paired) pairUpTo(count - 3);
  }
  pairUpTo(first + list.length);
  return verdicts;
}

/** What the pairing finds: calls with no result, results with no call. */
interface Pairing {
  unanswered: Unanswered[];
  unexpected: { message: ClaudeMessage; bad: ToolResult[] }[];
}

/** The pairing verdicts on message `at` of `list`, with the messages beside it. */
function pairAt(list: readonly (ClaudeMessage | "reset")[], at: number, verdicts: Pairing): void {
  const message = list[at]!;
  if (message === "reset") return;
  const next = list[at + 1];
  if (message.role === "assistant" && message.uses.length > 0 && next !== "reset") {
    const answered = idsOf(next?.role === "user" ? next.results : NONE);
    const missing = message.uses.filter((use) => !answered.has(use.id));
    if (missing.length > 0) verdicts.unanswered.push({ message, next, missing });
  }
  if (message.role === "user" && message.results.length > 0) {
    const before = list[at - 1];
    const asked = idsOf(
      before !== undefined && before !== "reset" && before.role === "assistant"
        ? before.uses
        : NONE,
    );
    // Made only for a message of several results: one result cannot repeat another.
    let seen: Set<string> | undefined;
    const bad: ToolResult[] = [];
    for (const result of message.results) {
      if (!asked.has(result.id) || seen?.has(result.id)) bad.push(result);
      else if (message.results.length > 1) (seen ??= new Set()).add(result.id);
    }
    if (bad.length > 0) verdicts.unexpected.push({ message, bad });
  }
}

/** The ids of a message's calls or results, asked with `has`. */
interface Ids {
  has(id: string): boolean;
}

/**
 * The ids of `items`, a message's calls or results: a message has one or a few, so for up to
 * eight a scan of them stands for the `Set` each message made (60,000 of them in the 100 MB
 * transcript's check).
 */
function idsOf(items: readonly { id: string }[]): Ids {
  if (items.length > 8) return new Set(items.map((item) => item.id));
  return {
    has(id) {
      for (let i = 0; i < items.length; i++) if (items[i]!.id === id) return true;
      return false;
    },
  };
}

/**
 * Reads the transcript at `path` (up to `sizeBytes`) as its repair will leave it: bad lines
 * set aside and the records they hold recovered, the active branch found as the reader finds
 * it, and the pairing of its messages checked.
 */
export async function analyzeClaude(path: string, sizeBytes: number): Promise<ClaudeAnalysis> {
  const infos: ClaudeLineInfo[] = [];
  const bad: BadLine[] = [];
  const pieces = new Map<number, string>();
  async function* lines(): AsyncGenerator<Line> {
    for await (const item of readView(path, CLAUDE_LINES, sizeBytes)) {
      if (item.bad) {
        bad.push(item.bad);
        continue;
      }
      const line = item.line;
      infos.push(infoOf(line));
      if (line.piece !== null) pieces.set(line.k, line.text);
      yield {
        line: line.line,
        text: line.text,
        start: line.start,
        end: line.end,
        terminated: true,
      };
    }
  }
  const index = await indexTranscript(path, sizeBytes, { lines: lines() });
  const branch = findBranch(index);
  const base = { infos, bad, index, branch, pieces };
  return { ...base, ...pairedMessages(base) };
}

/**
 * The analysis of a transcript its reader indexed whole with no bad line (the view is then
 * the file's lines: `checks` by node index, of the messages' lines at least, those
 * {@linkcode isMessageKind} tells), from the reader's own index and branch.
 */
export function analyzeIndexed(
  checks: LineChecks,
  index: ClaudeIndex,
  branch: Branch,
): ClaudeAnalysis<ClaudeLineCheck> {
  // The lines' checks stay in their columns: the analysis's list of them is left empty.
  const base = { infos: [], bad: [], index, branch, pieces: new Map<number, string>() };
  return { ...base, ...pairedMessages(base, (k) => checks.at(k)) };
}

/**
 * The analysis again once lines are re-linked to new parents (`parents`, by view index) and
 * lines taken out (`removed`): the branch found anew and its pairing checked. The analysis's
 * index is changed in place.
 */
export function relinked(
  analysis: ClaudeAnalysis,
  parents: ReadonlyMap<number, string | null>,
  removed: Iterable<number> = [],
): ClaudeAnalysis {
  const { index } = analysis;
  for (const k of removed) {
    const node = index.nodes.at(k);
    // A line taken out is in no tree any more, as a replayed copy is in none.
    node.superseded = true;
    if (node.uuid !== undefined && index.byUuid.get(node.uuid) === k) {
      index.byUuid.delete(node.uuid);
    }
  }
  for (const [k, parent] of parents) {
    const node = index.nodes.at(k);
    node.parentUuid = parent ?? undefined;
    node.parent = parent === null ? -1 : index.byUuid.get(parent) ?? -1;
  }
  const base = { ...analysis, branch: findBranch(index) };
  return { ...base, ...pairedMessages(base) };
}

/**
 * Whether the walk back stopped at a missing parent with messages of the file before it that
 * no branch holds: the chain was cut (a resumed session's first line may name a parent kept in
 * another file; that is no damage).
 */
function cutOff({ index, branch }: ClaudeAnalysis<ClaudeLineCheck>): boolean {
  const root = branch.segments[0]?.[0];
  if (root === undefined) return false;
  for (let at = 0; at < root; at++) {
    if (isMessageKind(index.nodes.kind(at)) && !branch.active.has(at) && !branch.kept.has(at)) {
      return true;
    }
  }
  return false;
}

/** The validator's findings on an analysis, by line (the view's lines are the index's nodes). */
export function claudeFindings(
  path: string,
  analysis: ClaudeAnalysis<ClaudeLineCheck>,
): ValidationFinding[] {
  const { index, bad, branch, unanswered, unexpected } = analysis;
  const findings = badLineFindings(bad);
  for (const { missing, next } of unanswered) {
    for (const use of missing) {
      const line = index.nodes.at(use.k).line;
      const after = next === undefined
        ? "the branch ends there"
        : `line ${index.nodes.line(next.ks[0]!)} comes next without it`;
      findings.push({
        kind: "unanswered_call",
        line,
        callId: use.id,
        message: `${path}:${line}: tool_use ${use.id} (${use.name}) has no tool_result in the ` +
          `next message (${after}): the API answers 400 to every request`,
      });
    }
  }
  for (const { bad: results } of unexpected) {
    for (const result of results) {
      const line = index.nodes.at(result.k).line;
      findings.push({
        kind: "unexpected_result",
        line,
        callId: result.id,
        message: `${path}:${line}: tool_result for ${result.id} answers no tool_use of the ` +
          "message right before it: the API answers 400 (unexpected tool_use_id)",
      });
    }
  }
  if (branch.cycleLine !== null) {
    findings.push({
      kind: "broken_chain",
      line: branch.cycleLine,
      callId: null,
      message: `${path}:${branch.cycleLine}: the parent chain runs in a cycle here`,
    });
  }
  if (branch.danglingParentLine !== null && cutOff(analysis)) {
    findings.push({
      kind: "broken_chain",
      line: branch.danglingParentLine,
      callId: null,
      message: `${path}:${branch.danglingParentLine}: its parentUuid names no line of the ` +
        "file: the conversation before it is lost to Claude Code",
    });
  }
  return findings.sort((a, b) => a.line - b.line);
}
