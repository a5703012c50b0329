/**
 * The first pass over a Claude Code transcript: one small node per line (its ids, kind and
 * byte range, never its text), and the facts that need every line (tokens, models, session
 * ids, working directories, titles).
 *
 * @module
 */
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

/** The kinds a node's bits hold by number (see {@linkcode Node}). */
const KINDS: readonly NodeKind[] = NODE_KINDS;
const KIND_NUMBER: Readonly<Record<NodeKind, number>> = Object.fromEntries(
  KINDS.map((kind, at) => [kind, at]),
) as Record<NodeKind, number>;
const SIDECHAIN = 1;
const SUPERSEDED = 2;
const KIND_SHIFT = 2;

/** The API response an assistant line is part of: one object for all of its lines. */
interface ResponseIds {
  readonly messageId: string | undefined;
  readonly model: string | undefined;
}

/** What few lines have: a label, a boundary's facts, the time and mode a labeled line keeps. */
interface Rare {
  readonly label: string | undefined;
  readonly boundary: BoundaryInfo | undefined;
  readonly time: string | undefined;
  readonly mode: string | undefined;
}

/**
 * One non-empty line of the file. Held for every line of a transcript, it is kept small: its
 * kind and flags in one number, an assistant line's response ids in one object its response's
 * lines share, and the fields few lines have in another (nine fields, 96 bytes, where one
 * field each took 144: 3.6 MB of a 100 MB transcript's index).
 */
export class Node {
  /** The line number (1-based). */
  line: number;
  /** The line's byte range. */
  start: number;
  end: number;
  uuid: string | undefined;
  parentUuid: string | undefined;
  /** The parent's node index, or -1; resolved after the pass. */
  parent = -1;
  #bits: number;
  #response: ResponseIds | undefined;
  #rare: Rare | undefined;

  /** A node of the line at `span`; `response` and `rare` shared or undefined when absent. */
  constructor(
    span: LineSpan,
    fields: {
      kind: NodeKind;
      uuid: string | undefined;
      parentUuid: string | undefined;
      sidechain: boolean;
      response: ResponseIds | undefined;
      rare: Rare | undefined;
    },
  ) {
    this.line = span.line;
    this.start = span.start;
    this.end = span.end;
    this.uuid = fields.uuid;
    this.parentUuid = fields.parentUuid;
    this.#bits = (KIND_NUMBER[fields.kind] << KIND_SHIFT) | (fields.sidechain ? SIDECHAIN : 0);
    this.#response = fields.response;
    this.#rare = fields.rare;
  }

