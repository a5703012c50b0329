/**
 * A Claude Code transcript followed as Claude Code writes it: the first pass's index grows by
 * the lines appended, the active branch is found again on it (nodes only, no line read), and
 * the second pass goes on from the last prompt it settled at, with its state as it was there.
 * When the branch moved before that prompt (a rewind or a fork made another leaf), the second
 * pass starts again from the first line: the index stays, the branch's lines are read again.
 * A file that was written to without growing (a rewrite in place at the same size), or that
 * looks the same after an update that could not wait for the tick of its last write to pass
 * (`src/_tick.ts`), is read whole again.
 *
 * @module
 */
import { forEachLine, type Line, LineRanges, Pauses } from "../../io/mod.ts";
import {
  type FollowedStat,
  type FollowSink,
  type FollowUpdate,
  type FormatFollower,
  notAppended,
  statFollowed,
  tailBefore,
} from "../_follow.ts";
import { type Json, parseJsonLine } from "../_line.ts";
import type { ForeignEntry, ForeignFacts } from "../_types.ts";
import { type Branch, findBranch } from "./_branch.ts";
import { analyzeIndexed, claudeFindings, LineChecks } from "./_check.ts";
import { type ClaudeIndex, TranscriptIndexer } from "./_index.ts";
import { isMessageKind } from "./_kinds.ts";
import { branchFields, ClaudeRead } from "./_reader.ts";
import { findSubagents } from "./_subagents.ts";
import { claudeFacts, lineAt, needOf, sessionIdOf } from "./_transcript.ts";

/** What a node is to the second pass, as a number: any change of it moves what it gives. */
function codeOf(read: ClaudeRead, at: number, firstPrompt: number): number {
  const { branch } = read;
  const need = needOf(read, at);
  return (need === "skip" ? 0 : need === "node" ? 1 : 2) |
    (branch.kept.has(at) ? 4 : 0) |
    (branch.checkpoints.has(at) ? 8 : 0) |
    (branch.foldedBoundaries.has(at) ? 16 : 0) |
    (branch.localCommands.has(at) ? 32 : 0) |
    (at === firstPrompt ? 64 : 0);
}

/** The key an assistant line's response goes by in the second pass. */
function responseKey(read: ClaudeRead, at: number): string {
  const node = read.index.nodes.at(at);
  return node.messageId ?? node.uuid ?? `line-${node.line}`;
}

/** Where the second pass settled: right before a prompt, its state then, and what led there. */
interface Cut {
  /** The prompt's position in the read order. */
  position: number;
  /** The reader as it was before the prompt (copied from, never read on). */
  reader: ClaudeRead;
  /** The read order before the prompt, and each node's code (see `codeOf`). */
  order: Int32Array;
  codes: Uint8Array;
  /** What the lines before the prompt took from lines after them. */
  models: Map<number, string>;
  ends: Map<string, number | undefined>;
  /** The synthesized `session_meta` entry, as JSON; the session id; whether turns are timed. */
  meta: string;
  sessionId: string;
  timed: boolean;
  /** The branch's first prompt (its node): the lines before it are in its turn. */
  firstPrompt: number;
}

/** What a follower holds of its file. */
interface State {
  indexer: TranscriptIndexer;
  /** The check's view of every message line, by node. */
  infos: LineChecks;
  /** Parsed lines the second pass has not settled yet (appended after the first read). */
  values: Map<number, Json>;
  /** Whether lines indexed now are kept parsed (not while the whole file is read first). */
  keep: boolean;
  /** Byte offset past the last whole line indexed, and the number of the next line. */
  end: number;
  nextLine: number;
  /** The file's last bytes before `end`, as read, and its inode. */
  tail: Uint8Array;
  ino: number | null;
  /** The file's `stat` at the last update (see `notAppended`). */
  stat: Omit<FollowedStat, "info">;
  cut: Cut | undefined;
}

/**
 * Lets the rest of the process run (a macrotask) between the steps of an update: each walks
 * every node of the index, and a server answers other requests between them.
 */
