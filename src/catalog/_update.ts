/**
 * The catalog kept up to date: every session file of the sources walked from names alone and
 * `stat`ed; an unchanged file costs nothing more; a grown one (same file, its indexed prefix
 * unchanged) has only its new lines' text indexed; a rewritten or new one is read whole; a gone
 * one is marked. Each file is one transaction: a kill leaves it as it was or as it is now.
 *
 * The full-text index is built when a search first asks for it (`UpdateOptions.text`): an update
 * for a listing keeps the facts alone, which cost the inspector's read, and the trigram index of
 * every line's text (three quarters of a first build's time) waits for the first search, which
 * reads the files not yet in it once more. A file's text, once indexed, is kept up to date by
 * every update after.
 *
 * A file is read once: the text index takes the lines the inspector's reader parses for the
 * facts (turns, verdict, tokens), as it parses them (`ReadSessionOptions.onLine`), and reads
 * alone only what that reader did not tell (a trailing empty line, a torn tail, turnlog's own
 * files and compressed ones). A grown file's facts come from its last turn and the lines
 * appended alone when its format's line rules can continue them (`_grow.ts`), else from the
 * inspector reading it whole again (a fallback), its turn count carried through its old lines;
 * only lines past the indexed offset are indexed.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { forEachLine, isCompressed, type Line, readRangeSync } from "../io/mod.ts";
import { inspectSession, verdictOf } from "../inspect/mod.ts";
import { searchProfile } from "../search/mod.ts";
import { adapterOfData, type Json, type LineObserver, type ParsedLine } from "../formats/mod.ts";
import { keepResume, keptFacts, readGrown, type ResumeTracker, trackerOf } from "./_grow.ts";
import {
  type CatalogSource,
  type KnownFile,
  unchanged,
  type UpdateOptions,
  type UpdateProgress,
  type UpdateSummary,
  type Walked,
  walkSources,
  type WantedFile,
} from "./_walk.ts";

/**
 * The environment variable that kills the process (SIGKILL) at the n-th write step of an
 * update (a line's text inserted, a file's transaction committed): for the fault test alone.
 */
export const CATALOG_KILL_AT_ENV = "TURNLOG_CATALOG_KILL_AT";

let steps = 0;
let killAt: number | undefined | null = null;

/** One write step: where the fault test may kill the process. */
function faultPoint(): void {
  if (killAt === null) {
    const granted =
      Deno.permissions.querySync({ name: "env", variable: CATALOG_KILL_AT_ENV }).state ===
        "granted";
    const text = granted ? Deno.env.get(CATALOG_KILL_AT_ENV) : undefined;
    killAt = text === undefined || text === "" ? undefined : Number(text);
  }
  if (killAt !== undefined && ++steps === killAt) Deno.kill(Deno.pid, "SIGKILL");
}

/** The bytes before the indexed offset whose hash proves the indexed prefix unchanged. */
export const TAIL_BYTES = 4096;

interface Plan {
  wanted: WantedFile;
  info: Deno.FileInfo;
  known: KnownFile | undefined;
  /** Read from this offset (0: whole), with its line number. */
  from: number;
  fromLine: number;
  /** Its lines' text goes in the full-text index (from `from`). */
  text: boolean;
}

