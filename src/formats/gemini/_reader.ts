/**
 * Reads a Gemini CLI session file into turnlog records: its lines replayed as Gemini's own
 * loader replays them (the last copy of a message wins, in the order of first appearance;
 * checkpoints and rewinds), then the history as records, each with the line of the copy it
 * came from. A legacy single-object `.json` file is read as one checkpoint. The history is
 * known only at the end of the file: a first pass replays the lines keeping each message's id
 * and place alone, a second reads the last copy of each message again from its line (in file
 * order, a block at a time) and hands its records on at once, so memory holds no text.
 *
 * @module
 */
import { exportedFromOf } from "../_writer.ts";
import { basename } from "../../_path.ts";
import { LineRanges, readLineChunks } from "../../io/mod.ts";
import {
  countKind,
  isObject,
  isoTime,
  type Json,
  type LineObserver,
  lineProblem,
  parseJsonLine,
  problemEntry,
  spanOf,
  stringOf,
  TimeSpan,
} from "../_line.ts";
import type { ReadSessionOptions } from "../_adapter.ts";
import type { ForeignEntry, ForeignFacts, LineSpan } from "../_types.ts";
import { type Copy, type ReplayedMessage, roleOf } from "./_replay.ts";
import { type IdPlace, IdReplay, WHY } from "./_id_replay.ts";
import { GeminiTurns } from "./_turns.ts";
import { analysisOf, type CheckPlace, geminiFindings } from "./_check.ts";
import { sketchOf } from "./_history.ts";
import type { GeminiFacts } from "./_facts.ts";
import { isLegacyFile, readLegacyObject } from "./_legacy.ts";
import { parentOf, projectRootOf, subagentsOf } from "./_subagents.ts";

/** Indexes below this fit beside a `seq` in one exact number (a `seq` below 2^27). */
const INDEX_KEYS = 2 ** 26;

/** How many dropped copies a page holds. */
const PAGE = 1 << 16;

/** The lines dropped copies were on, each once in a row (a checkpoint drops many from one). */
class DroppedLines {
  length = 0;
  #line = new Float64Array(256);
  #start = new Float64Array(256);
  #end = new Float64Array(256);