const breathe = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * A Claude Code transcript followed as it grows (see the module and `FormatFollower`): each
 * update indexes the appended lines, and reads again only the lines from the last settled
 * prompt on (kept parsed since they were indexed), unless the branch moved before it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ClaudeFollower } from "./_follow.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/5b1e0c4e-0000-4000-8000-000000000001.jsonl`;
 * await Deno.writeTextFile(path, "");
 * const settled: unknown[] = [];
 * const update = await new ClaudeFollower(path).update({
 *   restart: () => settled.length = 0,
 *   settle: (entries) => settled.push(...entries),
 * });
 * assert.equal(update.facts.state, "empty");
 * assert.deepEqual([settled.length, update.pending.length], [0, 0]);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class ClaudeFollower implements FormatFollower {
  /** The transcript's path. */
  readonly path: string;
  #state: State | undefined;

  /** A follower of the transcript at `path`; nothing is read until the first update. */
  constructor(path: string) {
    this.path = path;
  }

  #newState(): State {
    const state: State = {
      indexer: undefined as unknown as TranscriptIndexer,
      infos: new LineChecks(),
      values: new Map(),
      keep: false,
      end: 0,
      nextLine: 1,
      tail: new Uint8Array(0),
      ino: null,
      stat: { size: 0, mtime: null, racy: false, fine: false },
      cut: undefined,
    };
    state.indexer = new TranscriptIndexer(this.path, (value, _line, at, node) => {
      if (isMessageKind(node.kind)) state.infos.add(value, at);
      if (state.keep && node.label === undefined && node.kind !== "meta") {
        state.values.set(at, branchFields(value));
      }
    });
    return state;
  }

  /** Reads what was appended since the last update (see `FormatFollower.update`). */
  async update(sink: FollowSink): Promise<FollowUpdate> {
    const { path } = this;
    // A file written in the tick of its `stat` is read once that tick is past (src/_tick.ts).
    let state = this.#state;
    const stat = await statFollowed(path, state && { ino: state.ino, fine: state.stat.fine });
    const { info } = stat;
    let bytes = 0;
    let why: string | undefined;
    if (state !== undefined) {
      why = await notAppended(path, stat, state);
      bytes += state.tail.length;
      if (why !== undefined) state = undefined;
    }
    const whole = state === undefined;
    state ??= this.#newState();
    this.#state = undefined;
    const from = state.end;
    const taking = state;
    await forEachLine(path, (line: Line) => {
      // A torn last line is being written: it waits for its newline.
      if (!line.terminated) return false;
      taking.indexer.add(line);
      taking.end = line.end;
      taking.nextLine = line.line + 1;
      return true;
    }, { start: from, firstLine: state.nextLine });
    bytes += state.end - from;
    state.keep = true;
    state.tail = await tailBefore(path, state.end);
    bytes += state.tail.length;
    state.ino = info.ino;
    state.stat = { size: stat.size, mtime: stat.mtime, racy: stat.racy, fine: stat.fine };
    await breathe();
    const index = state.indexer.resolved();
    const branch = findBranch(index);
    await breathe();
    const sessionId = sessionIdOf(path, index);
    const read = new ClaudeRead(path, index, branch, sessionId);
    if (index.nodes.length > 0) read.meta(index.nodes.at(0));
    const meta = JSON.stringify(read.out);
    const order = Int32Array.from(read.order());
    let firstPrompt = -1;
    for (const at of order) {
      if (branch.active.has(at) && read.isPrompt(at)) {
        firstPrompt = at;
        break;
      }
    }
    const codes = new Uint8Array(order.length);
    for (let position = 0; position < order.length; position++) {
      codes[position] = codeOf(read, order[position]!, firstPrompt);
    }
    await breathe();
    const cut = state.cut;
    const moved = cut === undefined
      ? undefined
      : this.#moved(cut, { read, order, codes, meta, firstPrompt });
    let reader = read;
    let position = 0;
    if (cut !== undefined && moved === undefined) {
      reader = cut.reader.fork(index, branch, read);
      position = cut.position;
    } else {
      if (cut !== undefined) why ??= moved;
      sink.restart();
    }
    const next = await this.#secondPass(state, {
      reader,
      position,
      order,
      codes,
      sink,
      meta,
      firstPrompt,
      previous: position > 0 ? cut : undefined,
    });
    bytes += next.bytes;
    state.cut = next.cut ?? (position > 0 ? cut : undefined);
    // What the second pass settled is no longer read again: its parsed lines go.
    const settledBefore = state.cut === undefined ? 0 : state.cut.position;
    let lowest = Infinity;
    for (let p = settledBefore; p < order.length; p++) lowest = Math.min(lowest, order[p]!);
    for (const at of state.values.keys()) if (at < lowest) state.values.delete(at);
    this.#state = state;
    await breathe();
    const facts = await this.#facts(state, { index, branch, reader: next.reader, sessionId });
    return { pending: next.pending, facts, whole, bytes, ...(why === undefined ? {} : { why }) };
  }

  /** Why what was settled before `cut` no longer stands, or undefined when it does. */
  #moved(
    cut: Cut,
    now: {
      read: ClaudeRead;
      order: Int32Array;
      codes: Uint8Array;
      meta: string;
      firstPrompt: number;
    },
  ): string | undefined {
    const { read, order, codes } = now;
    const { nodes } = read.index;
    if (now.meta !== cut.meta || read.sessionId !== cut.sessionId) {
      return "the session's first facts changed (its id, model, folder or permission mode)";
    }
    if (read.index.hasTurnDuration !== cut.timed) return "turn_duration lines appeared";
    if (now.firstPrompt !== cut.firstPrompt) return "the first prompt changed";
    if (order.length < cut.position) return "the file has fewer lines";
    for (let position = 0; position < cut.position; position++) {
      if (order[position] !== cut.order[position] || codes[position] !== cut.codes[position]) {
        return `the active branch changed at line ${
          (position < order.length ? nodes.line(order[position]!) : undefined) ?? "?"
        } (a rewind or a fork made another leaf)`;
      }
    }
    for (const [at, model] of cut.models) {
      if (read.modelAfter(at) !== model) {
        return `the model of the turn at line ${nodes.at(at).line} changed`;
      }
    }
    for (const [key, end] of cut.ends) {
      // The response still being merged at the cut decided nothing after its lines yet.
      if (read.responseEnd(key) !== end && key !== cut.reader.openResponse) {
        return "the lines of a response came apart (a result between them)";
      }
    }
    return undefined;
  }

  /**
   * Where the second pass can settle: right before the first prompt whose turn's model no
   * line says yet (its first answer is still to come), and before the lines after the leaf's
   * parent.
   */
  #settlesAt(
    read: ClaudeRead,
    order: Int32Array,
    codes: Uint8Array,
    from: { position: number; firstPrompt: number },
  ): number {
    const { nodes } = read.index;
    // Before the branch's first prompt, the lines' turn is the prompt's: nothing settles.
    if (from.firstPrompt < 0) return from.position;
    let answered = -1;
    for (let at = nodes.length - 1; at >= 0; at--) {
      const node = nodes.at(at);
      if (
        read.branch.active.has(at) && node.kind === "assistant" && node.model &&
        node.model !== "<synthetic>"
      ) {
        answered = at;
        break;
      }
    }
    // The lines after the leaf's parent may leave the branch yet: a hook's line is the leaf
    // until the result written beside it, off the same call, takes its place.
    const leaf = read.branch.leaf;
    const anchor = leaf < 0 ? -1 : nodes.at(leaf).parent;
    for (let p = from.position; p < order.length; p++) {
      const at = order[p]!;
      if (at > anchor) return p;
      if ((codes[p]! & 3) !== 2 || !read.isPrompt(at) || at <= answered) continue;
      return (codes[p]! & 64) !== 0 ? from.position : p;
    }
    return order.length;
  }

  /** The second pass from `position` on: the new cut, what it left pending, bytes read again. */
  async #secondPass(
    state: State,
    from: {
      reader: ClaudeRead;
      position: number;
      order: Int32Array;
      codes: Uint8Array;
      sink: FollowSink;
      meta: string;
      firstPrompt: number;
      previous: Cut | undefined;
    },
  ): Promise<{ cut: Cut | undefined; pending: ForeignEntry[]; reader: ClaudeRead; bytes: number }> {
    const { reader, order, codes, sink } = from;
    const { nodes } = reader.index;
    const settles = this.#settlesAt(reader, order, codes, from);
    let cut: Cut | undefined;
    let bytes = 0;
    using ranges = LineRanges.open(this.path);
    const pause = new Pauses();
    for (let p = from.position; p <= order.length; p++) {
      if (p === settles) {
        // What came before is settled: nothing after it changes it any more.
        if (reader.out.length > 0) sink.settle(reader.out.splice(0));
        if (p > from.position) {
          cut = this.#cutAt(reader, { ...from, position: p });
        }
      }
      if (p === order.length) break;
      const at = order[p]!;
      const node = nodes.at(at);
      // Before a prompt on the way to the cut, what came before is settled too (a whole
      // read hands its entries on as it goes).
      if (p < settles && (codes[p]! & 3) === 2 && reader.isPrompt(at) && reader.out.length > 0) {
        sink.settle(reader.out.splice(0));
      }
      const need = needOf(reader, at);
      if (need === "node") {
        if (node.kind === "meta") reader.metaLine(node);
        else reader.labeledLine(at);
      } else if (need === "line") {
        const kept = state.values.get(at);
        if (kept !== undefined && node.kind !== "problem") reader.branchLine(at, kept);
        else {
          const line = lineAt(ranges, node);
          if (line === undefined) break;
          bytes += node.end - node.start;
          const parsed = parseJsonLine(this.path, line);
          if (node.kind === "problem") {
            if ("problem" in parsed) reader.problemLine(parsed.problem);
          } else if ("value" in parsed) reader.branchLine(at, parsed.value);
        }
      }
      await pause.after(node.end - node.start);
    }
    reader.end();
    return { cut, pending: reader.out.splice(0), reader, bytes };
  }

  /** The cut at `position`: the reader copied, and what the lines before it took from later. */
  #cutAt(
    reader: ClaudeRead,
    at: {
      position: number;
      order: Int32Array;
      codes: Uint8Array;
      meta: string;
      firstPrompt: number;
      previous: Cut | undefined;
    },
  ): Cut {
    const { position, previous } = at;
    const order = at.order.slice(0, position);
    // What the lines before the last cut took is known (and still so: `#moved` said it).
    const models = previous?.models ?? new Map<number, string>();
    const ends = previous?.ends ?? new Map<string, number | undefined>();
    const open = previous?.reader.openResponse;
    if (open !== undefined) ends.set(open, reader.responseEnd(open));
    for (let p = previous?.position ?? 0; p < position; p++) {
      const node = order[p]!;
      if (!reader.branch.active.has(node)) continue;
      if (reader.isPrompt(node)) models.set(node, reader.modelAfter(node));
      if (reader.index.nodes.at(node).kind === "assistant") {
        const key = responseKey(reader, node);
        ends.set(key, reader.responseEnd(key));
      }
    }
    return {
      position,
      reader: reader.fork(reader.index, reader.branch),
      order,
      codes: at.codes.slice(0, position),
      models,
      ends,
      meta: at.meta,
      sessionId: reader.sessionId,
      timed: reader.index.hasTurnDuration,
      firstPrompt: at.firstPrompt,
    };
  }

  /** The facts a whole read of the file up to its last whole line gives. */
  async #facts(
    state: State,
    parts: { index: ClaudeIndex; branch: Branch; reader: ClaudeRead; sessionId: string },
  ): Promise<ForeignFacts> {
    const { index, branch, reader, sessionId } = parts;
    const facts = claudeFacts(this.path, state.end, { index, branch, read: reader, sessionId });
    const subagents = await findSubagents(this.path, sessionId, index.agentIds);
    await breathe();
    const checked = index.nodes.every((node) => node.kind !== "problem")
      ? { checked: claudeFindings(this.path, analyzeIndexed(state.infos, index, branch)) }
      : {};
    return { ...facts, subagents, ...checked };
  }
}
