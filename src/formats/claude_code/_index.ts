/**
 * The first pass over a Claude Code transcript: one small node per line (its ids, kind and
 * byte range, never its text), and the facts that need every line (tokens, models, session
 * ids, working directories, titles).
 *
 * @module
 */
import { CallIdTable, freeArrays, IdList } from "../_call_ids.ts";
import { NumberedValues } from "../_numbered.ts";
import { msOfIsoTime } from "../_times.ts";
import { isoTime as isoTimeOfMs } from "../../text/mod.ts";
import type { UsageEvent } from "../_usage.ts";
import type { UsageEventList } from "../_usage_columns.ts";
import { exportedFromOf, type ExportSource } from "../_writer.ts";
import { forEachLine, type Line } from "../../io/mod.ts";
import type { LineSpan } from "../_types.ts";
import { classify, labelOf, NODE_KINDS, type NodeKind } from "./_kinds.ts";
import {
  FirstSeen,
  isObject,
  isoTime,
  type Json,
  type LineObserver,
  numberOf,
  objectOf,
  parseJsonLine,
  stringOf,
  TimeSpan,
} from "../_line.ts";
import type { ClaudeCost, ClaudeModelSwap } from "./_facts.ts";
export type { NodeKind } from "./_kinds.ts";

/** The kinds a node's bits hold by number (see {@linkcode NodeTable}). */
const KINDS: readonly NodeKind[] = NODE_KINDS;
const KIND_NUMBER: Readonly<Record<NodeKind, number>> = Object.fromEntries(
  KINDS.map((kind, at) => [kind, at]),
) as Record<NodeKind, number>;
const SIDECHAIN = 1;
const SUPERSEDED = 2;
/** The line has a uuid: as 16 bytes when `BINARY_UUID`, else as a string kept aside. */
const HAS_UUID = 4;
const BINARY_UUID = 8;
/** The line names a parent (`parentUuid`). */
const HAS_PARENT = 16;
const KIND_SHIFT = 5;

/** The API response an assistant line is part of: one object for all of its lines. */
interface ResponseIds {
  readonly messageId: string | undefined;
  readonly model: string | undefined;
}

/** What few lines have: a label, a boundary's facts, the time and mode a labeled line keeps. */
export interface Rare {
  readonly label: string | undefined;
  readonly boundary: BoundaryInfo | undefined;
  readonly time: string | undefined;
  readonly mode: string | undefined;
}

/** What a line's node is made of (see {@linkcode NodeTable.push}). */
export interface NodeFields {
  kind: NodeKind;
  uuid: string | undefined;
  /** Whether the line names a parent; the parent itself is set apart (`parent`, `parentUuid`). */
  hasParent: boolean;
  sidechain: boolean;
  /** An assistant line's `message.id` and model (the lines of one response share one copy). */
  messageId?: string | undefined;
  model?: string | undefined;
  assistant?: boolean;
  rare: Rare | undefined;
}

/** The character code of each lowercase hex digit, by its value. */
const HEX_CODES = Array.from("0123456789abcdef", (digit) => digit.charCodeAt(0));

/** The value of a lowercase hex digit's code unit, or -1. */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/** Whether position `at` of a uuid's 36 characters is a dash. */
const isDash = (at: number) => at === 8 || at === 13 || at === 18 || at === 23;

/** A uuid's 36 character codes, its dashes in place: filled by {@linkcode NodeTable.uuid}. */
const UUID_CODES: number[] = Array.from({ length: 36 }, (_, at) => isDash(at) ? 45 : 48);

/** Nodes a page of the columns holds: a page is added as the nodes grow, none copied. */
const PAGE_BITS = 14;
const PAGE = 1 << PAGE_BITS;
const PAGE_MASK = PAGE - 1;

/** The longest byte range a page's column holds; a longer one's end is kept aside. */
const MAX_LENGTH = 0xffff_ffff;

/** A page's time for none (see {@linkcode Page.times}). */
const NO_TIME = -0x8000_0000;
/** A page's start kept aside (see {@linkcode Page.starts}). */
const START_ASIDE = 0xffff_ffff;

/** The columns of {@linkcode PAGE} nodes. */
interface Page {
  /**
   * The byte range's start, from the page's first (`startBase`): a start that is not within
   * 2^32 - 1 bytes after it is kept aside (where a `Float64Array` held 8 bytes a node).
   */
  starts: Uint32Array;
  startBase: number;
  /** The byte range's length, `end - start` (from 2^32 - 1 bytes on, its end is kept aside). */
  lengths: Uint32Array;
  parents: Int32Array;
  bits: Uint16Array;
  /** The index of an assistant line's response in the table's responses, else -1. */
  responses: Int32Array;
  /** 16 bytes a node. */
  uuids: Uint8Array;
  /** A rare line's label and permission mode: 1 + the number of each in the table's strings, or 0. */
  labels: Uint16Array;
  modes: Uint16Array;
  /** A labeled line's time in milliseconds since 1970, NaN for none (or one kept aside). */
  /**
   * A labeled line's time in milliseconds from the page's first (`timeBase`), {@linkcode
   * NO_TIME} for none (or one kept aside: more than 24 days from the first).
   */
  times: Int32Array;
  timeBase: number;
}

function newPage(): Page {
  return {
    starts: new Uint32Array(PAGE),
    startBase: NaN,
    lengths: new Uint32Array(PAGE),
    parents: new Int32Array(PAGE),
    bits: new Uint16Array(PAGE),
    responses: new Int32Array(PAGE),
    uuids: new Uint8Array(PAGE * 16),
    labels: new Uint16Array(PAGE),
    modes: new Uint16Array(PAGE),
    times: new Int32Array(PAGE).fill(NO_TIME),
    timeBase: NaN,
  };
}

/** Writes `uuid` as 16 bytes at `out` of `bytes`; false when it is not of that shape. */
function putUuid(bytes: Uint8Array, out: number, uuid: string): boolean {
  if (uuid.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    if (isDash(i)) {
      if (uuid.charCodeAt(i) !== 45) return false;
      continue;
    }
    const high = hexValue(uuid.charCodeAt(i));
    const low = hexValue(uuid.charCodeAt(++i));
    if (high < 0 || low < 0) return false;
    bytes[out++] = (high << 4) | low;
  }
  return true;
}

