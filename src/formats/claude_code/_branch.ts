/**
 * The active branch of a Claude Code transcript: walked back through `parentUuid` from the
 * newest line, across each compaction to the line its boundary continues, with the split
 * lines of parallel tool calls stitched back in; every other branch reported as a fork. Pure:
 * it works on the first pass's nodes only.
 *
 * @module
 */
import type { ForeignFork, ForkKind } from "../_types.ts";
import type { ClaudeIndex, Node, NodeTable } from "./_index.ts";

/**
 * A set of node indexes of one transcript: a byte per node, iterated in file order. It stands
 * for a `Set<number>` of up to a node per line, whose every lookup and insertion goes through
 * a hash table far larger than the caches.
 */
export class NodeSet implements Iterable<number> {
  readonly #has: Uint8Array;
  #size = 0;

  /** An empty set over `length` nodes. */
  constructor(length: number) {
    this.#has = new Uint8Array(length);
  }

  /** Whether node `at` is in the set (false for an index outside the nodes). */
  has(at: number): boolean {
    return this.#has[at] === 1;
  }

  /** Puts node `at` in the set. */
  add(at: number): void {
    if (this.#has[at] === 1) return;
    this.#has[at] = 1;
    this.#size++;
  }

  /** How many nodes are in the set. */
  get size(): number {
    return this.#size;
  }

  /**
   * The nodes in the set, in file order, each found as it is asked for: a generator's step per
   * node cost more than the loop it drives, and an array of them made first held 4.5 MB of heap
   * for each walk over the branch at 1 GB, for a full collection to free.
   */
  [Symbol.iterator](): IterableIterator<number> {
    return new NodeSetMembers(this.#has);
  }
}

/** The members of a {@linkcode NodeSet} (its bytes), found one at a time in file order. */
class NodeSetMembers implements IterableIterator<number> {
  readonly #has: Uint8Array;
  #at = -1;

  constructor(has: Uint8Array) {
    this.#has = has;
  }

  next(): IteratorResult<number> {
    const has = this.#has;
    let at = this.#at + 1;
    while (at < has.length && has[at] !== 1) at++;
    this.#at = at;
    return at < has.length ? { value: at, done: false } : { value: undefined, done: true };
  }

  [Symbol.iterator](): IterableIterator<number> {
    return this;
  }
}

/** The active branch and what hangs off it. */
export interface Branch {
  /** Node indexes emitted at their own place (iterated in file order). */
  active: NodeSet;
  /** For the node a checkpoint is written at: its boundary and the preserved nodes it keeps. */
  checkpoints: Map<number, { boundary: number; kept: number[] }>;
  /** Nodes whose items a checkpoint keeps (read when passed, used at the checkpoint). */
  kept: NodeSet;
  /** Boundaries whose checkpoint is written at a later node (their summary line). */
  foldedBoundaries: Set<number>;
  /** `<command-name>` lines that ran locally (their output follows): not prompts. */
  localCommands: Set<number>;
  leaf: number;
  /** The walk back from the leaf, root first, split at each boundary it crosses. */
  segments: number[][];
  cycleLine: number | null;
  danglingParentLine: number | null;
  forks: ForeignFork[];
  /** Lines on no branch that holds a message (hook progress and the like). */
  sideLines: number;
  /** Boundaries whose logical parent the file lacks, and the line the walk went on from. */
  joins: BoundaryJoin[];
  /**
   * Lines written before their parent, and the lines that hang off them and would be read
   * before them, by that parent: they are read right after it, as Claude Code's chain orders
   * them (see {@linkcode readOrder}).
   */
  after: Map<number, number[]>;
}

/** A compaction whose logical parent is in no line: the line before it that it continues. */
export interface BoundaryJoin {
  /** The `compact_boundary` line. */
  line: number;
  /** The newest line before it in file order, which the walk went on from. */
  continuesLine: number;
}

/** Nodes that take part in the conversation's tree. */
const inTree = (node: Node) =>
  node.table.hasUuid(node.at) && !node.superseded && node.kind !== "problem" &&
  node.kind !== "meta";

/** Lines the user or the model wrote into the conversation (not local commands or hooks). */
const MESSAGE_KINDS: ReadonlySet<string> = new Set([
  "prompt",
  "assistant",
  "tool_result",
  "compact_summary",
  "interrupt",
]);
/** User lines of local commands and injected text. */
const LOCAL_KINDS: ReadonlySet<string> = new Set(["command", "local_output", "user_meta"]);

/**
 * The newest line of the tree before node `end` that satisfies `test`, sidechain lines only when
 * all are.
 */
function newest(nodes: NodeTable, end: number, test: (node: Node) => boolean): number {
  let fallback = -1;
  for (let i = end - 1; i >= 0; i--) {
    const node = nodes.at(i);
    if (!inTree(node) || !test(node)) continue;
    if (!node.sidechain) return i;
    if (fallback === -1) fallback = i;
  }
  // A subagent's transcript is all sidechain lines.
  return fallback;
}

/**
 * The line to walk back from: the newest line that descends from the newest message. A
 * local command run after the conversation on a line of its own (`!cmd` off the session's
 * first caveat) is then a fork, not the conversation; trailing hook and timing lines that
 * follow the last message stay on the branch.
 */
function findLeaf(nodes: NodeTable, end = nodes.length): number {
  const message = newest(nodes, end, (node) => MESSAGE_KINDS.has(node.kind));
  if (message < 0) return newest(nodes, end, () => true);
  const budget = end - message;
  for (let i = end - 1; i > message; i--) {
    if (!inTree(nodes.at(i)) || nodes.at(i).sidechain !== nodes.at(message).sidechain) continue;
    let at = i;
    for (let step = 0; step < budget && at > message; step++) at = nodes.at(at).parent;
    if (at === message) return i;
  }
  return message;
}

/**
 * Where the walk goes after a boundary: the line it continues (`logicalParentUuid`), or,
 * when that line was rewritten after the boundary (a preserved tail), the last preserved
 * message written before it. When the file holds neither (Claude Code can name a line it
 * never wrote), the conversation before the boundary in file order is still the session's own
 * past: the walk goes on from its newest line (`joined`).
 */
function acrossBoundary(index: ClaudeIndex, boundary: number): { at: number; joined: boolean } {
  const info = index.nodes.at(boundary).boundary!;
  const candidates = [info.logicalParentUuid, ...[...info.preserved].reverse()];
  for (const uuid of candidates) {
    if (uuid === undefined) continue;
    const at = index.byUuid.get(uuid);
    if (at !== undefined && at < boundary) return { at, joined: false };
  }
  const at = findLeaf(index.nodes, boundary);
  return { at, joined: at >= 0 };
}

interface Walk {
  /** The chain from the root to the leaf, split at each boundary it crosses. */
  segments: number[][];
  cycleLine: number | null;
  danglingParentLine: number | null;
  joins: BoundaryJoin[];
}

/**
 * The tail of a preserved segment whose lines the file chains from `tail` back to `head`; -1
 * when the chain breaks before it (a line missing), so the walk keeps to the file's links.
 */
function chainedTail(nodes: NodeTable, head: number, tail: number): number {
  let at = tail;
  for (let step = 0; at >= 0 && step < nodes.length; step++) {
    if (at === head) return tail;
    at = nodes.at(at).parent;
  }
  return -1;
}

/** Walks back from the leaf. A line met twice in one segment is a cycle: the walk stops. */
function walkBack(index: ClaudeIndex, leaf: number): Walk {
  const { nodes } = index;
  // Claude Code relinks a preserved segment as it loads the file: its head hangs off the
  // summary (the anchor) until its boundary is crossed, and the lines written off the anchor
  // hang off its tail (2.1.332 writes the next prompt's chain off the summary, not the tail).
  const relinks = new Map<number, { anchor: number; boundary: number }>();
  const splices = new Map<number, { head: number; tail: number; boundary: number }>();
  nodes.forEach((node, at) => {
    const info = node.boundary;
    if (!info?.headUuid || !info.anchorUuid) return;
    const head = index.byUuid.get(info.headUuid);
    const anchor = index.byUuid.get(info.anchorUuid);
    if (head === undefined || anchor === undefined) return;
    relinks.set(head, { anchor, boundary: at });
    const tail = info.tailUuid === undefined ? undefined : index.byUuid.get(info.tailUuid);
    if (tail !== undefined && chainedTail(nodes, head, tail) >= 0) {
      splices.set(anchor, { head, tail, boundary: at });
    }
  });
  const segments: number[][] = [[]];
  const crossed = new Set<number>();
  // The segment (counted from 1) in which each node was met: a `Set` per segment of up to a
  // node per line hashed every step of the walk (42 ms of the 100 MB transcript's profile).
  const seenIn = new Int32Array(nodes.length);
  let segment = 1;
  let cycleLine: number | null = null;
  let danglingParentLine: number | null = null;
  const joins: BoundaryJoin[] = [];
  let current = leaf;
  let steps = 0;
  while (current >= 0 && steps++ <= 2 * nodes.length + 2) {
    if (seenIn[current] === segment || crossed.has(current)) {
      cycleLine = nodes.at(current).line;
      break;
    }
    seenIn[current] = segment;
    segments[0]!.push(current);
    const node = nodes.at(current);
    if (node.kind === "boundary" && node.parent < 0) {
      crossed.add(current);
      segments.unshift([]);
      segment++;
      const across = acrossBoundary(index, current);
      if (across.joined) joins.push({ line: node.line, continuesLine: nodes.at(across.at).line });
      current = across.at;
      continue;
    }
    const relink = relinks.get(current);
    if (relink && !crossed.has(relink.boundary)) {
      current = relink.anchor;
      continue;
    }
    if (node.parent < 0 && node.table.hasParent(node.at)) danglingParentLine = node.line;
    const splice = splices.get(node.parent);
    if (
      splice && current !== splice.head && seenIn[splice.tail] !== segment &&
      !crossed.has(splice.boundary)
    ) {
      current = splice.tail;
      continue;
    }
    current = node.parent;
  }
  for (const segment of segments) segment.reverse();
  // The first segment may be empty (a boundary that continues no line of the file).
  return { segments, cycleLine, danglingParentLine, joins };
}

/** Lines a tool result may hang off between it and its call's line. */
const BETWEEN: ReadonlySet<string> = new Set(["progress", "system", "attachment"]);

/**
 * Adds the other lines of each API response on the branch, and the results that hang off
 * them (directly, or through hook progress and system lines): the walk back from the leaf
 * follows one result of a parallel batch only.
 */
function recoverParallel(nodes: NodeTable, active: NodeSet): void {
  const responses = new Set<string>();
  for (const at of active) {
    const id = nodes.at(at).messageId;
    if (id !== undefined) responses.add(id);
  }
  for (let at = 0; at < nodes.length; at++) {
    const node = nodes.at(at);
    if (active.has(at) || node.messageId === undefined || !inTree(node)) continue;
    if (responses.has(node.messageId)) active.add(at);
  }
  for (let at = 0; at < nodes.length; at++) {
    const node = nodes.at(at);
    if (active.has(at) || node.kind !== "tool_result" || !inTree(node)) continue;
    const path = [at];
    let up = node.parent;
    while (up >= 0 && !active.has(up) && BETWEEN.has(nodes.at(up).kind) && path.length < 64) {
      path.push(up);
      up = nodes.at(up).parent;
    }
    if (up >= 0 && active.has(up) && nodes.at(up).kind === "assistant") {
      for (const step of path) active.add(step);
    }
  }
}

function forkKind(node: Node): ForkKind {
  if (node.sidechain) return "sidechain";
  switch (node.kind) {
    case "prompt":
      return "rewind";
    case "assistant":
      return "retry";
    case "command":
    case "local_output":
      return "local_command";
    default:
      return "other";
  }
}

/** Groups the lines off the branch by the line they branch from. */
function findForks(nodes: NodeTable, active: NodeSet, kept: NodeSet) {
  const root = new Map<number, number>();
  const rootOf = (start: number): number => {
    const path = new Set<number>();
    let at = start;
    while (true) {
      const known = root.get(at);
      if (known !== undefined) {
        at = known;
        break;
      }
      const parent = nodes.at(at).parent;
      if (parent < 0 || active.has(parent) || path.has(at) || !inTree(nodes.at(parent))) break;
      path.add(at);
      at = parent;
    }
    for (const step of path) root.set(step, at);
    root.set(start, at);
    return at;
  };
  const groups = new Map<number, { lines: number; messages: number; last: number }>();
  nodes.forEach((node, at) => {
    if (active.has(at) || kept.has(at) || !inTree(node)) return;
    const top = rootOf(at);
    const group = groups.get(top) ?? { lines: 0, messages: 0, last: node.line };
    group.lines++;
    if (MESSAGE_KINDS.has(node.kind) || LOCAL_KINDS.has(node.kind)) group.messages++;
    group.last = Math.max(group.last, node.line);
    groups.set(top, group);
  });
  const forks: ForeignFork[] = [];
  let sideLines = 0;
  for (const [top, group] of [...groups].sort((a, b) => a[0] - b[0])) {
    const node = nodes.at(top);
    if (group.messages === 0) {
      sideLines += group.lines;
      continue;
    }
    const from = node.parent >= 0 && active.has(node.parent) ? nodes.at(node.parent).line : null;
    forks.push({
      kind: from === null && forkKind(node) !== "sidechain" ? "separate_root" : forkKind(node),
      fromLine: from,
      firstLine: node.line,
      uuid: node.uuid ?? null,
      lastLine: group.last,
      lines: group.lines,
      messages: group.messages,
    });
  }
  return { forks, sideLines };
}

/** Where each crossed boundary's checkpoint goes, and which preserved nodes it keeps. */
function placeCheckpoints(nodes: NodeTable, segments: number[][], branch: Branch): void {
  for (const segment of segments.slice(1)) {
    const boundary = segment[0]!;
    const next = segment[1];
    const summary = next !== undefined &&
        (nodes.at(next).kind === "compact_summary" || nodes.at(next).kind === "summary")
      ? next
      : boundary;
    if (summary !== boundary) branch.foldedBoundaries.add(boundary);
    const kept: number[] = [];
    for (const at of segment) {
      if (at < boundary) {
        kept.push(at);
        branch.kept.add(at);
      } else {
        branch.active.add(at);
      }
    }
    branch.checkpoints.set(summary, { boundary, kept });
  }
}

/** Finds the active branch of an indexed transcript. */
export function findBranch(index: ClaudeIndex): Branch {
  const { nodes } = index;
  const leaf = findLeaf(nodes);
  const branch: Branch = {
    active: new NodeSet(nodes.length),
    checkpoints: new Map(),
    kept: new NodeSet(nodes.length),
    foldedBoundaries: new Set(),
    localCommands: new Set(),
    leaf,
    segments: [],
    cycleLine: null,
    danglingParentLine: null,
    forks: [],
    sideLines: 0,
    joins: [],
    after: new Map(),
  };
  if (leaf < 0) return branch;
  const walk = walkBack(index, leaf);
  branch.segments = walk.segments;
  branch.cycleLine = walk.cycleLine;
  branch.danglingParentLine = walk.danglingParentLine;
  branch.joins = walk.joins;
  for (const at of walk.segments[0] ?? []) branch.active.add(at);
  placeCheckpoints(nodes, walk.segments, branch);
  recoverParallel(nodes, branch.active);
  for (const at of branch.active) {
    const node = nodes.at(at);
    if (
      node.kind === "local_output" && node.parent >= 0 && nodes.at(node.parent).kind === "command"
    ) {
      branch.localCommands.add(node.parent);
    }
  }
  const { forks, sideLines } = findForks(nodes, branch.active, branch.kept);
  branch.forks = forks;
  branch.sideLines = sideLines;
  // Where the walk began each segment (a boundary, a cycle it broke) nothing precedes.
  const starts = new Set(walk.segments.map((segment) => segment[0] ?? -1));
  branch.after = linesBeforeParents(nodes, branch.active, starts);
  return branch;
}

/**
 * The branch's lines whose parent comes later in the file (a hand or a copy swapped them;
 * Claude Code never writes one, and reads the chain, not the file order), by their parent; and
 * with them every line of the branch that hangs off a line so moved and would otherwise be read
 * before it (the rest of its response and the results, which the chain puts after it).
 */
function linesBeforeParents(
  nodes: NodeTable,
  active: NodeSet,
  starts: ReadonlySet<number>,
): Map<number, number[]> {
  const after = new Map<number, number[]>();
  // For a moved node, a node read at the same place (its parent at first; the walks below
  // shorten the way); -1 for a node read where it is written. Made at the first move: a file
  // Claude Code wrote has none.
  let sameAs: Int32Array | undefined;
  // Whether node `at` is read after node `line`, every node before `line` settled.
  const readAfter = (at: number, line: number) => {
    if (sameAs === undefined) return at > line;
    let end = at;
    while (end <= line && sameAs[end]! >= 0) end = sameAs[end]!;
    for (let step = at; step !== end && sameAs[step]! !== end;) {
      const next = sameAs[step]!;
      sameAs[step] = end;
      step = next;
    }
    return end > line;
  };
  for (const at of active) {
    const parent = nodes.at(at).parent;
    if (parent < 0 || !readAfter(parent, at) || starts.has(at) || !active.has(parent)) continue;
    sameAs ??= new Int32Array(nodes.length).fill(-1);
    sameAs[at] = parent;
    const list = after.get(parent) ?? [];
    list.push(at);
    after.set(parent, list);
  }
  return after;
}

/**
 * Every node of the transcript in the order a reader takes them: file order, but a line
 * written before its parent's line (see {@linkcode Branch.after}) right after that line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readOrder } from "./_branch.ts";
 * assert.deepEqual([...readOrder(4, new Map([[2, [1]]]))], [0, 2, 1, 3]);
 * ```
 */
export function* readOrder(
  length: number,
  after: ReadonlyMap<number, number[]>,
): Generator<number> {
  if (after.size === 0) {
    for (let at = 0; at < length; at++) yield at;
    return;
  }
  const moved = new Set([...after.values()].flat());
  const stack: number[] = [];
  for (let at = 0; at < length; at++) {
    if (moved.has(at)) continue;
    stack.push(at);
    while (stack.length > 0) {
      const next = stack.pop()!;
      yield next;
      const children = after.get(next);
      if (children) { for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!); }
    }
  }
}