/** The sha256 of the up to {@linkcode TAIL_BYTES} bytes before `end`. */
export function tailHash(path: string, end: number): string {
  if (isCompressed(path)) return "";
  using file = Deno.openSync(path, { read: true });
  const bytes = readRangeSync(file, { start: Math.max(0, end - TAIL_BYTES), end });
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Where to read a changed file from: its indexed offset when it only grew (the same file, its
 * last indexed bytes the same), else from the start.
 */
function startOf(path: string, info: Deno.FileInfo, known: KnownFile | undefined): number {
  if (known === undefined || known.deleted === 1 || isCompressed(path)) return 0;
  if (info.ino !== known.ino || info.size < known.indexed || known.indexed === 0) return 0;
  try {
    return tailHash(path, known.indexed) === known.tail_hash ? known.indexed : 0;
  } catch {
    return 0;
  }
}

/** The statements an update runs, prepared once. */
class Statements {
  readonly byPath: StatementSync;
  readonly insertFile: StatementSync;
  readonly dropText: StatementSync;
  readonly dropLines: StatementSync;
  readonly insertLine: StatementSync;
  readonly insertText: StatementSync;
  readonly saveFile: StatementSync;
  readonly markTexted: StatementSync;

  constructor(db: DatabaseSync) {
    this.byPath = db.prepare(
      "SELECT id, path, ino, size, mtime, indexed, tail_hash, lines, texted, deleted FROM files " +
        "WHERE path = ?",
    );
    this.insertFile = db.prepare(
      "INSERT INTO files (path, root, format, archived, session, session_id, project, size, " +
        "mtime, indexed, tail_hash, lines, inherits) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, '', 0, 0)",
    );
    this.dropText = db.prepare(
      "DELETE FROM text WHERE rowid IN (SELECT id FROM lines WHERE file = ?)",
    );
    this.dropLines = db.prepare("DELETE FROM lines WHERE file = ?");
    this.insertLine = db.prepare(
      "INSERT INTO lines (file, line, turn, start, end, roles) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.insertText = db.prepare("INSERT INTO text (rowid, body) VALUES (?, ?)");
    this.saveFile = db.prepare(
      `UPDATE files SET root = ?, format = ?, archived = ?, session = ?, session_id = ?,
        project = ?, ino = ?, size = ?, mtime = ?, indexed = ?, tail_hash = ?, lines = ?,
        inherits = ?, texted = ?, deleted = 0, state = ?, first_at = ?, last_at = ?, cwd = ?, title = ?,
        first_prompt = ?, turns = ?, healthy = ?, verdict = ?, findings = ?, tokens = ?,
        models = ?, forked_from = ?, forks = ?, unreadable = ? WHERE id = ?`,
    );
    this.markTexted = db.prepare("UPDATE files SET texted = 1 WHERE id = ?");
  }
}

const statements = new WeakMap<DatabaseSync, Statements>();

function statementsOf(db: DatabaseSync): Statements {
  let found = statements.get(db);
  if (found === undefined) statements.set(db, found = new Statements(db));
  return found;
}

/**
 * What a listing shows of another tool's file today, from its head and a bounded tail (its
 * adapter's `preview`): its own dates, project, title and first prompt; null for turnlog's own.
 */
async function previewOf(wanted: WantedFile, sizeBytes: number) {
  const adapter = adapterOfData({ format: wanted.source.format });
  if (adapter.own) return null;
  const { path, sessionId: id, project } = wanted;
  const found = {
    format: adapter.name,
    id,
    path,
    created: null,
    modified: null,
    sizeBytes,
    project,
  };
  return await adapter.preview(found).catch(() => null);
}

type Listed = NonNullable<Awaited<ReturnType<typeof previewOf>>>;

/** The columns a listing of another tool's file fills (its own dates, project, title). */
function listedColumns(listed: Listed, wanted: WantedFile) {
  return {
    first_at: listed.firstAt ?? listed.created,
    last_at: listed.lastAt ?? null,
    project: listed.project ?? wanted.project,
    cwd: listed.cwd,
    title: listed.title,
    first_prompt: listed.preview,
  };
}

/**
 * The facts of a file as the inspector reports them (turns, verdict, tokens, models, links)
 * and, for another tool's file, as its listing shows it (dates, project, title, prompt), as
 * the columns hold them.
 */
async function factsOf(wanted: WantedFile, sizeBytes: number, onLine: LineObserver | undefined) {
  const { path } = wanted;
  try {
    // The catalog keeps no cost: the price table is neither loaded nor asked.
    const report = await inspectSession(path, { onLine, priced: false });
    const { session } = report;
    const listed = await previewOf(wanted, sizeBytes);
    return {
      state: session.state,
      ...(listed ? listedColumns(listed, wanted) : {
        first_at: session.created,
        last_at: session.updated,
        project: wanted.project,
        cwd: session.cwd,
        title: session.title,
        first_prompt: session.firstPrompt,
      }),
      turns: report.turns.length,
      healthy: report.healthy ? 1 : 0,
      verdict: verdictOf(report).words,
      findings: report.problems.length + report.orphanCalls.length,
      tokens: session.tokens === null ? null : JSON.stringify(session.tokens),
      models: JSON.stringify(session.models),
      forked_from: session.forkedFrom === null ? null : JSON.stringify(session.forkedFrom),
      forks: report.forks.length,
      unreadable: null,
      problems: report.problems.length,
      orphans: report.orphanCalls.length,
      // The bytes the inspector read: more than the stat's when the file grew in between.
      size: session.sizeBytes,
    };
  } catch (error) {
    const unreadable = error instanceof Error ? error.message : String(error);
    return {
      state: null,
      project: wanted.project,
      first_at: null,
      last_at: null,
      cwd: null,
      title: null,
      first_prompt: null,
      turns: null,
      healthy: null,
      verdict: null,
      findings: null,
      tokens: null,
      models: null,
      forked_from: null,
      forks: null,
      unreadable,
      problems: 0,
      orphans: 0,
      size: sizeBytes,
    };
  }
}

/** A line's JSON object, from its parse when a reader made one; null when it holds none. */
function valueOf(line: Line, parsed: ParsedLine | undefined): Json | null {
  if (parsed !== undefined) return "value" in parsed ? parsed.value : null;
  try {
    const value: unknown = JSON.parse(line.text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Json
      : null;
  } catch {
    return null;
  }
}

/** The text a line's conversation holds, and who said it; null for a line without any. */
function lineText(
  line: Line,
  parsed: ParsedLine | undefined,
  pieces: (value: Json) => { role: string; text: string }[],
): { body: string; roles: string } | null {
  let value: unknown;
  if (parsed === undefined) {
    try {
      value = JSON.parse(line.text);
    } catch {
      value = undefined;
    }
  } else if ("value" in parsed) value = parsed.value;
  else if (parsed.problem.kind === "not_an_object") value = null;
  // Not JSON: kept with no role, so that a search says it skipped it as a scan does.
  if (value === undefined) return { body: line.text, roles: "" };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const found = pieces(value as Json);
  if (found.length === 0) return null;
  return {
    body: found.map((piece) => piece.text).join("\n"),
    roles: [...new Set(found.map((piece) => piece.role))].join(","),
  };
}

/**
 * The lines of one file put in the text index, in order, each once: told by the inspector's
 * reader as it parses them, then those it did not tell (what it left after its last line, or a
 * whole file it read otherwise) from a read of the rest alone.
 */
class LineIndexer {
  /** Where the lines indexed so far end, and the last one's number. */
  indexed: number;
  lines: number;
  inherits = false;
  /** A line past the stat's size, or torn: the lines from it wait for the next update. */
  stopped = false;
  /** What a line's turn adds to the counter's (the turn before a grown file's last turn). */
  base = 0;
  /** Follows the lines for the state that continues the file's facts when it grows. */
  tracker: ResumeTracker | undefined;
  readonly #turns: ReturnType<ReturnType<typeof searchProfile>["turns"]>;
  readonly #marker: string | undefined;

  /**
   * `size`: the file's size when it was `stat`ed; `text`: where its lines' text goes in the
   * index, from the offset `from` on (none: the lines are counted alone).
   */
  constructor(
    readonly size: number,
    readonly text: { from: number; fileId: number; s: Statements } | undefined,
    readonly profile: ReturnType<typeof searchProfile>,
  ) {
    this.indexed = 0;
    this.lines = 0;
    this.#turns = profile.turns();
    this.#marker = profile.inherited?.marker;
  }

  /** One line, with its parse when a reader made it; false once the lines stop. */
  take(line: Line, parsed: ParsedLine | undefined, compressed: boolean): boolean {
    // A line told twice or out of order (a reader's second look) is not the file's next line.
    if (this.stopped || line.start < this.indexed) return !this.stopped;
    // What was written after the stat waits for the next update; so does a torn last line.
    if (!compressed && (line.end > this.size || !line.terminated)) {
      this.stopped = true;
      return false;
    }
    if (line.line === 1 && this.#marker !== undefined) {
      this.inherits = line.text.includes(this.#marker);
    }
    this.indexed = line.end;
    this.lines = line.line;
    const { text, tracker } = this;
    if (text === undefined && tracker === undefined) return true;
    const turn = this.base + this.#turns.turnOf(line.text);
    if (line.text.trim() === "") return true;
    tracker?.see(line, valueOf(line, parsed), turn);
    if (text === undefined || line.start < text.from) return true;
    const found = lineText(line, parsed, this.profile.pieces);
    if (found === null) return true;
    const id =
      text.s.insertLine.run(text.fileId, line.line, turn, line.start, line.end, found.roles)
        .lastInsertRowid;
    text.s.insertText.run(id, found.body);
    faultPoint();
    return true;
  }
}

/** What a read of one file tells the catalog: its facts, and where its whole lines end. */
interface FileRead {
  facts: Awaited<ReturnType<typeof factsOf>>;
  indexed: number;
  lines: number;
  inherits: boolean;
  /** The state that continues its facts when it grows (`_grow.ts`), as JSON; null: none. */
  resume: string | null;
}

/**
 * Reads one file for its facts, its lines told to `indexer` as the inspector's reader parses
 * them, then those it did not tell (what it left after its last line, or a whole file it read
 * otherwise) from a read of the rest alone.
 */
async function readFile(wanted: WantedFile, indexer: LineIndexer): Promise<FileRead> {
  const compressed = isCompressed(wanted.path);
  // The inspector's reader tells the lines it parses (a plain file of another tool alone:
  // a compressed file's offsets are not its bytes on disk).
  const adapter = adapterOfData({ format: wanted.source.format });
  const told: LineObserver | undefined = adapter.own || compressed
    ? undefined
    : (line, parsed) => void indexer.take(line, parsed, false);
  if (!compressed) indexer.tracker = trackerOf(adapter);
  const facts = await factsOf(wanted, indexer.size, told);
  if (!indexer.stopped && (compressed || indexer.indexed < indexer.size)) {
    const start = indexer.indexed;
    const firstLine = indexer.lines + 1;
    await forEachLine(
      wanted.path,
      (line) => indexer.take(line, undefined, compressed),
      compressed ? {} : { start, firstLine },
    );
  }
  const { indexed, lines, inherits } = indexer;
  const resume = indexer.tracker?.save(facts.size, facts.problems, facts.orphans) ?? null;
  return { facts, indexed, lines, inherits, resume };
}

/**
 * The facts of one session file as an update keeps them (its text aside), read in this
 * thread: what the update's workers run, each for a file at a time.
 */
export function readFacts(wanted: WantedFile, size: number): Promise<FileRead> {
  return readFile(wanted, new LineIndexer(size, undefined, searchProfile(wanted.source.format)));
}

/**
 * Reads one file into the catalog, in one transaction: its text read in it, or its facts alone
 * read before it (`read`, by a worker, or now); a grown file's facts continued from its last
 * turn when they can be (then true).
 */
async function indexFile(
  db: DatabaseSync,
  plan: Plan,
  read?: Promise<FileRead>,
): Promise<boolean> {
  const s = statementsOf(db);
  const { wanted, info } = plan;
  const profile = searchProfile(wanted.source.format);
  const grown = plan.from > 0 && plan.known !== undefined && read === undefined
    ? await continueGrown(db, plan.known.id, plan)
    : undefined;
  const factsRead = plan.text || grown !== undefined
    ? undefined
    : await (read ?? readFacts(wanted, info.size));
  db.exec("BEGIN IMMEDIATE");
  try {
    let row = s.byPath.get(wanted.path) as KnownFile | undefined;
    if (plan.known !== undefined && !sameRow(row, plan.known)) {
      // Another command read it since we looked: its reading stands.
      db.exec("ROLLBACK");
      return false;
    }
    if (row === undefined) {
      const { source } = wanted;
      s.insertFile.run(
        wanted.path,
        source.root,
        source.format,
        source.archived ? 1 : 0,
        wanted.session,
        wanted.sessionId,
        wanted.project,
      );
      row = s.byPath.get(wanted.path) as unknown as KnownFile;
    }
    if (plan.from === 0 || !plan.text) {
      s.dropText.run(row.id);
      s.dropLines.run(row.id);
    }
    const text = plan.text ? { from: plan.from, fileId: row.id, s } : undefined;
    const { facts, indexed, lines, inherits, resume } = factsRead ??
      (grown === undefined
        ? await readFile(wanted, new LineIndexer(info.size, text, profile))
        : readGrownLines(grown, new LineIndexer(info.size, text, profile), wanted));
    const { source } = wanted;
    s.saveFile.run(
      source.root,
      source.format,
      source.archived ? 1 : 0,
      wanted.session,
      wanted.sessionId,
      facts.project,
      info.ino ?? null,
      info.size,
      info.mtime?.getTime() ?? 0,
      indexed,
      tailHash(wanted.path, indexed),
      lines,
      inherits ? 1 : 0,
      plan.text ? 1 : 0,
      facts.state,
      facts.first_at,
      facts.last_at,
      facts.cwd,
      facts.title,
      facts.first_prompt,
      facts.turns,
      facts.healthy,
      facts.verdict,
      facts.findings,
      facts.tokens,
      facts.models,
      facts.forked_from,
      facts.forks,
      facts.unreadable,
      row.id,
    );
    keepResume(db, row.id, resume);
    faultPoint();
    db.exec("COMMIT");
    faultPoint();
    return grown !== undefined;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * A grown file's facts continued from its last turn (`_grow.ts`), with what its listing shows;
 * undefined when it is to be read whole.
 */
async function continueGrown(db: DatabaseSync, id: number, plan: Plan) {
  if (isCompressed(plan.wanted.path)) return undefined;
  const adapter = adapterOfData({ format: plan.wanted.source.format });
  if (adapter.own) return undefined;
  const kept = keptFacts(db, id);
  // A continuation that fails for any reason (a file gone, no temp folder) is a whole read.
  const grown = await readGrown(plan.wanted.path, plan.info.size, plan.from, adapter, kept)
    .catch((error) => String(error));
  if (typeof grown === "string") return undefined;
  const listed = await previewOf(plan.wanted, plan.info.size);
  if (listed === null) return undefined;
  const facts = { ...grown.facts, forked_from: kept.forked_from, unreadable: null };
  return { ...grown, facts, listed, inherits: kept.inherits };
}

/** A continued file's lines from its last turn told to `indexer`, and its facts as read. */
function readGrownLines(
  grown: NonNullable<Awaited<ReturnType<typeof continueGrown>>>,
  indexer: LineIndexer,
  wanted: WantedFile,
): FileRead {
  indexer.base = grown.base;
  indexer.inherits = grown.inherits;
  for (const [at, line] of grown.lines.entries()) {
    const value = grown.values[at];
    if (!indexer.take(line, value ? { value } : undefined, false)) break;
  }
  // Its problems and orphan calls apart are in the state it made (`grown.resume`).
  const facts = {
    ...grown.facts,
    ...listedColumns(grown.listed, wanted),
    problems: 0,
    orphans: 0,
    size: indexer.size,
  };
  const { indexed, lines, inherits } = indexer;
  return { facts, indexed, lines, inherits, resume: grown.resume };
}

/**
 * Puts the text of a file read before without it in the full-text index, in one transaction:
 * its lines read alone (each parsed once), up to where its facts were read.
 */
async function indexText(db: DatabaseSync, plan: Plan): Promise<void> {
  const s = statementsOf(db);
  const { wanted, known } = plan;
  db.exec("BEGIN IMMEDIATE");
  try {
    const row = s.byPath.get(wanted.path) as KnownFile | undefined;
    if (known === undefined || !sameRow(row, known) || row!.texted === 1) {
      // Another command indexed it, or read it again, since we looked: that stands.
      db.exec("ROLLBACK");
      return;
    }
    s.dropText.run(known.id);
    s.dropLines.run(known.id);
    const compressed = isCompressed(wanted.path);
    const text = { from: 0, fileId: known.id, s };
    const indexer = new LineIndexer(plan.info.size, text, searchProfile(wanted.source.format));
    await forEachLine(wanted.path, (line) => indexer.take(line, undefined, compressed));
    if (indexer.indexed !== known.indexed || indexer.lines !== known.lines) {
      // Changed since its `stat`: the next update reads it again, the text with it.
      db.exec("ROLLBACK");
      return;
    }
    s.markTexted.run(known.id);
    faultPoint();
    db.exec("COMMIT");
    faultPoint();
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/** The bytes of files to read for their facts alone from which an update reads them in workers. */
const PARALLEL_BYTES = 32 << 20;

/** The most workers an update starts by default. */
const MAX_WORKERS = 4;

/** The fewest cores on which an update starts workers by default (one left to this thread). */
const MIN_CORES = 4;

/**
 * Workers that read files for their facts, a file at a time each ({@linkcode readFacts} in
 * `_facts_worker.ts`); none: each read is made in this thread when it is asked for. A worker
 * that fails leaves its file to be read in this thread, which says why if it fails too.
 */
class FactsPool implements Disposable {
  readonly #idle: Worker[] = [];
  #all: Worker[] = [];
  readonly #queue: { wanted: WantedFile; size: number; done: (read: FileRead | null) => void }[] =
    [];
  #closed = false;

  constructor(count: number) {
    for (let i = 0; i < count; i++) {
      const worker = new Worker(new URL("./_facts_worker.ts", import.meta.url), {
        type: "module",
        name: "turnlog catalog facts",
      });
      this.#all.push(worker);
      this.#idle.push(worker);
    }
  }

  /** The facts of a file, read by a worker; undefined when there is none (read it now). */
  read(wanted: WantedFile, size: number): Promise<FileRead> | undefined {
    if (this.#all.length === 0) return undefined;
    const told = new Promise<FileRead | null>((done) => {
      this.#queue.push({ wanted, size, done });
      this.#next();
    }).then((read) => {
      if (read !== null) return read;
      if (this.#closed) throw new Error("The update ended before this file was read");
      return readFacts(wanted, size);
    });
    // Awaited in the files' order; one that fails before its turn is not unhandled.
    told.catch(() => {});
    return told;
  }

  #next(): void {
    while (this.#idle.length > 0 && this.#queue.length > 0) {
      const worker = this.#idle.pop()!;
      const job = this.#queue.shift()!;
      worker.onmessage = (event: MessageEvent<{ read: FileRead | null }>) => {
        this.#idle.push(worker);
        job.done(event.data.read);
        this.#next();
      };
      worker.onerror = (event) => {
        // A worker that cannot run (its module, its permissions) takes no more files.
        event.preventDefault();
        worker.terminate();
        this.#all = this.#all.filter((other) => other !== worker);
        job.done(null);
        if (this.#all.length === 0) { for (const left of this.#queue.splice(0)) left.done(null); }
        this.#next();
      };
      worker.postMessage({ wanted: job.wanted, size: job.size });
    }
  }

  [Symbol.dispose](): void {
    this.#closed = true;
    for (const worker of this.#all) worker.terminate();
    for (const left of this.#queue.splice(0)) left.done(null);
  }
}

function sameRow(row: KnownFile | undefined, known: KnownFile): boolean {
  return row !== undefined && row.ino === known.ino && row.size === known.size &&
    row.mtime === known.mtime && row.indexed === known.indexed && row.deleted === known.deleted;
}

/**
 * Reads the files a walk found new or changed into the catalog (see the module's comment),
 * and completes the walk's summary.
 */
export async function indexChanged(
  db: DatabaseSync,
  walked: Walked,
  options: UpdateOptions = {},
): Promise<UpdateSummary> {
  const summary = { ...walked.summary };
  const text = options.text ?? true;
  const plans: Plan[] = walked.changed.map(({ wanted, info, known }) => {
    const texted = known?.texted === 1;
    // An unchanged file the walk sent on is one whose text is asked for, not yet indexed.
    if (unchanged(info, known)) return { wanted, info, known, from: 0, fromLine: 0, text };
    let from = startOf(wanted.path, info, known);
    // A grown file whose text was never indexed is read whole when its text is asked for.
    if (from > 0 && text && !texted) from = 0;
    const fromLine = from === 0 ? 0 : known?.lines ?? 0;
    return { wanted, info, known, from, fromLine, text: text || (from > 0 && texted) };
  });
  const progress: UpdateProgress = {
    files: 0,
    filesTotal: plans.length,
    bytes: 0,
    bytesTotal: plans.reduce((sum, plan) => sum + plan.info.size - plan.from, 0),
  };
  const textOnly = (plan: Plan) => unchanged(plan.info, plan.known);
  // A grown file's facts are continued from its last turn in this thread, if they can be.
  const factsAlone = plans.filter((plan) => !plan.text && plan.from === 0);
  // Workers cost a quarter more CPU (each loads the inspector and warms its own JIT): on two
  // cores shared with other work they lost (bench notes), so they take spare cores alone.
  const cores = navigator.hardwareConcurrency;
  const big = factsAlone.reduce((sum, plan) => sum + plan.info.size, 0) >= PARALLEL_BYTES;
  const workers = options.workers ??
    (big && cores >= MIN_CORES && factsAlone.length >= 2 ? Math.min(cores - 1, MAX_WORKERS) : 0);
  using pool = new FactsPool(Math.min(workers, factsAlone.length));
  const reads = new Map(factsAlone.map((plan) => [plan, pool.read(plan.wanted, plan.info.size)]));
  for (const plan of plans) {
    if (textOnly(plan)) {
      await indexText(db, plan);
      summary.texted++;
    } else {
      const continued = await indexFile(db, plan, reads.get(plan));
      if (plan.from > 0 && !continued) summary.fallbacks++;
      if (plan.from > 0) summary.grown++;
      else summary.read++;
    }
    progress.files++;
    progress.bytes += plan.info.size - plan.from;
    options.onProgress?.({ ...progress });
  }
  summary.bytes = progress.bytes;
  return summary;
}

/**
 * Brings the catalog's files of `sources` up to date with the disk (see the module's
 * comment); other roots' files are left as they are.
 */
export async function updateCatalog(
  db: DatabaseSync,
  sources: readonly CatalogSource[],
  options: UpdateOptions = {},
): Promise<UpdateSummary> {
  const walked = await walkSources(db, sources, { text: options.text ?? true });
  return await indexChanged(db, walked, options);
}