/**
 * Every non-empty line of a transcript as a node, held in columns of typed arrays, a page of
 * 16,384 nodes at a time: its line number, byte range, parent's node index, kind and flags, the
 * response its line is part of, and its uuid as 16 bytes (a uuid of another shape as a string
 * aside). No object per line: at 1 GB (760,000 lines) an object each and its uuid's string held
 * about 150 MB, and the columns hold 32 (42 bytes a node: its byte range as a start and a
 * length, where an end of 8 bytes more was 3 MB; its line number as its index but after blank
 * lines, where a column of them was 3 MB more; its start and a labeled line's time in 32 bits
 * from its page's first, where 64 bits each were 6 MB more). Pages, not arrays that grow by doubling: nothing is
 * copied as the nodes grow, and no array left behind waits for a collection (columns doubled to
 * 1,048,576 nodes and trimmed after the pass left about 50 MB of them at 1 GB).
 * {@linkcode NodeTable.at} gives a {@linkcode Node}, a view of one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NodeTable } from "./_index.ts";
 * const nodes = new NodeTable();
 * const uuid = "0b5c4a3e-1f2d-4c6b-8a9e-7d6c5b4a3f21";
 * const at = nodes.push({ line: 1, start: 0, end: 10 }, {
 *   kind: "prompt",
 *   uuid,
 *   hasParent: false,
 *   sidechain: false,
 *   rare: undefined,
 * });
 * nodes.push({ line: 2, start: 11, end: 20 }, {
 *   kind: "assistant",
 *   uuid: "odd-id",
 *   hasParent: true,
 *   sidechain: true,
 *   messageId: "msg_1",
 *   model: "claude",
 *   assistant: true,
 *   rare: undefined,
 * });
 * nodes.at(1).parent = at;
 * assert.equal(nodes.length, 2);
 * assert.deepEqual([nodes.start(1), nodes.end(1), nodes.at(0).end], [11, 20, 10]);
 * assert.equal(nodes.at(0).uuid, uuid);
 * assert.equal(nodes.uuidIs(0, uuid), true);
 * assert.equal(nodes.at(1).parentUuid, uuid); // the parent's own uuid
 * assert.equal(nodes.at(1).uuid, "odd-id");
 * assert.deepEqual([nodes.at(1).kind, nodes.at(1).messageId, nodes.at(1).sidechain], [
 *   "assistant",
 *   "msg_1",
 *   true,
 * ]);
 * // Line numbers past blank lines, and given in any order.
 * for (const line of [5, 6, 9, 4]) {
 *   nodes.push({ line, start: 0, end: 0 }, {
 *     kind: "meta",
 *     uuid: undefined,
 *     hasParent: false,
 *     sidechain: false,
 *     rare: undefined,
 *   });
 * }
 * assert.deepEqual([0, 1, 2, 3, 4, 5].map((at) => nodes.line(at)), [1, 2, 5, 6, 9, 4]);
 * ```
 */
export class NodeTable {
  /** How many nodes there are. */
  length = 0;
  /** The columns, a page of {@linkcode PAGE} nodes at a time. */
  readonly #pages: Page[] = [];
  /**
   * Each response's `message.id` (empty for none), its characters outside the heap, and its
   * model's number in `#models` + 1 (0: none) times 2, + 1 when it has a message id: an object
   * and an id string a response held 10 MB of heap at 1 GB (110,000 responses) to the read's end.
   */
  readonly #messageIds = new IdList();
  #responseBits = new Int32Array(1024);
  readonly #models = new NumberedValues();
  /** The newest response's ids, as its next line is compared with them. */
  #lastMessageId: string | undefined;
  #lastModel: string | undefined;
  /** The few boundaries' facts, by node. */
  readonly #boundaries = new Map<number, BoundaryInfo>();
  /** Labels and permission modes by number (see {@linkcode Page.labels}). */
  readonly #strings = new StringNumbers();
  /** A labeled line's time not written as `Date.prototype.toISOString` writes it, by node. */
  readonly #oddTimes = new Map<number, string>();
  /** Uuids that are not 36 lowercase characters of hex and dashes, by node. */
  readonly #otherUuids = new Map<number, string>();
  /**
   * Line numbers by where they stop being the node's index + 1 (a blank line, or lines given
   * out of order): from node `#shiftsAt[k]` on, a node's line is its index + `#shifts[k]`. A
   * file without blank lines has none, where a column of line numbers held 4 bytes a node.
   */
  readonly #shiftsAt: number[] = [];
  readonly #shifts: number[] = [];
  #lineShift = 1;
  /** Starts not within a page's reach of its first (see {@linkcode Page.starts}), by node. */
  readonly #oddStarts = new Map<number, number>();
  /** The ends of lines of {@linkcode MAX_LENGTH} bytes or more, by node. */
  readonly #longEnds = new Map<number, number>();
  /** The parent uuids no node holds (not found yet, or nowhere), by node. */
  readonly #parentUuids = new Map<number, string>();

