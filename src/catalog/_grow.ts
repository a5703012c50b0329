/**
 * A grown file's facts from its last turn and the lines appended, not from the whole file:
 * what a whole read of the file gives is kept with a small state (where its last turn starts,
 * the line before it, its problems and orphan calls apart), and when the file grows by a plain
 * append, the facts are the kept ones plus what the inspector finds in that turn with the
 * lines appended, less what it found in that turn before. Both are read as files of their own
 * (the head line, then the turn on): whatever the cut itself makes the inspector say (a turn
 * without the lines before it) is said by both and cancels. What it found in the turn is kept
 * too, so that the next update, while the turn goes on, reads it as it is then alone. The state
 * follows the lines as the inspector's reader parses them in that reading: each line is parsed
 * once.
 *
 * Anything the state cannot continue (a line whose parent is not a line of its turn: a rewind,
 * a fork; an answer to a call not made in the turn; a compaction; a line that is not JSON; a
 * format without line rules) is read whole, as before, and counted as a fallback. Ids are
 * taken to be new ones (a call or a message id said again in a later turn is not looked for:
 * the tools make them at random).
 *
 * @module
 */
import { basename, join } from "../_path.ts";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { readRangeSync, writeAllSync } from "../io/mod.ts";
import type { Line } from "../io/mod.ts";
import { inspectSession, verdictOf } from "../inspect/mod.ts";
import type { InspectReport } from "../inspect/mod.ts";
import { searchProfile } from "../search/_profiles.ts";
import type {
  FormatResume,
  Json,
  ParsedLine,
  SessionAdapter,
  TokenTotals,
} from "../formats/mod.ts";

/** The model a file's lines name when they name none. */
const UNKNOWN_MODEL = "unknown";

/** The bytes from a cut on that a grown file's facts are read from at most (else: whole). */
export const MAX_CONTINUED_BYTES = 64 << 20;

/** What the catalog keeps of a file to continue its facts (the `resume` column, as JSON). */
export interface ResumeState {
  /** Where the file's last turn starts (a line's first byte) and that line's number. */
  cut: number;
  line: number;
  /** The text index's turn of a line from the cut on, less a new counter's from the cut. */
  base: number;
  /** The end of the head line the turn is read after (0: none). */
  head: number;
  /** The id of the line before the cut, for a format whose lines link (null: none). */
  leaf: string | null;
  /** The bytes of the file the facts were read from. */
  size: number;
  /** The file's problems and orphan calls (their sum is its findings). */
  problems: number;
  orphans: number;
  /**
   * What the inspector found in the last turn read alone (from the cut to `size`), when a
   * continued reading found it: the next one, cut at the same line, need not read it again.
   */
  turn?: TurnCounts | undefined;
  /**
   * Where the file's text rows stop while its facts went on past them (a listing continued
   * it): the next search puts in the rest from there (`_text.ts`). Absent: its rows, if any,
   * go as far as its facts.
   */
  text?: TextResume | undefined;
}

/**
 * Where a file's text rows stop while its facts went on: the rows hold the lines before
 * `from`; the lines from `cut` (a turn's first line, numbered `line`) on are read again to go
 * on, a line's turn being `base` plus a new counter's from `cut`.
 */
export interface TextResume {
  from: number;
  cut: number;
  line: number;
  base: number;
}

/** What a report counts that the catalog adds up. */
export interface TurnCounts {
  turns: number;
  problems: number;
  orphans: number;
  forks: number;
  tokens: TokenTotals | null;
  models: string[];
  state: string;
}

interface Cut {
  cut: number;
  line: number;
  base: number;
  leaf: string | null;
}

/**
 * Follows a file's lines, in order, for the state that continues its facts: where the last
 * turn that can be continued from starts, and why a line makes the file not continuable.
 */
export class ResumeTracker {
  #leaf: string | null;
  #head: number;
  #cut: Cut | undefined;
  /** The ids of the lines from the cut on, and of the calls they make. */
  #since = new Set<string>();
  #calls = new Set<string>();
  #lastTurn = -Infinity;
  /** The file's first line refused: no turn of it is continued (a fork's rollout). */
  #refused = false;
  /** The cut's turn, and the cut a continued reading started from (the state's), if any. */
  #cutTurn = 0;
  readonly #origin: number | undefined;

