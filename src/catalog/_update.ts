/**
 * The catalog kept up to date: every session file of the sources walked from names alone and
 * `stat`ed; an unchanged file costs nothing more; a grown one (same file, its indexed prefix
 * unchanged) has only its new lines' text indexed; a rewritten or new one is read whole; a gone
 * one is marked. Each file is one transaction: a kill leaves it as it was or as it is now.
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
import {
  type CatalogSource,
  type KnownFile,
  type UpdateOptions,
  type UpdateProgress,
  type UpdateSummary,
  type Walked,
  walkSources,
  type WantedFile,
} from "./_walk.ts";
import { keepResume, keptFacts, readGrown, type ResumeTracker, trackerOf } from "./_grow.ts";

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

  constructor(db: DatabaseSync) {
    this.byPath = db.prepare(
      "SELECT id, path, ino, size, mtime, indexed, tail_hash, lines, deleted FROM files " +
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
        inherits = ?, deleted = 0, state = ?, first_at = ?, last_at = ?, cwd = ?, title = ?,
        first_prompt = ?, turns = ?, healthy = ?, verdict = ?, findings = ?, tokens = ?,
        models = ?, forked_from = ?, forks = ?, unreadable = ? WHERE id = ?`,
    );
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
    const report = await inspectSession(path, { onLine });
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

  constructor(
    readonly plan: Plan,
    readonly fileId: number,
    readonly s: Statements,
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
    if (!compressed && (line.end > this.plan.info.size || !line.terminated)) {
      this.stopped = true;
      return false;
    }
    if (line.line === 1 && this.#marker !== undefined) {
      this.inherits = line.text.includes(this.#marker);
    }
    const turn = this.base + this.#turns.turnOf(line.text);
    this.indexed = line.end;
    this.lines = line.line;
    if (line.text.trim() === "") return true;
    this.tracker?.see(line, valueOf(line, parsed), turn);
    if (line.start < this.plan.from) return true;
    const found = lineText(line, parsed, this.profile.pieces);
    if (found === null) return true;
    const id =
      this.s.insertLine.run(this.fileId, line.line, turn, line.start, line.end, found.roles)
        .lastInsertRowid;
    this.s.insertText.run(id, found.body);
    faultPoint();
    return true;
  }
}

/**
 * Reads one file into the catalog, in one transaction; true when a grown file's facts were
 * continued from its last turn (not read whole).
 */
async function indexFile(db: DatabaseSync, plan: Plan): Promise<boolean> {
  const s = statementsOf(db);
  const { wanted, info } = plan;
  const profile = searchProfile(wanted.source.format);
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
    if (plan.from === 0) {
      s.dropText.run(row.id);
      s.dropLines.run(row.id);
    }
    const compressed = isCompressed(wanted.path);
    const indexer = new LineIndexer(plan, row.id, s, profile);
    // The inspector's reader tells the lines it parses (a plain file of another tool alone:
    // a compressed file's offsets are not its bytes on disk).
    const adapter = adapterOfData({ format: wanted.source.format });
    const own = adapter.own;
    const told: LineObserver | undefined = own || compressed
      ? undefined
      : (line, parsed) => void indexer.take(line, parsed, false);
    if (!compressed) indexer.tracker = trackerOf(adapter);
    const grown = plan.from > 0 && !compressed ? await continueGrown(db, row.id, plan) : undefined;
    let facts: Awaited<ReturnType<typeof factsOf>>;
    if (grown !== undefined) {
      indexer.tracker = undefined;
      indexer.base = grown.base;
      indexer.inherits = grown.inherits;
      for (const [at, line] of grown.lines.entries()) {
        const value = grown.values[at];
        if (!indexer.take(line, value ? { value } : undefined, false)) break;
      }
      // Its problems and orphan calls apart are in the state it made (`grown.resume`).
      facts = {
        ...grown.facts,
        ...listedColumns(grown.listed, wanted),
        problems: 0,
        orphans: 0,
        size: info.size,
      };
    } else facts = await factsOf(wanted, info.size, told);
    if (!indexer.stopped && (compressed || indexer.indexed < info.size)) {
      const start = indexer.indexed;
      const firstLine = indexer.lines + 1;
      await forEachLine(
        wanted.path,
        (line) => indexer.take(line, undefined, compressed),
        compressed ? {} : { start, firstLine },
      );
    }
    const { indexed, lines, inherits } = indexer;
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
    const resume = grown !== undefined
      ? grown.resume
      : indexer.tracker?.save(facts.size, facts.problems, facts.orphans);
    keepResume(db, row.id, resume ?? null);
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
  const plans: Plan[] = walked.changed.map(({ wanted, info, known }) => ({
    wanted,
    info,
    known,
    from: startOf(wanted.path, info, known),
    fromLine: known?.lines ?? 0,
  }));
  const progress: UpdateProgress = {
    files: 0,
    filesTotal: plans.length,
    bytes: 0,
    bytesTotal: plans.reduce((sum, plan) => sum + plan.info.size - plan.from, 0),
  };
  for (const plan of plans) {
    const continued = await indexFile(db, plan);
    if (plan.from > 0 && !continued) summary.fallbacks++;
    if (plan.from > 0) summary.grown++;
    else summary.read++;
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
  return await indexChanged(db, await walkSources(db, sources), options);
}