  /**
   * Gives the columns' memory back now (32 MB at 1 GB), for a read done with its nodes, before
   * what comes after it makes its peak (its cost, its report); the table is empty after.
   */
  release(): void {
    for (const page of this.#pages) {
      const { starts, lengths, parents, bits, responses, uuids, labels, modes, times } = page;
      freeArrays(starts, lengths, parents, bits, responses, uuids, labels, modes, times);
    }
    this.#pages.length = 0;
    this.length = 0;
    const byNode = [this.#boundaries, this.#oddTimes, this.#otherUuids, this.#longEnds];
    for (const map of [...byNode, this.#oddStarts]) map.clear();
    this.#parentUuids.clear();
    this.#shiftsAt.length = 0;
    this.#shifts.length = 0;
    this.#lineShift = 1;
    this.#messageIds.release();
    freeArrays(this.#responseBits);
    this.#responseBits = new Int32Array(1024);
    this.#lastMessageId = undefined;
    this.#lastModel = undefined;
    this.#made = undefined;
    this.#madeFor = -1;
  }

  /** Adds the node of the line at `span`; returns its index. Its parent is -1 until set. */
  push(span: LineSpan, fields: NodeFields): number {
    const at = this.length;
    if ((at & PAGE_MASK) === 0) this.#pages.push(newPage());
    const page = this.#pages[at >>> PAGE_BITS]!;
    const i = at & PAGE_MASK;
    const shift = span.line - at;
    if (shift !== this.#lineShift) {
      this.#shiftsAt.push(at);
      this.#shifts.push(shift);
      this.#lineShift = shift;
    }
    if (Number.isNaN(page.startBase)) page.startBase = span.start;
    const offset = span.start - page.startBase;
    if (offset >= 0 && offset < START_ASIDE) page.starts[i] = offset;
    else {
      page.starts[i] = START_ASIDE;
      this.#oddStarts.set(at, span.start);
    }
    const length = span.end - span.start;
    page.lengths[i] = Math.min(length, MAX_LENGTH);
    if (length >= MAX_LENGTH) this.#longEnds.set(at, span.end);
    page.parents[i] = -1;
    let bits = (KIND_NUMBER[fields.kind] << KIND_SHIFT) | (fields.sidechain ? SIDECHAIN : 0) |
      (fields.hasParent ? HAS_PARENT : 0);
    const { uuid } = fields;
    if (uuid !== undefined) {
      bits |= HAS_UUID;
      if (putUuid(page.uuids, i * 16, uuid)) bits |= BINARY_UUID;
      else this.#otherUuids.set(at, uuid);
    }
    page.bits[i] = bits;
    page.responses[i] = fields.assistant === true ? this.#responseOf(fields) : -1;
    if (fields.rare !== undefined) this.#setRare(page, i, at, fields.rare);
    this.length = at + 1;
    return at;
  }

  /**
   * The response of an assistant line: the last one's when its ids are the same (the lines of
   * one response follow each other).
   */
  #responseOf(fields: NodeFields): number {
    const { messageId, model } = fields;
    const last = this.#messageIds.length - 1;
    if (last >= 0 && this.#lastMessageId === messageId && this.#lastModel === model) return last;
    const at = last + 1;
    if (at === this.#responseBits.length) {
      const bits = new Int32Array(at * 2);
      bits.set(this.#responseBits);
      this.#responseBits = bits;
    }
    this.#messageIds.push(messageId ?? "");
    const modelBits = model === undefined ? 0 : (this.#models.number(model) + 1) << 1;
    this.#responseBits[at] = modelBits | (messageId === undefined ? 0 : 1);
    this.#lastMessageId = messageId;
    this.#lastModel = model;
    return at;
  }

  /**
   * Keeps what few lines have in the page's columns: a progress line's time as a number, its
   * label and mode as numbers of strings kept once (an object and two strings each in a `Map`
   * were about 150 bytes of heap a line, 25 MB at 1 GB).
   */
  #setRare(page: Page, i: number, at: number, rare: Rare): void {
    if (rare.boundary !== undefined) this.#boundaries.set(at, rare.boundary);
    // Any label marks the line rare: an empty boundary's too (`labels` 0 is none).
    if (rare.label !== undefined) page.labels[i] = this.#strings.number(rare.label, at) + 1;
    if (rare.mode !== undefined) page.modes[i] = this.#strings.number(rare.mode, at, true) + 1;
    const { time } = rare;
    if (time === undefined) return;
    const ms = msOfIsoTime(time);
    if (!Number.isNaN(ms) && Number.isNaN(page.timeBase)) page.timeBase = ms;
    const offset = ms - page.timeBase;
    if (Number.isInteger(offset) && offset > NO_TIME && offset <= 0x7fff_ffff) {
      page.times[i] = offset;
    } else this.#oddTimes.set(at, time);
  }

  /** The page node `at` is on. */
  #page(at: number): Page {
    return this.#pages[at >>> PAGE_BITS]!;
  }

  /** Node `at`'s kind and flags. */
  #bits(at: number): number {
    return this.#page(at).bits[at & PAGE_MASK]!;
  }

  #setBits(at: number, bits: number): void {
    this.#page(at).bits[at & PAGE_MASK] = bits;
  }

  /** A view of node `at` (which must be below `length`). */
  at(at: number): Node {
    return new Node(this, at);
  }

  /** Calls `use` with every node and its index, in file order. */
  forEach(use: (node: Node, at: number) => void): void {
    for (let at = 0; at < this.length; at++) use(new Node(this, at), at);
  }

  /** Whether `test` holds for every node. */
  every(test: (node: Node, at: number) => boolean): boolean {
    for (let at = 0; at < this.length; at++) if (!test(new Node(this, at), at)) return false;
    return true;
  }

  /** The line number of node `at`. */
  line(at: number): number {
    const shiftsAt = this.#shiftsAt;
    if (shiftsAt.length === 0 || at < shiftsAt[0]!) return at + 1;
    // The last shift at or before node `at`.
    let low = 0;
    let high = shiftsAt.length;
    while (high - low > 1) {
      const middle = (low + high) >>> 1;
      if (shiftsAt[middle]! <= at) low = middle;
      else high = middle;
    }
    return at + this.#shifts[low]!;
  }
  /** The start of node `at`'s byte range. */
  start(at: number): number {
    const page = this.#page(at);
    const offset = page.starts[at & PAGE_MASK]!;
    return offset === START_ASIDE ? this.#oddStarts.get(at)! : page.startBase + offset;
  }
  /** The end of node `at`'s byte range. */
  end(at: number): number {
    const length = this.#page(at).lengths[at & PAGE_MASK]!;
    if (length === MAX_LENGTH) return this.#longEnds.get(at)!;
    return this.start(at) + length;
  }
  /** What node `at`'s line is. */
  kind(at: number): NodeKind {
    return KINDS[this.#bits(at) >> KIND_SHIFT]!;
  }
  /** The parent's node index of node `at`, or -1. */
  parent(at: number): number {
    return this.#page(at).parents[at & PAGE_MASK]!;
  }
  /**
   * Sets node `at`'s parent. A parent uuid kept aside is dropped when the parent holds it (the
   * parent's own uuid is its parent uuid then).
   */
  setParent(at: number, parent: number): void {
    this.#page(at).parents[at & PAGE_MASK] = parent;
    if (parent < 0) return;
    const kept = this.#parentUuids.get(at);
    if (kept !== undefined && this.uuidIs(parent, kept)) this.#parentUuids.delete(at);
  }
  /** Whether node `at`'s line has a uuid. */
  hasUuid(at: number): boolean {
    return (this.#bits(at) & HAS_UUID) !== 0;
  }
  /** Whether node `at`'s line names a parent. */
  hasParent(at: number): boolean {
    return (this.#bits(at) & HAS_PARENT) !== 0;
  }
  /** Whether node `at`'s line is a subagent's. */
  sidechain(at: number): boolean {
    return (this.#bits(at) & SIDECHAIN) !== 0;
  }
  /** Whether another line with node `at`'s uuid counts instead. */
  superseded(at: number): boolean {
    return (this.#bits(at) & SUPERSEDED) !== 0;
  }
  /** Marks node `at` superseded or not. */
  setSuperseded(at: number, value: boolean): void {
    this.#setBits(at, value ? this.#bits(at) | SUPERSEDED : this.#bits(at) & ~SUPERSEDED);
  }

  /**
   * The uuid of node `at` (a string made on asking for a uuid held as bytes). Made from its
   * character codes in one call, a flat string of 36 bytes: made by `+=` it was a tree of 14
   * strings (about 450 bytes of heap), and a turn keeps its first line's as its run id (25,000
   * turns, 11 MB at 1 GB).
   */
  uuid(at: number): string | undefined {
    const bits = this.#bits(at);
    if ((bits & HAS_UUID) === 0) return undefined;
    if ((bits & BINARY_UUID) === 0) return this.#otherUuids.get(at);
    const bytes = this.#page(at).uuids;
    const codes = UUID_CODES;
    let from = (at & PAGE_MASK) * 16;
    for (let i = 0; i < 36; i++) {
      if (isDash(i)) continue;
      const byte = bytes[from++]!;
      codes[i] = HEX_CODES[byte >> 4]!;
      codes[++i] = HEX_CODES[byte & 15]!;
    }
    return String.fromCharCode.apply(null, codes);
  }

  /** Whether node `at`'s uuid is `uuid` (no string made). */
  uuidIs(at: number, uuid: string): boolean {
    const bits = this.#bits(at);
    if ((bits & HAS_UUID) === 0) return false;
    if ((bits & BINARY_UUID) === 0) return this.#otherUuids.get(at) === uuid;
    if (uuid.length !== 36) return false;
    const bytes = this.#page(at).uuids;
    let from = (at & PAGE_MASK) * 16;
    for (let i = 0; i < 36; i++) {
      if (isDash(i)) {
        if (uuid.charCodeAt(i) !== 45) return false;
        continue;
      }
      const high = hexValue(uuid.charCodeAt(i));
      const low = hexValue(uuid.charCodeAt(++i));
      if (high < 0 || low < 0 || bytes[from++] !== ((high << 4) | low)) return false;
    }
    return true;
  }

  /**
   * The parent uuid node `at`'s line names: its parent's uuid when its parent is found, else
   * the one kept aside.
   */
  parentUuid(at: number): string | undefined {
    if ((this.#bits(at) & HAS_PARENT) === 0) return undefined;
    const kept = this.#parentUuids.get(at);
    if (kept !== undefined) return kept;
    const parent = this.parent(at);
    return parent >= 0 ? this.uuid(parent) : undefined;
  }

  /** Sets the parent uuid node `at`'s line names (its parent index is set apart). */
  setParentUuid(at: number, uuid: string | undefined): void {
    if (uuid === undefined) {
      this.#setBits(at, this.#bits(at) & ~HAS_PARENT);
      this.#parentUuids.delete(at);
      return;
    }
    this.#setBits(at, this.#bits(at) | HAS_PARENT);
    const parent = this.parent(at);
    if (parent >= 0 && this.uuidIs(parent, uuid)) this.#parentUuids.delete(at);
    else this.#parentUuids.set(at, uuid);
  }

  /**
   * The number of the response node `at`'s assistant line is part of (the lines of one
   * response that follow each other share it), or -1.
   */
  responseNumber(at: number): number {
    return this.#page(at).responses[at & PAGE_MASK]!;
  }
  /** The response node `at`'s assistant line is part of (an object made on asking). */
  response(at: number): ResponseIds | undefined {
    const response = this.responseNumber(at);
    if (response < 0) return undefined;
    return { messageId: this.#messageIdOf(response), model: this.#modelOf(response) };
  }
  /** `message.id` of node `at`'s assistant line (a string made on asking). */
  messageId(at: number): string | undefined {
    const response = this.responseNumber(at);
    return response < 0 ? undefined : this.#messageIdOf(response);
  }
  /** The model of node `at`'s assistant line. */
  model(at: number): string | undefined {
    const response = this.responseNumber(at);
    return response < 0 ? undefined : this.#modelOf(response);
  }
  #messageIdOf(response: number): string | undefined {
    if ((this.#responseBits[response]! & 1) === 0) return undefined;
    // The lines of a response are asked for one after another: its id is made once for them.
    if (response !== this.#madeFor) {
      this.#made = this.#messageIds.at(response);
      this.#madeFor = response;
    }
    return this.#made;
  }
  /** The last message id made, and its response's number (-1: none). */
  #made: string | undefined;
  #madeFor = -1;
  #modelOf(response: number): string | undefined {
    const model = (this.#responseBits[response]! >> 1) - 1;
    return model < 0 ? undefined : this.#models.at(model);
  }
  /** What few lines have (a label, a boundary), of node `at` (an object made on asking). */
  rare(at: number): Rare | undefined {
    const label = this.label(at);
    const boundary = this.#boundaries.get(at);
    if (label === undefined && boundary === undefined) return undefined;
    return { label, boundary, time: this.time(at), mode: this.mode(at) };
  }
  /** The kind an ignored entry counts node `at`'s line under. */
  label(at: number): string | undefined {
    const number = this.#page(at).labels[at & PAGE_MASK]!;
    return number === 0 ? undefined : this.#strings.at(number - 1, at);
  }
  /** The facts of node `at`'s `compact_boundary` line. */
  boundary(at: number): BoundaryInfo | undefined {
    return this.#boundaries.get(at);
  }
  /** A labeled line's time, of node `at`. */
  time(at: number): string | undefined {
    const page = this.#page(at);
    const offset = page.times[at & PAGE_MASK]!;
    return offset === NO_TIME ? this.#oddTimes.get(at) : isoTimeOfMs(page.timeBase + offset);
  }
  /** A labeled line's permission mode, of node `at`. */
  mode(at: number): string | undefined {
    const number = this.#page(at).modes[at & PAGE_MASK]!;
    return number === 0 ? undefined : this.#strings.at(number - 1, at, true);
  }
}

/** The numbers {@linkcode StringNumbers} gives: one more is the mark of a string kept by node. */
const MANY_STRINGS = 0xfffe;

/**
 * A few strings (labels, permission modes) by number, each kept once; past {@linkcode
 * MANY_STRINGS} of them (a file of odd lines), a string is kept by its node instead.
 */
class StringNumbers {
  readonly #strings = new NumberedValues();
  /** Strings past the numbered ones, by node (`mode`: a permission mode's). */
  readonly #labels = new Map<number, string>();
  readonly #modes = new Map<number, string>();

  /** The number of `text`, node `at`'s (a mode's when `mode`), under 0xffff. */
  number(text: string, at: number, mode = false): number {
    const known = this.#strings.find(text);
    if (known !== undefined) return known;
    if (this.#strings.size === MANY_STRINGS) {
      (mode ? this.#modes : this.#labels).set(at, text);
      return MANY_STRINGS;
    }
    return this.#strings.number(text);
  }

  /** The string numbered `number` for node `at` (a mode's when `mode`). */
  at(number: number, at: number, mode = false): string | undefined {
    if (number < MANY_STRINGS) return this.#strings.at(number);
    return (mode ? this.#modes : this.#labels).get(at);
  }
}

/**
 * One non-empty line of the file: a view of its node in a {@linkcode NodeTable} (made on asking,
 * holding nothing but the table and the index).
 */
export class Node {
  /** A view of node `at` of `table`. */
  constructor(readonly table: NodeTable, readonly at: number) {}

  /** The line number (1-based). */
  get line(): number {
    return this.table.line(this.at);
  }
  /** The start of the line's byte range. */
  get start(): number {
    return this.table.start(this.at);
  }
  /** The end of the line's byte range. */
  get end(): number {
    return this.table.end(this.at);
  }
  /** The line's `uuid`. */
  get uuid(): string | undefined {
    return this.table.uuid(this.at);
  }
  /** The line's `parentUuid`. */
  get parentUuid(): string | undefined {
    return this.table.parentUuid(this.at);
  }
  set parentUuid(value: string | undefined) {
    this.table.setParentUuid(this.at, value);
  }
  /** The parent's node index, or -1; resolved after the pass. */
  get parent(): number {
    return this.table.parent(this.at);
  }
  set parent(value: number) {
    this.table.setParent(this.at, value);
  }
  /** What the line is. */
  get kind(): NodeKind {
    return this.table.kind(this.at);
  }
  /** Whether the line is a subagent's (`isSidechain`). */
  get sidechain(): boolean {
    return this.table.sidechain(this.at);
  }
  /** Another line with this uuid counts instead (see {@linkcode indexTranscript}). */
  get superseded(): boolean {
    return this.table.superseded(this.at);
  }
  set superseded(value: boolean) {
    this.table.setSuperseded(this.at, value);
  }
  /** The response whose ids this assistant line has (shared by its response's lines). */
  get response(): ResponseIds | undefined {
    return this.table.response(this.at);
  }
  /** `message.id` of an assistant line: the lines of one API response share it. */
  get messageId(): string | undefined {
    return this.table.messageId(this.at);
  }
  /** The model of an assistant line. */
  get model(): string | undefined {
    return this.table.model(this.at);
  }
  /** The kind an ignored entry counts it under, for lines turnlog's model cannot hold. */
  get label(): string | undefined {
    return this.table.label(this.at);
  }
  /** `compact_boundary` only: the line it continues and the preserved segment. */
  get boundary(): BoundaryInfo | undefined {
    return this.table.boundary(this.at);
  }
  /**
   * A line with a `label` only: its time and permission mode, all the second pass needs of it
   * (it is not read again unless a checkpoint keeps it).
   */
  get time(): string | undefined {
    return this.table.time(this.at);
  }
  /** A line with a `label` only: its permission mode. */
  get mode(): string | undefined {
    return this.table.mode(this.at);
  }
}

/** What a `compact_boundary` line says about the conversation it cuts. */
export interface BoundaryInfo {
  logicalParentUuid: string | undefined;
  headUuid: string | undefined;
  anchorUuid: string | undefined;
  tailUuid: string | undefined;
  /** The preserved messages' uuids, in order, when the line lists them. */
  preserved: string[];
  trigger: string | undefined;
  preTokens: number | undefined;
}

/** The tokens of one API response (or a sum of them). */
export interface ResponseTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** Token usage of one API response, the largest of each field over its lines. */
export interface MessageUsage extends ResponseTokens {
  /** The time of its first line. */
  time: string | undefined;
  /** The model that answered. */
  model: string | undefined;
  /** The line of its first line. */
  line: number;
}

/** Numbers a response's usage is kept as (see {@linkcode ResponseUsage}). */
const INPUT = 0;
const OUTPUT = 1;
const CACHE_READ = 2;
const CACHE_CREATION = 3;
/** The time of its first line in milliseconds since 1970, NaN for none (or one kept aside). */
const TIME = 4;
/** The model's number in the table's models, -1 for none. */
const MODEL = 5;
const LINE = 6;
const USAGE_STRIDE = 7;

/**
 * Token usage of each API response ({@linkcode MessageUsage}) by its key (its `message.id` and
 * `requestId`), as numbers: the keys' characters in a {@linkcode CallIdTable}, the rest in one
 * array of numbers, seven a response, the models by number. A `Map` of key strings and an object
 * each held about 200 bytes of heap a response, 22 MB at 1 GB; this holds 56 bytes outside it
 * and the key's characters. {@linkcode ResponseUsage.get} makes the object again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ResponseUsage } from "./_index.ts";
 * const usage = new ResponseUsage();
 * const first = { time: "2026-02-23T12:00:10.000Z", model: "claude", line: 3 };
 * usage.note("msg_1|req_1", { input: 10, output: 1, cacheRead: 0, cacheCreation: 5 }, first);
 * usage.note("msg_1|req_1", { input: 10, output: 7, cacheRead: 2, cacheCreation: 0 }, {
 *   ...first,
 *   line: 4,
 * });
 * usage.note("msg_2|", { input: 1, output: 2, cacheRead: 3, cacheCreation: 4 }, {
 *   time: "2026-02-23T12:00:10Z",
 *   model: undefined,
 *   line: 9,
 * });
 * assert.equal(usage.size, 2);
 * // The largest of each field; the first line's time, model and line.
 * assert.deepEqual(usage.get("msg_1|req_1"), {
 *   input: 10,
 *   output: 7,
 *   cacheRead: 2,
 *   cacheCreation: 5,
 *   time: "2026-02-23T12:00:10.000Z",
 *   model: "claude",
 *   line: 3,
 * });
 * assert.deepEqual([...usage.values()].map((u) => [u.time, u.model, u.line]), [
 *   ["2026-02-23T12:00:10.000Z", "claude", 3],
 *   ["2026-02-23T12:00:10Z", undefined, 9],
 * ]);
 * assert.equal(usage.get("msg_3|"), undefined);
 * assert.deepEqual(usage.tokens("msg_2|"), { input: 1, output: 2, cacheRead: 3, cacheCreation: 4 });
 * assert.deepEqual([...usage.allTokens()].map((t) => t.output), [7, 2]);
 * ```
 */
export class ResponseUsage {
  readonly #keys = new CallIdTable();
  #numbers = new Float64Array(1024 * USAGE_STRIDE);
  #count = 0;
  readonly #models = new NumberedValues();
  /** Times not written as `Date.prototype.toISOString` writes them, by response. */
  readonly #oddTimes = new Map<number, string>();

  /** How many responses there are. */
  get size(): number {
    return this.#count;
  }

  /**
   * Gives the keys' memory back now, for a read that asks for no response by its key again
   * (its events, its totals and {@linkcode ResponseUsage.values} still answer); {@linkcode
   * ResponseUsage.get}, `tokens` and `note` throw after.
   */
  releaseKeys(): void {
    this.#keys.release();
  }

  /**
   * Counts a line of the response `key`: each of `tokens` the largest of its lines' (a split
   * response repeats its usage on every line; the later lines carry the final output), `first`
   * kept from its first line.
   */
  note(
    key: string,
    tokens: { input: number; output: number; cacheRead: number; cacheCreation: number },
    first: { time: string | undefined; model: string | undefined; line: number },
  ): void {
    let entry = this.#keys.get(key);
    if (entry === undefined) entry = this.#add(key, first);
    const numbers = this.#numbers;
    const at = entry * USAGE_STRIDE;
    numbers[at + INPUT] = Math.max(numbers[at + INPUT]!, tokens.input);
    numbers[at + OUTPUT] = Math.max(numbers[at + OUTPUT]!, tokens.output);
    numbers[at + CACHE_READ] = Math.max(numbers[at + CACHE_READ]!, tokens.cacheRead);
    numbers[at + CACHE_CREATION] = Math.max(numbers[at + CACHE_CREATION]!, tokens.cacheCreation);
  }

  #add(
    key: string,
    first: { time: string | undefined; model: string | undefined; line: number },
  ): number {
    const entry = this.#count++;
    if (entry * USAGE_STRIDE === this.#numbers.length) {
      const numbers = new Float64Array(this.#numbers.length * 2);
      numbers.set(this.#numbers);
      this.#numbers = numbers;
    }
    this.#keys.set(key, entry);
    const numbers = this.#numbers;
    const at = entry * USAGE_STRIDE;
    // Zero, as a response's fields start (a line's missing field counts 0).
    numbers.fill(0, at, at + TIME);
    const { time, model } = first;
    let ms = NaN;
    if (time !== undefined) {
      ms = msOfIsoTime(time);
      if (Number.isNaN(ms)) this.#oddTimes.set(entry, time);
    }
    numbers[at + TIME] = ms;
    numbers[at + MODEL] = model === undefined ? -1 : this.#models.number(model);
    numbers[at + LINE] = first.line;
    return entry;
  }

  /** The usage of the response `key`, or undefined. */
  get(key: string): MessageUsage | undefined {
    const entry = this.#keys.get(key);
    return entry === undefined ? undefined : this.#usage(entry);
  }

  /**
   * The tokens of the response `key`, or undefined: its time and model are not made (writing
   * a time again cost more than the rest of the object).
   */
  tokens(key: string): ResponseTokens | undefined {
    const entry = this.#keys.get(key);
    return entry === undefined ? undefined : this.#tokens(entry);
  }

  #tokens(entry: number): ResponseTokens {
    const numbers = this.#numbers;
    const at = entry * USAGE_STRIDE;
    return {
      input: numbers[at + INPUT]!,
      output: numbers[at + OUTPUT]!,
      cacheRead: numbers[at + CACHE_READ]!,
      cacheCreation: numbers[at + CACHE_CREATION]!,
    };
  }

  /** Every response's tokens, in the order they were first noted (no time or model made). */
  *allTokens(): IterableIterator<ResponseTokens> {
    for (let entry = 0; entry < this.#count; entry++) yield this.#tokens(entry);
  }

  /**
   * The responses that have a time as the usage events a cost is reckoned from (see {@linkcode
   * ResponseUsageEvents}), each made on asking.
   */
  events(): ResponseUsageEvents {
    const timed = new Int32Array(this.#count);
    const numbers = this.#numbers;
    let length = 0;
    for (let entry = 0; entry < this.#count; entry++) {
      const ms = numbers[entry * USAGE_STRIDE + TIME]!;
      if (!Number.isNaN(ms) || this.#oddTimes.has(entry)) timed[length++] = entry;
    }
    return new ResponseUsageEvents(this, timed.subarray(0, length));
  }

  /** The usage event of response `entry` (which has a time). */
  event(entry: number): UsageEvent {
    const usage = this.#usage(entry);
    const model = usage.model === undefined || usage.model === "<synthetic>" ? null : usage.model;
    return {
      time: usage.time!,
      model,
      input: usage.input,
      output: usage.output,
      cacheRead: usage.cacheRead,
      cacheCreation: usage.cacheCreation,
      reasoningOutput: 0,
      line: usage.line,
    };
  }

  /** Every response's usage, in the order they were first noted. */
  *values(): IterableIterator<MessageUsage> {
    for (let entry = 0; entry < this.#count; entry++) yield this.#usage(entry);
  }

  #usage(entry: number): MessageUsage {
    const numbers = this.#numbers;
    const at = entry * USAGE_STRIDE;
    const ms = numbers[at + TIME]!;
    const model = numbers[at + MODEL]!;
    return {
      input: numbers[at + INPUT]!,
      output: numbers[at + OUTPUT]!,
      cacheRead: numbers[at + CACHE_READ]!,
      cacheCreation: numbers[at + CACHE_CREATION]!,
      time: Number.isNaN(ms) ? this.#oddTimes.get(entry) : isoTimeOfMs(ms),
      model: model < 0 ? undefined : this.#models.at(model),
      line: numbers[at + LINE]!,
    };
  }
}

/**
 * Each response of a {@linkcode ResponseUsage} that has a time, as a usage event made on
 * asking (`<synthetic>` and no model: null), in the order they were first noted: what an
 * array of the events held as objects, about 120 bytes a response of heap (its time a string),
 * alive through the cost at the read's end where the 1 GB transcript's peak is.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ResponseUsage } from "./_index.ts";
 * const usage = new ResponseUsage();
 * const tokens = { input: 10, output: 1, cacheRead: 0, cacheCreation: 5 };
 * usage.note("msg_1|", tokens, { time: "2026-02-23T12:00:10.000Z", model: "claude", line: 3 });
 * usage.note("msg_2|", tokens, { time: undefined, model: "claude", line: 5 });
 * usage.note("msg_3|", tokens, { time: "2026-02-23T12:00:11Z", model: "<synthetic>", line: 8 });
 * const events = usage.events();
 * assert.equal(events.length, 2);
 * assert.deepEqual(events.at(-1), {
 *   time: "2026-02-23T12:00:11Z",
 *   model: null,
 *   ...tokens,
 *   reasoningOutput: 0,
 *   line: 8,
 * });
 * assert.deepEqual(events.toArray().map((event) => event.line), [3, 8]);
 * assert.equal(events.at(2), undefined);
 * ```
 */
export class ResponseUsageEvents implements UsageEventList {
  readonly #usage: ResponseUsage;
  /** The responses' entries, those with a time. */
  readonly #entries: Int32Array;

  /** The events of `entries` of `usage`. */
  constructor(usage: ResponseUsage, entries: Int32Array) {
    this.#usage = usage;
    this.#entries = entries;
  }

  /** How many events there are. */
  get length(): number {
    return this.#entries.length;
  }

  /** The event at `index` (from the end when negative; a new object each time), or undefined. */
  at(index: number): UsageEvent | undefined {
    const entry = this.#entries.at(index);
    return entry === undefined ? undefined : this.#usage.event(entry);
  }

  /** Every event, as objects. */
  toArray(): UsageEvent[] {
    return Array.from(this.#entries, (entry) => this.#usage.event(entry));
  }
}

/**
 * The node each uuid is filed under, in a table of node indexes (8 bytes a slot with its hash, open
 * addressing) whose keys are the nodes' own uuids: no entry object per line. A `Map` of the 100
 * MB transcript's 74,509 uuids held a 3.7 MB table; this one holds 1 MB.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { NodeTable, UuidMap } from "./_index.ts";
 * const nodes = new NodeTable();
 * for (let at = 0; at < 2000; at++) {
 *   nodes.push({ line: at + 1, start: at, end: at + 1 }, {
 *     kind: "prompt",
 *     uuid: `u${at % 1500}`,
 *     hasParent: false,
 *     sidechain: false,
 *     rare: undefined,
 *   });
 * }
 * const map = new UuidMap(nodes);
 * nodes.forEach((node, at) => map.set(node.uuid!, at));
 * assert.equal(map.get("u7"), 1507); // the later node filed under a uuid replaces the first
 * assert.equal(map.get("u1499"), 1499);
 * map.delete("u7");
 * assert.equal(map.has("u7"), false);
 * assert.equal(map.get("u8"), 1508);
 * map.set("u7", 7);
 * assert.equal(map.get("u7"), 7);
 * assert.equal(map.get("nowhere"), undefined);
 * map.release();
 * assert.throws(() => map.get("u7"), /released/);
 * ```
 */
export class UuidMap {
  readonly #nodes: NodeTable;
  /** Node index + 1 per slot; 0 is empty, -1 a deleted entry. */
  #slots = new Int32Array(1024);
  /**
   * Each slot's key's hash: a probe compares it before it loads the node's uuid (a load from
   * anywhere in the heap, where the slots are side by side).
   */
  #hashes = new Int32Array(1024);
  #used = 0;

  /** An empty map over `nodes`, the index's nodes (an entry's key is its node's uuid). */
  constructor(nodes: NodeTable) {
    this.#nodes = nodes;
  }

  #released = false;

  /**
   * Lets the table go, for a read that asks no more of it (8 MB at 1 GB, held through the
   * second pass otherwise); any use after throws.
   */
  release(): void {
    this.#released = true;
    freeArrays(this.#slots, this.#hashes);
  }

  /** The node filed under `uuid`, or undefined. */
  get(uuid: string): number | undefined {
    const slot = this.#find(uuid, hashOf(uuid));
    return slot < 0 ? undefined : this.#slots[slot]! - 1;
  }

  /** Whether a node is filed under `uuid`. */
  has(uuid: string): boolean {
    return this.#find(uuid, hashOf(uuid)) >= 0;
  }

  /** Files node `at` under its uuid, `uuid`, in place of any node filed there before. */
  set(uuid: string, at: number): void {
    const hash = hashOf(uuid);
    const found = this.#find(uuid, hash);
    if (found >= 0) {
      this.#slots[found] = at + 1;
      return;
    }
    if ((this.#used + 1) * 4 > this.#slots.length * 3) this.#grow();
    const slots = this.#slots;
    const mask = slots.length - 1;
    let slot = hash & mask;
    while (slots[slot]! > 0) slot = (slot + 1) & mask;
    if (slots[slot] === 0) this.#used++;
    slots[slot] = at + 1;
    this.#hashes[slot] = hash;
  }

  /** Takes the node filed under `uuid` out. */
  delete(uuid: string): void {
    const slot = this.#find(uuid, hashOf(uuid));
    if (slot >= 0) this.#slots[slot] = -1;
  }

  /** The slot of `uuid`, whose hash is `hash`, or -1. */
  #find(uuid: string, hash: number): number {
    if (this.#released) throw new Error("The uuid map was released");
    const slots = this.#slots;
    const hashes = this.#hashes;
    const mask = slots.length - 1;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const held = slots[slot]!;
      if (held === 0) return -1;
      if (held > 0 && hashes[slot] === hash && this.#nodes.uuidIs(held - 1, uuid)) return slot;
    }
  }

  /** Twice the slots, the deleted entries dropped. */
  #grow(): void {
    const old = this.#slots;
    const oldHashes = this.#hashes;
    const slots = new Int32Array(old.length * 2);
    const hashes = new Int32Array(old.length * 2);
    const mask = slots.length - 1;
    let used = 0;
    for (let from = 0; from < old.length; from++) {
      const held = old[from]!;
      if (held <= 0) continue;
      const hash = oldHashes[from]!;
      let slot = hash & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = held;
      hashes[slot] = hash;
      used++;
    }
    this.#slots = slots;
    this.#hashes = hashes;
    this.#used = used;
  }
}

/** FNV-1a over a string's code units. */
function hashOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let at = 0; at < text.length; at++) {
    hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
  }
  return hash | 0;
}

/** Everything the first pass learns. */
export interface ClaudeIndex {
  nodes: NodeTable;
  byUuid: UuidMap;
  /** Usage per `message.id` and `requestId`: counted once however many lines repeat it. */
  usage: ResponseUsage;
  sessionIds: FirstSeen;
  cwds: FirstSeen;
  gitBranches: FirstSeen;
  models: FirstSeen;
  times: TimeSpan;
  version: string | undefined;
  permissionMode: string | undefined;
  /** Titles: `summary` lines by the leaf they name, and a custom title. */
  summaries: { summary: string; leafUuid: string | undefined }[];
  customTitle: string | undefined;
  /** Agent ids the session names (a Task tool's result), with the first line naming each. */
  agentIds: Map<string, number>;
  /** The file's own agent id, when it is a subagent's transcript. */
  agentId: string | undefined;
  hasTurnDuration: boolean;
  /** Where an exported transcript came from (its first `turnlogExportedFrom`). */
  exportedFrom: ExportSource | undefined;
  /** The `system` lines that say Claude Code used another model (see ClaudeModelSwap). */
  modelSwaps: ClaudeModelSwap[];
  /** The last `cost-state` line's totals. */
  cost: ClaudeCost | null;
  /** Bytes the pass covered: a file that grows meanwhile is read up to here, twice. */
  endOffset: number;
}
function boundaryInfo(value: Json): BoundaryInfo {
  const meta = objectOf(value.compactMetadata) ?? {};
  const segment = objectOf(meta.preservedSegment) ?? {};
  const listed = objectOf(meta.preservedMessages)?.uuids;
  return {
    logicalParentUuid: stringOf(value.logicalParentUuid),
    headUuid: stringOf(segment.headUuid),
    anchorUuid: stringOf(segment.anchorUuid),
    tailUuid: stringOf(segment.tailUuid),
    preserved: Array.isArray(listed)
      ? listed.filter((u): u is string => typeof u === "string")
      : [],
    trigger: stringOf(meta.trigger),
    preTokens: numberOf(meta.preTokens),
  };
}
function newIndex(): ClaudeIndex {
  const nodes = new NodeTable();
  return {
    nodes,
    byUuid: new UuidMap(nodes),
    usage: new ResponseUsage(),
    sessionIds: new FirstSeen(),
    cwds: new FirstSeen(),
    gitBranches: new FirstSeen(),
    models: new FirstSeen(),
    times: new TimeSpan(),
    version: undefined,
    permissionMode: undefined,
    summaries: [],
    customTitle: undefined,
    agentIds: new Map(),
    agentId: undefined,
    exportedFrom: undefined,
    hasTurnDuration: false,
    modelSwaps: [],
    cost: null,
    endOffset: 0,
  };
}

/** The key usage is counted once under: the API response's id and its request's id. */
export function usageKey(value: Json, message: Json): string | undefined {
  return keyOf(stringOf(message.id), stringOf(value.requestId));
}

const keyOf = (id: string | undefined, request: string | undefined): string | undefined =>
  id === undefined && request === undefined ? undefined : `${id ?? ""}|${request ?? ""}`;

function noteUsage(pass: Pass, value: Json, message: Json, node: Node): void {
  const usage = objectOf(message.usage);
  if (!usage) return;
  const request = stringOf(value.requestId);
  const last = pass.usageKey;
  const response = pass.index.nodes.responseNumber(node.at);
  // The lines of one response share its key: the string made for the first, hashed once.
  const key = last !== undefined && response === last.response && request === last.request
    ? last.key
    : keyOf(node.messageId, request);
  if (key === undefined) return;
  pass.usageKey = { response, request, key };
  pass.index.usage.note(key, {
    input: numberOf(usage.input_tokens) ?? 0,
    output: numberOf(usage.output_tokens) ?? 0,
    cacheRead: numberOf(usage.cache_read_input_tokens) ?? 0,
    cacheCreation: numberOf(usage.cache_creation_input_tokens) ?? 0,
  }, { time: stringOf(value.timestamp), model: node.model, line: node.line });
}

/** A line's fields read once each (loads from objects of many shapes are what cost here). */
interface Fields {
  type: string;
  message: Json | undefined;
  time: string | undefined;
  mode: string | undefined;
  parentUuid: string | undefined;
}

function noteFacts(index: ClaudeIndex, value: Json, node: Node, fields: Fields): void {
  index.times.seeTime(fields.time);
  index.sessionIds.see(stringOf(value.sessionId), node.line);
  index.cwds.see(stringOf(value.cwd), node.line);
  index.gitBranches.see(stringOf(value.gitBranch), node.line);
  index.version = stringOf(value.version) ?? index.version;
  index.agentId ??= stringOf(value.agentId);
  if (value.turnlogExportedFrom !== undefined) {
    index.exportedFrom ??= exportedFromOf(value.turnlogExportedFrom);
  }
  if (fields.mode !== undefined) index.permissionMode = fields.mode;
  const { type } = fields;
  if (type === "summary" && typeof value.summary === "string") {
    index.summaries.push({ summary: value.summary, leafUuid: stringOf(value.leafUuid) });
  }
  if (type === "custom-title") index.customTitle = stringOf(value.customTitle) ?? index.customTitle;
  const result = objectOf(value.toolUseResult);
  const agent = result && stringOf(result.agentId);
  if (agent !== undefined && !index.agentIds.has(agent)) index.agentIds.set(agent, node.line);
  if (node.kind === "turn_duration") index.hasTurnDuration = true;
  if (type === "system") {
    const restriction = objectOf(value.modelRestriction);
    if (restriction !== undefined) {
      index.modelSwaps.push({
        line: node.line,
        requestedModel: stringOf(restriction.requestedModel) ?? null,
        effectiveModel: stringOf(restriction.effectiveModel) ?? null,
        level: stringOf(value.level) ?? null,
        content: stringOf(value.content) ?? null,
      });
    }
  } else if (type === "cost-state") index.cost = costOf(value, node.line);
}

/** A `cost-state` line's totals. */
function costOf(value: Json, line: number): ClaudeCost {
  const models: Record<string, number> = {};
  for (const [model, usage] of Object.entries(objectOf(value.modelUsage) ?? {})) {
    const cost = isObject(usage) ? numberOf(usage.costUSD) : undefined;
    if (cost !== undefined) models[model] = cost;
  }
  return {
    line,
    totalCostUSD: numberOf(value.totalCostUSD) ?? null,
    models,
    unknownModelCost: value.hasUnknownModelCost === true,
  };
}

/** Adds the node of a parsed line to the table; returns its index. */
function pushNode(nodes: NodeTable, value: Json, span: LineSpan, fields: Fields): number {
  const { type, message } = fields;
  const kind = classify(value, type, message);
  const label = labelOf(kind, type, value);
  const assistant = kind === "assistant" && message !== undefined;
  const boundary = kind === "boundary" ? boundaryInfo(value) : undefined;
  return nodes.push(span, {
    kind,
    uuid: stringOf(value.uuid),
    hasParent: fields.parentUuid !== undefined,
    sidechain: value.isSidechain === true,
    assistant,
    messageId: assistant ? stringOf(message.id) : undefined,
    model: assistant ? stringOf(message.model) : undefined,
    rare: label === undefined && boundary === undefined ? undefined : {
      label,
      boundary,
      time: label === undefined ? undefined : fields.time,
      mode: label === undefined ? undefined : fields.mode,
    },
  });
}

/** Options of {@linkcode indexTranscript}. */
export interface IndexOptions {
  /** The lines to index instead of the file's own (repair indexes the file as it will be). */
  lines?: AsyncIterable<Line>;
  /** Called with each line's parsed object (not a bad line's), as it is indexed. */
  parsed?: (value: Json, line: Line, at: number, node: Node) => void;
  /** Told of each line parsed, bad ones too (see `ReadSessionOptions.onLine`). */
  observe?: LineObserver | undefined;
}

/**
 * Bytes read at a time by the first pass. Read 1 MiB at a time and decoded whole, a chunk's text
 * waited in V8's large-object space for a full collection (a 100 MB file's peak RSS 25 MB
 * higher); the line reader now decodes 32 KiB at a time, and 96 KiB reads are still 4-12%
 * faster in process than its 1 MiB ones (a buffer the caches hold).
 */
const CHUNK_BYTES = 96 << 10;

/** What the pass carries from line to line besides the index. */
interface Pass {
  index: ClaudeIndex;
  path: string;
  sizeBytes: number;
  parsedBy: IndexOptions["parsed"];
  observe: LineObserver | undefined;
  /** The last nodes filed under their uuid, newest at `recentAt - 1` (a ring; -1: none). */
  recent: Int32Array;
  recentAt: number;
  /** The usage key of the newest line with usage, and its response's number and request id. */
  usageKey: { response: number; request: string | undefined; key: string } | undefined;
  /** Nodes whose parent was not indexed yet when they were (resolved after the pass). */
  unresolved: number[];
  /** Whether a uuid moved to a later copy: then every parent is resolved again. */
  moved: boolean;
}

/** A pass over no line yet. */
function newPass(path: string, sizeBytes: number, options: IndexOptions): Pass {
  return {
    index: newIndex(),
    path,
    sizeBytes,
    parsedBy: options.parsed,
    observe: options.observe,
    recent: new Int32Array(RECENT).fill(-1),
    recentAt: 0,
    usageKey: undefined,
    unresolved: [],
    moved: false,
  };
}

/** Reads the whole file once into an index; texts are parsed and dropped line by line. */
export async function indexTranscript(
  path: string,
  sizeBytes: number,
  options: IndexOptions = {},
): Promise<ClaudeIndex> {
  const pass = newPass(path, sizeBytes, options);
  const take = (line: Line) => indexLine(pass, line);
  if (options.lines) {
    for await (const line of options.lines) if (!take(line)) break;
  } else {
    // The file's own lines through a callback: no step of a generator per line.
    await forEachLine(path, take, { chunkSize: CHUNK_BYTES });
  }
  const { index } = pass;
  if (pass.moved) resolveAll(index);
  else for (const at of pass.unresolved) resolve(index, at);
  return index;
}

/** Links every node that names a parent again (a uuid moved: the parent may be another node). */
function resolveAll(index: ClaudeIndex): void {
  const { nodes } = index;
  for (let at = 0; at < nodes.length; at++) if (nodes.hasParent(at)) resolve(index, at);
}

/** Nodes a line's parent is looked for among before the uuid map. */
const RECENT = 8;

/**
 * Links a node to its parent by the uuid its line names: the line that holds that uuid in the
 * end (see {@linkcode indexLine}), or -1.
 */
function resolve(index: ClaudeIndex, at: number): void {
  const { nodes } = index;
  const uuid = nodes.parentUuid(at)!;
  const parent = index.byUuid.get(uuid) ?? -1;
  // The uuid kept aside when no node holds it (the parent's own uuid is it otherwise).
  if (parent < 0) nodes.setParentUuid(at, uuid);
  nodes.setParent(at, parent);
}

/**
 * The parent of a line as the uuid map has it now, looked for first among the last nodes
 * filed in it: the parent is nearly always one of them, and comparing a uuid with a node's
 * bytes is far cheaper than the map's lookup of a string never hashed before (it costs
 * hundreds of nanoseconds). A node in `recent` is the map's node for its uuid until a uuid
 * moves (`moved`), after which every parent is resolved again.
 */
function parentNow(pass: Pass, uuid: string): number {
  const { recent } = pass;
  const { nodes } = pass.index;
  for (let step = 1; step <= RECENT; step++) {
    const at = recent[(pass.recentAt - step + RECENT) % RECENT]!;
    if (at < 0) break;
    if (nodes.uuidIs(at, uuid)) return at;
  }
  return pass.index.byUuid.get(uuid) ?? -1;
}

/** What a line that is not a JSON object is made into. */
const PROBLEM: NodeFields = {
  kind: "problem",
  uuid: undefined,
  hasParent: false,
  sidechain: false,
  rare: undefined,
};

/** Adds one line to the index; false once the line is past `sizeBytes` (the end). */
function indexLine(pass: Pass, line: Line): boolean {
  if (line.text.length === 0 && line.terminated) return true;
  if (line.start >= pass.sizeBytes) return false;
  const { index } = pass;
  const { nodes } = index;
  index.endOffset = line.end;
  // Every line is parsed, hook progress too: its kind could be told from its bytes, but not that
  // it is valid JSON, which the report says of every line (a bad one is a problem in its place),
  // and nothing short of the parse knows that. The second pass reads again only what it needs.
  const parsed = parseJsonLine(pass.path, line, pass.observe);
  if ("problem" in parsed) {
    nodes.push(line, PROBLEM);
    return true;
  }
  const { value } = parsed;
  const fields: Fields = {
    type: stringOf(value.type) ?? "",
    message: objectOf(value.message),
    time: isoTime(value.timestamp),
    mode: stringOf(value.permissionMode),
    parentUuid: stringOf(value.parentUuid),
  };
  const at = pushNode(nodes, value, line, fields);
  const node = nodes.at(at);
  const uuid = stringOf(value.uuid);
  if (uuid !== undefined) placeUuid(pass, at, uuid, fields.parentUuid);
  // The parent is nearly always an earlier line, found now while its strings are at hand.
  // Found now, it is the one found after the pass unless a uuid moves (`moved`) later.
  if (fields.parentUuid !== undefined) {
    const parent = parentNow(pass, fields.parentUuid);
    if (parent < 0) {
      nodes.setParentUuid(at, fields.parentUuid);
      pass.unresolved.push(at);
    } else nodes.setParent(at, parent);
  }
  noteFacts(index, value, node, fields);
  pass.parsedBy?.(value, line, at, node);
  if (fields.message !== undefined && nodes.kind(at) === "assistant") {
    const model = nodes.model(at);
    if (model && model !== "<synthetic>") index.models.see(model, line.line);
    noteUsage(pass, value, fields.message, node);
  }
  return true;
}

/**
 * Files node `at` under its uuid, `uuid`, its line naming `parentUuid`. A resume replays lines
 * as they were: the first copy keeps its place in the file. A copy with another parent (a
 * message a compaction kept) moves the line: the last counts.
 */
function placeUuid(pass: Pass, at: number, uuid: string, parentUuid: string | undefined): void {
  const { index } = pass;
  const { nodes } = index;
  const earlier = index.byUuid.get(uuid);
  if (earlier !== undefined && nodes.parentUuid(earlier) === parentUuid) {
    nodes.setSuperseded(at, true);
    return;
  }
  if (earlier !== undefined) {
    nodes.setSuperseded(earlier, true);
    pass.moved = true;
  }
  index.byUuid.set(uuid, at);
  pass.recent[pass.recentAt] = at;
  pass.recentAt = (pass.recentAt + 1) % RECENT;
}

/**
 * The first pass kept open: lines added as they come ({@linkcode TranscriptIndexer.add}), the
 * parents of lines indexed before theirs resolved on asking ({@linkcode
 * TranscriptIndexer.resolved}), so a followed transcript's index grows with what was appended
 * and equals the index a whole pass gives.
 */
export class TranscriptIndexer {
  readonly #pass: Pass;

  /** An empty index of the file at `path` (named in problems; nothing is read). */
  constructor(path: string, parsed?: IndexOptions["parsed"]) {
    this.#pass = newPass(path, Infinity, parsed === undefined ? {} : { parsed });
  }

  /** Indexes the next line of the file. */
  add(line: Line): void {
    indexLine(this.#pass, line);
  }

  /** The index of the lines added so far, every parent resolved as a whole pass resolves it. */
  resolved(): ClaudeIndex {
    const pass = this.#pass;
    const { index } = pass;
    if (pass.moved) resolveAll(index);
    else {
      // Still unresolved: kept for the next time (the parent may come later).
      pass.unresolved = pass.unresolved.filter((at) => {
        resolve(index, at);
        return index.nodes.parent(at) < 0;
      });
    }
    return index;
  }
}