  constructor(
    readonly rules: FormatResume,
    readonly turns: () => { turnOf(line: string): number },
    from?: ResumeState,
  ) {
    this.#leaf = from?.leaf ?? null;
    this.#head = from?.head ?? 0;
    this.#origin = from?.cut;
  }

  /**
   * One whole line (`value` null: not a JSON object) and its turn in the text index; why the
   * file cannot be continued past it, or undefined.
   */
  see(line: Line, value: Json | null, turn: number): string | undefined {
    const start = turn > this.#lastTurn;
    this.#lastTurn = turn;
    if (value === null) {
      this.#cut = undefined;
      return "a line that is not a JSON object";
    }
    const first = line.line === 1;
    if (first && this.rules.head(value)) this.#head = line.end;
    let why = this.rules.refuses(value, first);
    if (first && why !== undefined) this.#refused = true;
    if (this.#refused) why ??= "its first line";
    // A line counted in a turn before the cut's (Codex: a prompt waiting for its turn was
    // counted ahead, and the lines after it are the turn before's): a counter from the cut
    // would not count the lines after it as the whole file's does. The cut is no cut; when a
    // continued reading started from it, the lines after it were counted wrong: read whole.
    if (this.#cut !== undefined && turn < this.#cutTurn) {
      if (this.#cut.cut === this.#origin) why ??= "a line counted in a turn before its turn's";
      this.#cut = undefined;
    }
    const link = this.rules.link(value);
    // A turn is cut where it goes on from the line before; past the cut, a line's parent is
    // a line of the turn (a line of the turns before would move the branch the file ends on).
    const goesOn = link === null || link.parent === this.#leaf;
    if (why === undefined && start && goesOn) {
      const fresh = this.turns().turnOf(line.text);
      this.#cut = {
        cut: line.start,
        line: line.line,
        base: turn - fresh,
        leaf: this.#leaf,
      };
      this.#cutTurn = turn;
      this.#since = new Set();
      this.#calls = new Set();
    } else if (link !== null && !this.#since.has(link.parent ?? "")) {
      why ??= "a line whose parent is not a line of its turn (a rewind or a fork)";
    }
    if (why !== undefined) this.#cut = undefined;
    const calls = this.rules.calls(value);
    for (const id of calls.answers) {
      // An answer to a call of an earlier turn (open or answered there) is judged with it.
      if (this.#cut !== undefined && !this.#calls.has(id)) {
        this.#cut = undefined;
        why ??= "an answer to a call made before its turn";
      }
    }
    for (const id of calls.opens) this.#calls.add(id);
    if (link !== null) {
      this.#leaf = link.id;
      if (this.#cut !== undefined) this.#since.add(link.id);
    }
    return why;
  }

  /**
   * The state after the lines seen, for facts read from `size` bytes, as JSON; null: no cut.
   * `turn` is what the inspector found from the byte `turn.cut` on, kept when the cut is there.
   */
  save(
    size: number,
    problems: number,
    orphans: number,
    turn?: { cut: number; counts: TurnCounts },
  ): string | null {
    const cut = this.#cut;
    if (cut === undefined) return null;
    const head = cut.cut < this.#head ? 0 : this.#head;
    const state: ResumeState = { ...cut, head, size, problems, orphans };
    if (turn !== undefined && turn.cut === cut.cut) state.turn = turn.counts;
    return JSON.stringify(state);
  }
}

/** A tracker of a file of `format` from its first line; undefined for a format without rules. */
export function trackerOf(adapter: SessionAdapter): ResumeTracker | undefined {
  if (adapter.own || adapter.resume === undefined) return undefined;
  const profile = searchProfile(adapter.name);
  return new ResumeTracker(adapter.resume, () => profile.turns());
}

/** The facts columns a grown file's reading changes, as `factsOf` in `_update.ts` gives them. */
export interface GrownFacts {
  state: "records";
  turns: number;
  healthy: number;
  verdict: string;
  findings: number;
  tokens: string | null;
  models: string;
  forks: number;
}

/** What the catalog holds of a file before it grew (its row's facts and its state). */
export interface KeptFacts {
  /** The `resume` column. */
  resume: string | null;
  state: string | null;
  turns: number | null;
  tokens: string | null;
  models: string | null;
  forks: number | null;
  unreadable: string | null;
}

/** A grown file read from its last turn on: its facts, its lines from the cut, its new state. */
export interface Grown {
  facts: GrownFacts;
  /** The file's lines from the cut to the size read, the last one maybe torn. */
  lines: Line[];
  /**
   * Each whole line's JSON object, as parsed for the state, when asked for
   * ({@linkcode GrownOptions.values}; undefined: not parsed, or not kept).
   */
  values: (Json | null | undefined)[];
  /** The text index's turn of these lines: `base` plus a new counter's. */
  base: number;
  /** The state to keep, as JSON (null: the next growth is read whole). */
  resume: string | null;
}

function parseState(text: string | null): ResumeState | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as ResumeState;
  } catch {
    return null;
  }
}