  /** What the line is. */
  get kind(): NodeKind {
    return KINDS[this.#bits >> KIND_SHIFT]!;
  }
  /** Whether the line is a subagent's (`isSidechain`). */
  get sidechain(): boolean {
    return (this.#bits & SIDECHAIN) !== 0;
  }
  /** Another line with this uuid counts instead (see {@linkcode indexTranscript}). */
  get superseded(): boolean {
    return (this.#bits & SUPERSEDED) !== 0;
  }
  set superseded(value: boolean) {
    this.#bits = value ? this.#bits | SUPERSEDED : this.#bits & ~SUPERSEDED;
  }
  /** The response whose ids this assistant line has (shared by its response's lines). */
  get response(): ResponseIds | undefined {
    return this.#response;
  }
  /** `message.id` of an assistant line: the lines of one API response share it. */
  get messageId(): string | undefined {
    return this.#response?.messageId;
  }
  /** The model of an assistant line. */
  get model(): string | undefined {
    return this.#response?.model;
  }
  /** The kind an ignored entry counts it under, for lines turnlog's model cannot hold. */
  get label(): string | undefined {
    return this.#rare?.label;
  }
  /** `compact_boundary` only: the line it continues and the preserved segment. */
  get boundary(): BoundaryInfo | undefined {
    return this.#rare?.boundary;
  }
  /**
   * A line with a `label` only: its time and permission mode, all the second pass needs of it
   * (it is not read again unless a checkpoint keeps it).
   */
  get time(): string | undefined {
    return this.#rare?.time;
  }
  /** A line with a `label` only: its permission mode. */
  get mode(): string | undefined {
    return this.#rare?.mode;
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

/** Token usage of one API response, the largest of each field over its lines. */
export interface MessageUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
  /** The time of its first line. */
  time: string | undefined;
  /** The model that answered. */
  model: string | undefined;
  /** The line of its first line. */
  line: number;
}

/**
 * The node each uuid is filed under, in a table of node indexes (8 bytes a slot with its hash, open
 * addressing) whose keys are the nodes' own uuids: no entry object per line. A `Map` of the 100
 * MB transcript's 74,509 uuids held a 3.7 MB table; this one holds 1 MB.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Node, UuidMap } from "./_index.ts";
 * const nodes = Array.from({ length: 2000 }, (_, at) =>
 *   new Node({ line: at + 1, start: at, end: at + 1 }, {
 *     kind: "prompt",
 *     uuid: `u${at % 1500}`,
 *     parentUuid: undefined,
 *     sidechain: false,
 *     response: undefined,
 *     rare: undefined,
 *   }));
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
 * ```
 */
export class UuidMap {
  readonly #nodes: readonly Node[];
  /** Node index + 1 per slot; 0 is empty, -1 a deleted entry. */
  #slots = new Int32Array(1024);
  /**
   * Each slot's key's hash: a probe compares it before it loads the node's uuid (a load from
   * anywhere in the heap, where the slots are side by side).
   */
  #hashes = new Int32Array(1024);
  #used = 0;

  /** An empty map over `nodes`, the index's nodes (an entry's key is its node's uuid). */
  constructor(nodes: readonly Node[]) {
    this.#nodes = nodes;
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
    const slots = this.#slots;
    const hashes = this.#hashes;
    const mask = slots.length - 1;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const held = slots[slot]!;
      if (held === 0) return -1;
      if (held > 0 && hashes[slot] === hash && this.#nodes[held - 1]!.uuid === uuid) return slot;
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
  nodes: Node[];
  byUuid: UuidMap;
  /** Usage per `message.id` and `requestId`: counted once however many lines repeat it. */
  usage: Map<string, MessageUsage>;
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
  const nodes: Node[] = [];
  return {
    nodes,
    byUuid: new UuidMap(nodes),
    usage: new Map(),
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
  // The lines of one response share its key: the string made for the first, hashed once.
  const key = last !== undefined && node.messageId === last.id && request === last.request
    ? last.key
    : keyOf(node.messageId, request);
  if (key === undefined) return;
  pass.usageKey = { id: node.messageId, request, key };
  const { index } = pass;
  const seen = index.usage.get(key) ??
    {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheCreation: 0,
      time: stringOf(value.timestamp),
      model: node.model,
      line: node.line,
    };
  // A split response repeats its usage on every line; the later lines carry the final output.
  seen.input = Math.max(seen.input, numberOf(usage.input_tokens) ?? 0);
  seen.output = Math.max(seen.output, numberOf(usage.output_tokens) ?? 0);
  seen.cacheRead = Math.max(seen.cacheRead, numberOf(usage.cache_read_input_tokens) ?? 0);
  seen.cacheCreation = Math.max(
    seen.cacheCreation,
    numberOf(usage.cache_creation_input_tokens) ?? 0,
  );
  index.usage.set(key, seen);
}

/** A line's fields read once each (loads from objects of many shapes are what cost here). */
interface Fields {
  type: string;
  message: Json | undefined;
  time: string | undefined;
  mode: string | undefined;
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

function nodeOf(value: Json, span: LineSpan, fields: Fields, last: Node | undefined): Node {
  const { type, message } = fields;
  const kind = classify(value, type, message);
  const label = labelOf(kind, type, value);
  const assistant = kind === "assistant" && message !== undefined;
  let response: ResponseIds | undefined;
  if (assistant) {
    const model = stringOf(message.model);
    const messageId = stringOf(message.id);
    // The lines of one response follow each other: they share one copy of its ids, and the
    // responses of one model one copy of its name.
    const before = last?.response;
    response = before !== undefined && before.messageId === messageId && before.model === model
      ? before
      : { messageId, model: before !== undefined && before.model === model ? before.model : model };
  }
  const boundary = kind === "boundary" ? boundaryInfo(value) : undefined;
  return new Node(span, {
    kind,
    uuid: stringOf(value.uuid),
    parentUuid: stringOf(value.parentUuid),
    sidechain: value.isSidechain === true,
    response,
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
  /** The newest assistant line's node: the next line of its response shares its strings. */
  assistant: Node | undefined;
  /** The last nodes filed under their uuid, newest at `recentAt - 1` (a ring; -1: none). */
  recent: Int32Array;
  recentAt: number;
  /** The usage key of the newest line with usage, and the ids it was made of. */
  usageKey: { id: string | undefined; request: string | undefined; key: string } | undefined;
  /** Nodes whose parent was not indexed yet when they were (resolved after the pass). */
  unresolved: number[];
  /** Whether a uuid moved to a later copy: then every parent is resolved again. */
  moved: boolean;
}

/** Reads the whole file once into an index; texts are parsed and dropped line by line. */
export async function indexTranscript(
  path: string,
  sizeBytes: number,
  options: IndexOptions = {},
): Promise<ClaudeIndex> {
  const pass: Pass = {
    index: newIndex(),
    path,
    sizeBytes,
    parsedBy: options.parsed,
    observe: options.observe,
    assistant: undefined,
    recent: new Int32Array(RECENT).fill(-1),
    recentAt: 0,
    usageKey: undefined,
    unresolved: [],
    moved: false,
  };
  const take = (line: Line) => indexLine(pass, line);
  if (options.lines) {
    for await (const line of options.lines) if (!take(line)) break;
  } else {
    // The file's own lines through a callback: no step of a generator per line.
    await forEachLine(path, take, { chunkSize: CHUNK_BYTES });
  }
  const { index } = pass;
  if (pass.moved) {
    for (const [at, node] of index.nodes.entries()) {
      if (node.parentUuid !== undefined) resolve(index, at);
    }
  } else {
    for (const at of pass.unresolved) resolve(index, at);
  }
  return index;
}

/** Nodes a line's parent is looked for among before the uuid map. */
const RECENT = 8;

/**
 * Links a node to its parent by the uuid its line names: the line that holds that uuid in the
 * end (see {@linkcode indexLine}), or -1.
 */
function resolve(index: ClaudeIndex, at: number, parent = -2): void {
  const node = index.nodes[at]!;
  node.parent = parent > -2 ? parent : index.byUuid.get(node.parentUuid!) ?? -1;
  // The parent's own string: one copy of each uuid kept, not two.
  if (node.parent >= 0) node.parentUuid = index.nodes[node.parent]!.uuid;
}

/**
 * The parent of a line as the uuid map has it now, looked for first among the last nodes
 * filed in it: the parent is nearly always one of them, and comparing strings is far cheaper
 * than the map's lookup of a string never hashed before (it costs hundreds of nanoseconds).
 * A node in `recent` is the map's node for its uuid until a uuid moves (`moved`), after which
 * every parent is resolved again.
 */
function parentNow(pass: Pass, uuid: string): number {
  const { recent } = pass;
  const { nodes } = pass.index;
  for (let step = 1; step <= RECENT; step++) {
    const at = recent[(pass.recentAt - step + RECENT) % RECENT]!;
    if (at < 0) break;
    if (nodes[at]!.uuid === uuid) return at;
  }
  return pass.index.byUuid.get(uuid) ?? -1;
}

/** The node of a line that is not a JSON object. */
function problemNode(span: LineSpan): Node {
  return new Node(span, {
    kind: "problem",
    uuid: undefined,
    parentUuid: undefined,
    sidechain: false,
    response: undefined,
    rare: undefined,
  });
}

/** Adds one line to the index; false once the line is past `sizeBytes` (the end). */
function indexLine(pass: Pass, line: Line): boolean {
  if (line.text.length === 0 && line.terminated) return true;
  if (line.start >= pass.sizeBytes) return false;
  const { index } = pass;
  index.endOffset = line.end;
  // Every line is parsed, hook progress too: its kind could be told from its bytes, but not that
  // it is valid JSON, which the report says of every line (a bad one is a problem in its place),
  // and nothing short of the parse knows that. The second pass reads again only what it needs.
  const parsed = parseJsonLine(pass.path, line, pass.observe);
  if ("problem" in parsed) {
    index.nodes.push(problemNode(line));
    return true;
  }
  const { value } = parsed;
  const fields: Fields = {
    type: stringOf(value.type) ?? "",
    message: objectOf(value.message),
    time: isoTime(value.timestamp),
    mode: stringOf(value.permissionMode),
  };
  const node = nodeOf(value, line, fields, pass.assistant);
  const at = index.nodes.length;
  index.nodes.push(node);
  if (node.uuid !== undefined) placeUuid(pass, node, at);
  // The parent is nearly always an earlier line, found now while its strings are at hand.
  // Found now, it is the one found after the pass unless a uuid moves (`moved`) later.
  if (node.parentUuid !== undefined) {
    resolve(index, at, parentNow(pass, node.parentUuid));
    if (node.parent < 0) pass.unresolved.push(at);
  }
  noteFacts(index, value, node, fields);
  pass.parsedBy?.(value, line, at, node);
  if (node.kind === "assistant" && fields.message) {
    pass.assistant = node;
    if (node.model && node.model !== "<synthetic>") index.models.see(node.model, node.line);
    noteUsage(pass, value, fields.message, node);
  }
  return true;
}

/**
 * Files a node under its uuid. A resume replays lines as they were: the first copy keeps its
 * place in the file. A copy with another parent (a message a compaction kept) moves the line:
 * the last counts.
 */
function placeUuid(pass: Pass, node: Node, at: number): void {
  const { index } = pass;
  const earlier = index.byUuid.get(node.uuid!);
  if (earlier !== undefined && index.nodes[earlier]!.parentUuid === node.parentUuid) {
    node.superseded = true;
    return;
  }
  if (earlier !== undefined) {
    index.nodes[earlier]!.superseded = true;
    pass.moved = true;
  }
  index.byUuid.set(node.uuid!, at);
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
    this.#pass = {
      index: newIndex(),
      path,
      sizeBytes: Infinity,
      parsedBy: parsed,
      observe: undefined,
      assistant: undefined,
      recent: new Int32Array(RECENT).fill(-1),
      recentAt: 0,
      usageKey: undefined,
      unresolved: [],
      moved: false,
    };
  }

  /** Indexes the next line of the file. */
  add(line: Line): void {
    indexLine(this.#pass, line);
  }

  /** The index of the lines added so far, every parent resolved as a whole pass resolves it. */
  resolved(): ClaudeIndex {
    const pass = this.#pass;
    const { index } = pass;
    if (pass.moved) {
      for (const [at, node] of index.nodes.entries()) {
        if (node.parentUuid !== undefined) resolve(index, at);
      }
    } else {
      // Still unresolved: kept for the next time (the parent may come later).
      pass.unresolved = pass.unresolved.filter((at) => {
        resolve(index, at);
        return index.nodes[at]!.parent < 0;
      });
    }
    return index;
  }
}