  /** The index of this line: the last one's when it is the same line. */
  index(line: number, start: number, end: number): number {
    const last = this.length - 1;
    if (last >= 0 && this.#line[last] === line && this.#start[last] === start) return last;
    if (this.length === this.#line.length) {
      this.#line = grown(this.#line);
      this.#start = grown(this.#start);
      this.#end = grown(this.#end);
    }
    this.#line[this.length] = line;
    this.#start[this.length] = start;
    this.#end[this.length] = end;
    return this.length++;
  }

  place(at: number): LineSpan {
    return { line: this.#line[at]!, start: this.#start[at]!, end: this.#end[at]! };
  }
}

function grown(old: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const next = new Float64Array(old.length * 2);
  next.set(old);
  return next;
}

/**
 * The copies that left the history, as numbers: in a large file they are most of its lines
 * (every earlier copy of a message, every message a checkpoint replaced), and an object each
 * held the reader's memory in proportion to the file. A session of growing checkpoints drops
 * its whole history at each one (1.1 million copies from 29,000 lines at 1 GB): each copy is
 * its seq, why it left and the index of its line (13 bytes, its line's place once for all the
 * copies a line held), in pages that are never copied to grow (arrays doubled to grow held
 * twice their size at each step, outside V8's heap until a collection freed the old ones:
 * 104 MB at that file's last step).
 */
class DroppedCopies {
  length = 0;
  /** How many left for each reason, in the order of `WHY`. */
  readonly counts = [0, 0, 0];
  readonly #lines = new DroppedLines();
  readonly #seq: Float64Array[] = [];
  readonly #line: Uint32Array[] = [];
  readonly #why: Uint8Array[] = [];

  push(line: number, start: number, end: number, why: number, seq: number): void {
    const at = this.length++;
    const page = at >>> 16;
    const slot = at & (PAGE - 1);
    if (slot === 0) this.#page(page, at === 0 ? 1024 : PAGE);
    else if (slot === this.#why[page]!.length) this.#page(page, slot * 2);
    this.counts[why]!++;
    this.#seq[page]![slot] = seq;
    this.#line[page]![slot] = this.#lines.index(line, start, end);
    this.#why[page]![slot] = why;
  }

  /** Page `page` made `size` long: the first grows to a page's size (a small file's few copies). */
  #page(page: number, size: number): void {
    const seq = new Float64Array(size);
    const line = new Uint32Array(size);
    const why = new Uint8Array(size);
    if (page < this.#why.length) {
      seq.set(this.#seq[page]!);
      line.set(this.#line[page]!);
      why.set(this.#why[page]!);
    }
    this.#seq[page] = seq;
    this.#line[page] = line;
    this.#why[page] = why;
  }

  /**
   * The order to hand them on in: by `seq`, and as they left for copies of one message. Sorted
   * as numbers, `seq` and the index in one key (a sort without a comparator runs in V8's own
   * code, several times faster than one calling back for each comparison).
   */
  order(): Uint32Array {
    const order = new Uint32Array(this.length);
    let sorted = true;
    let most = 0;
    let before = -Infinity;
    for (let at = 0; at < this.length; at++) {
      const seq = this.seq(at);
      order[at] = at;
      if (seq < before) sorted = false;
      before = seq;
      most = Math.max(most, seq);
    }
    if (sorted) return order;
    if (this.length >= INDEX_KEYS || most >= 2 ** 27) {
      return order.sort((a, b) => this.seq(a) - this.seq(b) || a - b);
    }
    const keys = new Float64Array(this.length);
    for (let at = 0; at < this.length; at++) keys[at] = this.seq(at) * INDEX_KEYS + at;
    keys.sort();
    for (let at = 0; at < this.length; at++) order[at] = keys[at]! % INDEX_KEYS;
    return order;
  }

  seq(at: number): number {
    return this.#seq[at >>> 16]![at & (PAGE - 1)]!;
  }

  /** The line of copy `at`, and why it left. */
  copy(at: number): { place: LineSpan; why: typeof WHY[number] } {
    const page = at >>> 16;
    const slot = at & (PAGE - 1);
    return {
      place: this.#lines.place(this.#line[page]![slot]!),
      why: WHY[this.#why[page]![slot]!]!,
    };
  }
}

/** The state of one read. */
interface Read {
  replay: IdReplay;
  dropped: DroppedCopies;
  /**
   * With the check on, the history as the check takes it (it then needs no read of its own):
   * the second pass sketches each message as it reads it again, and the check pairs the calls
   * of those sketches at the end.
   */
  history: Map<string, ReplayedMessage<CheckPlace>> | undefined;
  problems: { seq: number; entry: ForeignEntry }[];
  lines: number;
  checkpoints: number;
  first: LineSpan | undefined;
  times: TimeSpan;
  /** The first model a message names, in file order. */
  model: string | undefined;
}

/** A message's time and model, seen in the first pass. */
function see(read: Read, value: Json): void {
  read.times.see(value.timestamp);
  read.model ??= stringOf(value.model);
}

/**
 * The first pass: a line's part in the replay, and its times and models seen on the way. The
 * replay keeps the messages' ids alone: what the history holds is known only at the end, and
 * what a message held until then would live (and be copied by each young collection) for
 * nothing when a later copy, a checkpoint or a rewind drops it.
 */
function feed(read: Read, path: string, value: Json, place: IdPlace): void {
  const role = roleOf(value);
  see(read, value);
  const set = role === "checkpoint" ? value.$set as Json : undefined;
  const held = set?.messages ?? (role === "metadata" ? value.messages : undefined);
  if (Array.isArray(held)) {
    for (const message of held) {
      if (isObject(message)) see(read, message);
    }
  }
  read.replay.feed(value, place);
  if (role === "checkpoint") read.checkpoints++;
  if (role === "unknown") {
    const problem = lineProblem(path, place, "unknown_type", "not a Gemini CLI session record");
    read.problems.push({ seq: read.replay.next(), entry: problemEntry(problem) });
  }
}

/**
 * The second pass: a message's last copy read again from its line (a checkpoint line parsed
 * once for all the messages it holds), or undefined when the line no longer parses.
 */
class Copies implements Disposable {
  readonly #ranges: LineRanges;
  #cached: { line: number; value: Json } | undefined;

  constructor(path: string) {
    this.#ranges = LineRanges.open(path);
  }

  message(copy: Copy<LineSpan>): Json | undefined {
    const line = this.#parsed(copy.place);
    if (line === undefined || copy.inSet === null) return line;
    const set = isObject(line.$set) ? line.$set : line;
    const held = Array.isArray(set.messages) ? set.messages[copy.inSet] : undefined;
    return isObject(held) ? held : undefined;
  }

  #parsed(span: LineSpan): Json | undefined {
    if (this.#cached?.line === span.line) return this.#cached.value;
    try {
      const value: unknown = JSON.parse(this.#ranges.line(span).text);
      if (!isObject(value)) return undefined;
      this.#cached = { line: span.line, value };
      return value;
    } catch {
      return undefined;
    }
  }

  [Symbol.dispose](): void {
    this.#ranges[Symbol.dispose]();
  }
}

async function readJsonl(
  read: Read,
  path: string,
  sizeBytes: number,
  onLine: LineObserver | undefined,
): Promise<void> {
  const place: IdPlace = { k: 0, line: 0, start: 0, end: 0, terminated: true };
  for await (const lines of readLineChunks(path)) {
    for (const line of lines) {
      if (line.text.length === 0 && line.terminated) continue;
      if (line.start >= sizeBytes) return;
      read.lines++;
      read.first ??= spanOf(line);
      const parsed = parseJsonLine(path, line, onLine);
      if ("problem" in parsed) {
        read.problems.push({ seq: read.replay.next(), entry: problemEntry(parsed.problem) });
        continue;
      }
      // One place for every line: the replay keeps its numbers, not the object.
      place.k = read.lines - 1 - read.problems.length;
      place.line = line.line;
      place.start = line.start;
      place.end = line.end;
      place.terminated = line.terminated;
      feed(read, path, parsed.value, place);
    }
  }
}

/** A legacy file: one JSON object (its metadata and `messages`), read whole. */
async function readLegacy(read: Read, path: string, sizeBytes: number): Promise<void> {
  const legacy = await readLegacyObject(path, sizeBytes);
  const span: LineSpan = { line: 1, start: 0, end: sizeBytes };
  read.first = span;
  read.lines = legacy.text.split("\n").filter((line) => line.trim().length > 0).length;
  if ("value" in legacy) {
    return feed(read, path, legacy.value, { k: 0, ...span, terminated: true });
  }
  const problem = lineProblem(path, span, "malformed_json", legacy.error);
  read.problems.push({ seq: read.replay.next(), entry: problemEntry(problem) });
}

/** One step of the second pass: a message of the history, a dropped copy, a bad line. */
type Step =
  | { message: ReplayedMessage<CheckPlace> }
  | { dropped: { place: LineSpan; why: string } }
  | { problem: ForeignEntry };

/**
 * Everything in the order it came: the history by first appearance, the rest by line (a
 * message's dropped copies before the message itself: they came first). Merged one step at a
 * time from the three lists, each in that order already (the history is, by first appearance;
 * the problems are, by line), the dropped copies once sorted.
 */
function* steps(read: Read): Generator<Step> {
  const { dropped, problems } = read;
  const order = dropped.order();
  const messages = read.replay.messages();
  let message = messages.next();
  let d = 0;
  let p = 0;
  while (true) {
    const ds = d < order.length ? dropped.seq(order[d]!) : Infinity;
    const ms = message.done ? Infinity : message.value.seq;
    const ps = p < problems.length ? problems[p]!.seq : Infinity;
    if (ds === Infinity && ms === Infinity && ps === Infinity) return;
    // A message's dropped copies share its seq and came before it; a problem's seq is its own.
    if (ds <= ms && ds <= ps) yield { dropped: dropped.copy(order[d++]!) };
    else if (!message.done && ms <= ps) {
      yield { message: message.value };
      message = messages.next();
    } else yield { problem: problems[p++]!.entry };
  }
}

const DROPPED: Record<string, string> = {
  superseded: "superseded copy",
  checkpoint: "replaced by a checkpoint",
  rewound: "rewound",
};

/** What the second pass handed on: the ignored things by kind, and the history's items. */
interface Out {
  ignored: Record<string, number>;
  items: number;
}

/**
 * How many entries the second pass hands on at once: a step of an async generator each (most
 * of them a passed-over copy) cost more than making them.
 */
const BATCH = 512;

/** The second pass: each step's records, handed on a batch at a time. */
function* secondPass(
  read: Read,
  path: string,
  turns: GeminiTurns,
  out: Out,
): Generator<ForeignEntry[]> {
  const drain = () => {
    const entries = turns.out.splice(0);
    for (const entry of entries) {
      if (entry.ignored !== undefined) countKind(out.ignored, entry.ignored);
      if (entry.record?.type === "response_item") out.items++;
    }
    return entries;
  };
  using copies = new Copies(path);
  for (const step of steps(read)) {
    if ("message" in step) {
      const { message } = step;
      const value = copies.message(message.last);
      if (value) {
        turns.message(value, message.last.place);
        if (read.history) {
          // (The message is made for this step alone: it takes its sketch in place of its id.)
          message.value = sketchOf(value) as Json;
          read.history.set(message.id, message);
        }
      } else turns.ignore(message.last.place, "changed while read");
    } else if ("dropped" in step) {
      turns.ignore(step.dropped.place, DROPPED[step.dropped.why]!);
    } else turns.problem(step.problem);
    if (turns.out.length >= BATCH) yield drain();
  }
  turns.end();
  if (turns.out.length > 0) yield drain();
}

/**
 * Reads a Gemini CLI session file into entries; the generator's return value is the file's
 * facts.
 */
export async function* readGeminiSession(
  path: string,
  sizeBytes: number,
  options: ReadSessionOptions = {},
): AsyncGenerator<ForeignEntry, ForeignFacts> {
  const batches = readGeminiBatches(path, sizeBytes, options);
  try {
    while (true) {
      const step = await batches.next();
      if (step.done) return step.value;
      yield* step.value;
    }
  } finally {
    // Left early: the file the read holds open is closed.
    await batches.return(undefined as never);
  }
}

/**
 * Reads a Gemini CLI session file into entries a batch at a time (what the adapter hands on);
 * the generator's return value is the file's facts.
 */
export async function* readGeminiBatches(
  path: string,
  sizeBytes: number,
  options: ReadSessionOptions = {},
): AsyncGenerator<ForeignEntry[], ForeignFacts> {
  const dropped = new DroppedCopies();
  const read: Read = {
    replay: new IdReplay((line, start, end, why, seq) => dropped.push(line, start, end, why, seq)),
    dropped,
    history: options.check === false ? undefined : new Map(),
    problems: [],
    lines: 0,
    checkpoints: 0,
    first: undefined,
    times: new TimeSpan(),
    model: undefined,
  };
  if (isLegacyFile(path)) await readLegacy(read, path, sizeBytes);
  else await readJsonl(read, path, sizeBytes, options.onLine);
  const { replay } = read;
  const meta = replay.metadata;
  const sessionId = stringOf(meta.sessionId) ?? null;
  const cwd = await projectRootOf(path);
  const created = isoTime(meta.startTime) ?? read.times.first;
  const turns = new GeminiTurns({
    id: sessionId ?? basename(path).replace(/\.jsonl?$/, ""),
    createdAt: created ?? "1970-01-01T00:00:00.000Z",
    cwd: cwd ?? "",
    model: read.model ?? "unknown",
    span: read.first ?? { line: 1, start: 0, end: 0 },
    importedFrom: exportedFromOf(meta.turnlogExportedFrom),
  });
  const out: Out = { ignored: {}, items: 0 };
  if (read.lines > 0) yield* secondPass(read, path, turns, out);
  const subagents = options.subagents === false || sessionId === null
    ? []
    : await subagentsOf(path, sessionId);
  return {
    format: "gemini",
    path,
    sizeBytes,
    lines: read.lines,
    state: read.lines === 0 ? "empty" : out.items > 0 ? "records" : "metadata-only",
    sessionId,
    sessionIds: sessionId === null ? [] : [sessionId],
    title: stringOf(meta.summary) ?? null,
    firstPrompt: turns.firstPrompt,
    models: turns.models,
    cwd,
    cwds: cwd === null ? [] : [{ cwd, line: 1 }],
    gitBranch: null,
    created,
    updated: isoTime(meta.lastUpdated) ?? read.times.last,
    version: null,
    approval: { mapped: "ask-changes", source: null },
    tokens: turns.tokens,
    usage: turns.usage,
    turns: turns.turns,
    forks: [],
    subagents,
    ignored: out.ignored,
    problems: read.problems.length,
    formatFacts: geminiFacts(path, read),
    ...(read.history && read.problems.length === 0
      ? { checked: geminiFindings(path, analysisOf(read.history)) }
      : {}),
  };
}

function geminiFacts(path: string, read: Read): GeminiFacts {
  const [superseded, checkpoint, rewound] = read.dropped.counts;
  return {
    supersededCopies: superseded!,
    checkpoints: read.checkpoints,
    replacedByCheckpoint: checkpoint!,
    rewound: rewound!,
    parentSessionId: parentOf(path),
    legacy: isLegacyFile(path),
  };
}