const decoder = new TextDecoder();

/** The prefix of the private folders a grown file's last turn is inspected in. */
const GROWN_PREFIX = "turnlog-grown-";

/** How old a folder of {@linkcode GROWN_PREFIX} is when no command can be using it still. */
const LEFT_AFTER_MS = 60 * 60 * 1000;

let swept = false;

/**
 * Removes the folders of {@linkcode GROWN_PREFIX} in `parent` older than an hour at `now`:
 * those of commands killed while they used one (one is used for milliseconds). A folder that
 * cannot be read or removed (another user's, gone meanwhile) is left as it is. Returns the
 * folders removed.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { sweepLeftFolders } from "./_grow.ts";
 * const parent = Deno.makeTempDirSync();
 * Deno.mkdirSync(join(parent, "turnlog-grown-abc"));
 * assert.deepEqual(sweepLeftFolders(parent, Date.now()), []);
 * assert.deepEqual(sweepLeftFolders(parent, Date.now() + 2 * 3600_000), ["turnlog-grown-abc"]);
 * Deno.removeSync(parent);
 * ```
 */
export function sweepLeftFolders(parent: string, now: number): string[] {
  const removed: string[] = [];
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(parent)];
  } catch {
    return removed;
  }
  for (const entry of entries) {
    if (!entry.isDirectory || !entry.name.startsWith(GROWN_PREFIX)) continue;
    const left = join(parent, entry.name);
    try {
      const modified = Deno.statSync(left).mtime?.getTime() ?? now;
      if (now - modified <= LEFT_AFTER_MS) continue;
      Deno.removeSync(left, { recursive: true });
      removed.push(entry.name);
    } catch {
      // Not ours to remove, or gone meanwhile: the sweep is a courtesy, never the update's.
    }
  }
  return removed;
}

/** The lines of `bytes` (read from `start`, whose first line is numbered `firstLine`). */
function linesOf(bytes: Uint8Array, start: number, firstLine: number): Line[] {
  const lines: Line[] = [];
  let at = 0;
  let number = firstLine;
  while (at < bytes.length) {
    const newline = bytes.indexOf(0x0a, at);
    const terminated = newline !== -1;
    const stop = terminated ? newline : bytes.length;
    let text = decoder.decode(bytes.subarray(at, stop));
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (start + at === 0 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const end = terminated ? newline + 1 : stop;
    lines.push({ line: number++, text, start: start + at, end: start + end, terminated });
    at = end;
  }
  return lines;
}

function objectOrNull(text: string): Json | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Json
      : null;
  } catch {
    return null;
  }
}

/** Options of {@linkcode readGrown}. */
export interface GrownOptions {
  /**
   * Keep each line's parsed object (`Grown.values`), for text rows put in now: a listing's
   * update, which puts in none, keeps none (a few MB of objects for each MB appended, held until
   * the file's row is written: its collector copied them).
   * @default {false}
   */
  values?: boolean | undefined;
}

/** What {@linkcode GrownLines} follows: a grown file's bytes from its cut and their copy's shape. */
interface GrownFrom {
  rules: FormatResume;
  state: ResumeState;
  /** Where the lines read before end: a line from there on is new. */
  indexed: number;
  /** The file's bytes from the cut to the size read. */
  bytes: Uint8Array;
  /** The turn's first line as the file has it, and its object. */
  first: { line: Line; value: Json };
  /** The bytes of the copy's head line and of its detached first line (without its newline). */
  head: number;
  detached: number;
  adapter: SessionAdapter;
  /** Keep each line's object (see {@linkcode GrownOptions.values}). */
  values: boolean;
}

/**
 * Follows a grown file's lines from its cut, each once, as the inspector's reader tells them
 * while it reads the copy of the turn (the head line, the turn's first line detached, the rest
 * as the file has them): each at its place in the file, the turn's first line as the file has
 * it; the lines it does not tell (blank ones) made from the bytes. Why the file cannot be
 * continued, from the first line that says so, as a reading of the lines of its own said it
 * (which parsed each of them a second time).
 */
class GrownLines {
  readonly lines: Line[] = [];
  readonly values: Grown["values"] = [];
  readonly tracker: ResumeTracker;
  readonly #from: GrownFrom;
  readonly #counter: { turnOf(line: string): number };
  #why: string | undefined;
  #settled = false;
  /** Where the file's next line starts, and its number. */
  #next: number;
  #line: number;

  constructor(from: GrownFrom) {
    this.#from = from;
    const profile = searchProfile(from.adapter.name);
    this.#counter = profile.turns();
    this.tracker = new ResumeTracker(from.rules, () => profile.turns(), from.state);
    this.#next = from.state.cut;
    this.#line = from.state.line;
  }

  /** A line of the copy as its reader parsed it (`InspectOptions.onLine`). */
  take(line: Line, parsed: ParsedLine): void {
    const { head, detached, first, state, bytes } = this.#from;
    // The head line is the state's, not the turn's; a torn tail waits for the next update.
    if (this.#why !== undefined || !line.terminated || line.start < head) return;
    let found = first.line;
    let value: Json | null = first.value;
    if (line.start >= head + detached) {
      const shift = first.line.end - 1 - head - detached;
      const start = line.start + shift;
      const end = line.end + shift;
      // The copy's lines are the file's: a line past the bytes read is not one of them.
      if (end - state.cut > bytes.length) return;
      found = { line: 0, text: line.text, start, end, terminated: true };
      value = "value" in parsed ? parsed.value : null;
    }
    // A line told again (a reader's second look) is followed once.
    if (found.start < this.#next) return;
    this.#untold(found.start);
    if (this.#why === undefined) this.#see({ ...found, line: this.#line }, value);
  }

  /** The lines followed, their objects and the tracker; why the file is read whole instead. */
  end(): { lines: Line[]; values: Grown["values"]; tracker: ResumeTracker } | string {
    this.#untold(this.#from.state.cut + this.#from.bytes.length);
    if (this.#why !== undefined) return this.#why;
    if (this.lines.length === 0) return "no whole line from its last turn on";
    return { lines: this.lines, values: this.values, tracker: this.tracker };
  }

  /** The lines from the next one to `to` its reader did not tell: blank ones, or a torn tail. */
  #untold(to: number): void {
    const { state, bytes } = this.#from;
    if (to <= this.#next) return;
    const start = this.#next - state.cut;
    for (const line of linesOf(bytes.subarray(start, to - state.cut), this.#next, this.#line)) {
      if (line.terminated && line.text.trim() !== "") {
        this.#why = "a line its reader did not tell";
        return;
      }
      this.#counter.turnOf(line.text);
      this.lines.push(line);
      this.values.push(undefined);
      this.#next = line.end;
      this.#line = line.line + 1;
    }
  }

  #see(line: Line, value: Json | null): void {
    const { state, rules, indexed } = this.#from;
    const turn = state.base + this.#counter.turnOf(line.text);
    this.lines.push(line);
    this.values.push(this.#from.values ? value : undefined);
    this.#next = line.end;
    this.#line = line.line + 1;
    // A line of spaces alone is no line of the session: its reader tells it (not JSON) and
    // counts it as a problem, which the inspection of the copy counts too.
    if (line.text.trim() === "") return;
    this.#why = this.tracker.see(line, value, turn);
    if (this.#why !== undefined) return;
    const carried = value === null ? undefined : rules.carries?.(value);
    // Judged alike in a whole read and in the turn's alone once a line settles; before, the
    // lines read before too are judged alike in both readings of the turn, and cancel.
    if (carried !== undefined && !this.#settled && line.start >= indexed) {
      this.#why = "a line that depends on the turns before it (a token count)";
    }
    if (carried === "settles") this.#settled = true;
  }
}

/** What a report counts that the catalog adds up. */
function countsOf(report: InspectReport): TurnCounts {
  return {
    turns: report.turns.length,
    problems: report.problems.length,
    orphans: report.orphanCalls.length,
    forks: report.forks.length,
    tokens: report.session.tokens,
    models: report.session.models,
    state: report.session.state,
  };
}

const TOKEN_FIELDS = [
  "input",
  "output",
  "cacheRead",
  "cacheCreation",
  "reasoningOutput",
  "total",
] as const;

/** `kept` plus `after` less `before`, field by field; null when none of them has any. */
function tokensOf(
  kept: TokenTotals | null,
  before: TokenTotals | null,
  after: TokenTotals | null,
): TokenTotals | null {
  if (kept === null && before === null && after === null) return null;
  const sum = {} as TokenTotals;
  for (const field of TOKEN_FIELDS) {
    sum[field] = (kept?.[field] ?? 0) + (after?.[field] ?? 0) - (before?.[field] ?? 0);
  }
  return sum;
}

/**
 * The facts of the file at `path` (of `size` bytes now) that grew past what `kept` was read
 * from, from its last turn and the lines appended alone; a string says why it must be read
 * whole instead.
 */
export async function readGrown(
  path: string,
  size: number,
  indexed: number,
  adapter: SessionAdapter,
  kept: KeptFacts,
  options: GrownOptions = {},
): Promise<Grown | string> {
  const rules = adapter.own ? undefined : adapter.resume;
  if (rules === undefined) return `${adapter.tool} files are read whole`;
  const state = parseState(kept.resume);
  if (state === null) return "no turn to continue from";
  if (kept.unreadable !== null || kept.state !== "records") return "no conversation before";
  if (size - state.cut > MAX_CONTINUED_BYTES) return "its last turn and the lines appended are big";
  if (state.size < indexed || state.size > size) return "its facts were read at another size";
  let head: Uint8Array;
  let bytes: Uint8Array;
  {
    using file = Deno.openSync(path, { read: true });
    head = readRangeSync(file, { start: 0, end: state.head });
    bytes = readRangeSync(file, { start: state.cut, end: size });
  }
  const firstEnd = bytes.indexOf(0x0a);
  if (firstEnd === -1) return "no whole line from its last turn on";
  const [firstLine] = linesOf(bytes.subarray(0, firstEnd + 1), state.cut, state.line);
  const first = objectOrNull(firstLine!.text);
  if (first === null) return "a line that is not a JSON object";
  // The turn's first line without its parent, as the first line of a file of its own.
  const detached = new TextEncoder().encode(JSON.stringify(rules.detach(first)));
  // The copy written from its parts: the turn's bytes are not copied into one more buffer.
  const writeCopy = (copy: string, end: number) => {
    using file = Deno.openSync(copy, { write: true, create: true, truncate: true, mode: 0o600 });
    for (const part of [head, detached, bytes.subarray(firstEnd, end - state.cut)]) {
      writeAllSync(file, part);
    }
  };
  const follow = new GrownLines({
    rules,
    state,
    indexed,
    bytes,
    first: { line: firstLine!, value: first },
    head: head.length,
    detached: detached.length,
    adapter,
    values: options.values ?? false,
  });
  const dir = Deno.makeTempDirSync({ prefix: GROWN_PREFIX });
  // Once a process: what a killed command left beside it.
  if (!swept) {
    swept = true;
    sweepLeftFolders(join(dir, ".."), Date.now());
  }
  let before = state.turn;
  let after: TurnCounts;
  try {
    const cutFile = join(dir, basename(path));
    // Copies of the user's lines: the user's alone, in a folder that is theirs alone (0700).
    // Written at once: an update reads one file at a time, and an async write of each copy
    // cost its wait on the runtime's thread pool (30 against 5 ms for 13 copies of 850 KB).
    if (before === undefined) {
      writeCopy(cutFile, state.size);
      before = countsOf(await inspectSession(cutFile, { adapter, priced: false }));
    }
    writeCopy(cutFile, size);
    // The lines from the cut are followed as the inspector's reader parses them: once.
    const onLine = (line: Line, parsed: ParsedLine) => follow.take(line, parsed);
    after = countsOf(await inspectSession(cutFile, { adapter, priced: false, onLine }));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
  const followed = follow.end();
  if (typeof followed === "string") return followed;
  const { lines, values, tracker } = followed;
  if (after.state !== "records") return "no conversation from its last turn on";
  const problems = state.problems + after.problems - before.problems;
  const orphans = state.orphans + after.orphans - before.orphans;
  const keptTokens = kept.tokens === null ? null : JSON.parse(kept.tokens) as TokenTotals;
  const tokens = tokensOf(keptTokens, before.tokens, after.tokens);
  // A file whose lines name no model is listed with the placeholder alone.
  const named = new Set([...JSON.parse(kept.models ?? "[]") as string[], ...after.models]);
  if (named.size > 1) named.delete(UNKNOWN_MODEL);
  const models = [...named];
  const healthy = problems === 0 && orphans === 0;
  const verdict = verdictOf({
    healthy,
    problems: new Array(problems),
    orphanCalls: new Array(orphans),
    session: { state: "records", tokens } as InspectReport["session"],
  });
  return {
    facts: {
      state: "records",
      turns: (kept.turns ?? 0) + after.turns - before.turns,
      healthy: healthy ? 1 : 0,
      verdict: verdict.words,
      findings: problems + orphans,
      tokens: tokens === null ? null : JSON.stringify(tokens),
      models: JSON.stringify(models),
      forks: (kept.forks ?? 0) + after.forks - before.forks,
    },
    lines,
    values,
    base: state.base,
    resume: tracker.save(size, problems, orphans, { cut: state.cut, counts: after }),
  };
}

/** The statements of a grown file's row, prepared once per database. */
const statements = new WeakMap<DatabaseSync, { kept: StatementSync; save: StatementSync }>();

function statementsOf(db: DatabaseSync) {
  let found = statements.get(db);
  if (found === undefined) {
    found = {
      kept: db.prepare(
        "SELECT resume, state, turns, tokens, models, forks, forked_from, unreadable, inherits " +
          "FROM files " +
          "WHERE id = ?",
      ),
      save: db.prepare("UPDATE files SET resume = ? WHERE id = ?"),
    };
    statements.set(db, found);
  }
  return found;
}

/** What the catalog holds of the file of row `id` (see {@linkcode KeptFacts}). */
export function keptFacts(
  db: DatabaseSync,
  id: number,
): KeptFacts & { inherits: boolean; forked_from: string | null } {
  const row = statementsOf(db).kept.get(id) as unknown as KeptFacts & {
    inherits: number;
    forked_from: string | null;
  };
  return { ...row, inherits: row.inherits === 1 };
}

/** Where the text rows of a file stop while its facts went on, from its state (`resume`). */
export function textResumeOf(resume: string | null): TextResume | undefined {
  return parseState(resume)?.text;
}

/** A file's state (`resume`, as JSON) that says its text rows stop at `text`. */
export function withTextResume(resume: string, text: TextResume): string {
  return JSON.stringify({ ...JSON.parse(resume) as ResumeState, text });
}

/** Keeps the state that continues the facts of the file of row `id` (null: none). */
export function keepResume(db: DatabaseSync, id: number, resume: string | null): void {
  statementsOf(db).save.run(resume, id);
}
