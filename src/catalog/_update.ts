/**
 * The catalog kept up to date: every session file of the sources walked from names alone and
 * `stat`ed; an unchanged file costs nothing more; a grown one (same file, its indexed prefix
 * unchanged) is read from its last turn on; a rewritten or new one is read whole; a gone one is
 * marked. Each file is one transaction: a kill leaves it as it was or as it is now.
 *
 * The full-text index is built when a search first asks for it (`UpdateOptions.text`): an update
 * for a listing keeps the facts alone (`_facts.ts`), which cost the inspector's read, and the
 * trigram index of every line's text (`_text.ts`: three quarters of a first build's time) waits
 * for the first search, which reads the files not yet in it once more. So does the text of the
 * lines a file grew by: a listing continues its facts and keeps where its rows stop, and the next
 * search puts in the rows of those lines alone.
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
import type { DatabaseSync } from "node:sqlite";
import { isCompressed, readRangeSync } from "../io/mod.ts";
import { searchProfile } from "../search/_profiles.ts";
import { adapterOfData } from "../formats/mod.ts";
import {
  keepResume,
  keptFacts,
  readGrown,
  type TextResume,
  textResumeOf,
  withTextResume,
} from "./_grow.ts";
import { type FileRead, listedColumns, previewOf, readFacts, readFile } from "./_facts.ts";
import { factsReads, MAX_WORKERS } from "./_facts_pool.ts";
import { workersFor } from "../io/_shared_reads.ts";
import { indexText, LineIndexer, resumeText } from "./_text.ts";
import { faultPoint, sameRow, type Statements, statementsOf } from "./_statements.ts";
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

export { CATALOG_KILL_AT_ENV } from "./_statements.ts";

/** The bytes before the indexed offset whose hash proves the indexed prefix unchanged. */
export const TAIL_BYTES = 4096;

interface Plan {
  wanted: WantedFile;
  info: Deno.FileInfo;
  known: KnownFile | undefined;
  /** Its `stat` was in the tick of its last write (`racy`): its row says so. */
  racy: boolean;
  /** Read from this offset (0: whole), with its line number. */
  from: number;
  fromLine: number;
  /** Its lines' text goes in the full-text index (from `from`). */
  text: boolean;
  /** The update asks for the text (a search's): else a continued file's new lines wait. */
  asked: boolean;
  /** Where its text rows stop while its facts went on (a listing continued it before). */
  resume: TextResume | undefined;
}

/**
 * The sha256 of the up to {@linkcode TAIL_BYTES} bytes before `end`, in hex; empty for a
 * compressed file. Web Crypto's digest: about 0.2 ms a tail, where a hash in JavaScript took 2 to
 * 4 ms in a process that had not warmed it yet (an update hashes each grown file's tail twice)
 * and `node:crypto` 40 to 60 ms to load.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { tailHash } from "./_update.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "abc");
 * assert.equal(
 *   await tailHash(path, 3),
 *   "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
 * );
 * await Deno.remove(path);
 * ```
 */
export async function tailHash(path: string, end: number): Promise<string> {
  if (isCompressed(path)) return "";
  let bytes: Uint8Array<ArrayBuffer>;
  {
    using file = Deno.openSync(path, { read: true });
    bytes = readRangeSync(file, { start: Math.max(0, end - TAIL_BYTES), end }) as Uint8Array<
      ArrayBuffer
    >;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Where to read a changed file from: its indexed offset when it only grew (the same file, its
 * last indexed bytes the same), else from the start. A file of the size it had, written again
 * (a later time, or a row read in the tick of its last write), was rewritten in place, as
 * Gemini CLI writes its session: read whole, unless the tail hash covers every indexed byte.
 */
async function startOf(
  path: string,
  info: Deno.FileInfo,
  known: KnownFile | undefined,
): Promise<number> {
  if (known === undefined || known.deleted === 1 || isCompressed(path)) return 0;
  if (info.ino !== known.ino || info.size < known.indexed || known.indexed === 0) return 0;
  if (info.size <= known.size && known.indexed > TAIL_BYTES) return 0;
  try {
    return await tailHash(path, known.indexed) === known.tail_hash ? known.indexed : 0;
  } catch {
    return 0;
  }
}

/** The row of a plan's file, made when it has none; undefined when another command read it. */
function rowOf(s: Statements, plan: Plan): KnownFile | undefined {
  const { wanted } = plan;
  const row = s.byPath.get(wanted.path) as KnownFile | undefined;
  if (plan.known !== undefined && !sameRow(row, plan.known)) return undefined;
  if (row !== undefined) return row;
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
  return s.byPath.get(wanted.path) as unknown as KnownFile;
}

/**
 * A file's row saved as `read` found it (`hash`: the tail hash of its bytes to where they were
 * read), its text in the index (`texted`) or not.
 */
function saveRow(
  s: Statements,
  plan: Plan,
  row: { id: number; hash: string },
  read: FileRead,
  texted: boolean,
): void {
  const { wanted, info } = plan;
  const { facts, indexed } = read;
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
    row.hash,
    read.lines,
    read.inherits ? 1 : 0,
    texted ? 1 : 0,
    plan.racy ? 1 : 0,
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
}

type Continued = NonNullable<Awaited<ReturnType<typeof continueGrown>>>;

/** A file's text rows made from its start. */
const WHOLE_TEXT: TextResume = { from: 0, cut: 0, line: 1, base: 0 };

/**
 * A continued file's rows and state: its new lines' text put in now when the update asks for
 * it (or its rows were whole and it has no state to keep where they stop), else where its rows
 * stop kept with its state for the next search. Whether its text is in the index.
 */
async function continuedRows(
  s: Statements,
  plan: Plan,
  id: number,
  grown: Continued,
): Promise<{ read: FileRead; texted: boolean }> {
  const { wanted, info, known } = plan;
  const profile = searchProfile(wanted.source.format);
  const whole = known?.texted === 1;
  // Rows whole to the indexed offset go on from it while the lines read go back that far.
  const now = whole && (plan.asked || grown.resume === null);
  const text = now ? { from: plan.from, fileId: id, s } : undefined;
  const read = readGrownLines(grown, new LineIndexer(info.size, text, profile), wanted);
  if (now) return { read, texted: true };
  const first = grown.lines[0]!;
  const resume = plan.resume ??
    (whole ? { from: plan.from, cut: first.start, line: first.line, base: grown.base } : undefined);
  const target = { path: wanted.path, format: wanted.source.format, fileId: id };
  if (resume === undefined || read.resume === null) {
    s.dropRows(id);
    // No state says where its rows stop: asked for, they are made again from its start.
    if (!plan.asked) return { read, texted: false };
    if (await resumeText(target, WHOLE_TEXT, read, s)) return { read, texted: true };
    s.dropRows(id);
    return { read, texted: false };
  }
  if (plan.asked) {
    if (await resumeText(target, resume, read, s)) return { read, texted: true };
    s.dropRows(id);
    return { read, texted: false };
  }
  return { read: { ...read, resume: withTextResume(read.resume, resume) }, texted: false };
}

/**
 * Reads one file into the catalog, in one transaction: its text read in it, or its facts alone
 * read before it (`read`, by a worker, or now); a grown file's facts continued from its last
 * turn when they can be (then true).
 */
async function indexFile(
  db: DatabaseSync,
  plan: Plan,
  read: Promise<FileRead> | undefined,
  onRead: UpdateOptions["onRead"],
): Promise<boolean> {
  const s = statementsOf(db);
  const { wanted, info } = plan;
  const grown = plan.from > 0 && plan.known !== undefined && read === undefined
    ? await continueGrown(db, plan.known.id, plan)
    : undefined;
  const factsRead = plan.text || grown !== undefined
    ? undefined
    : await (read ?? readFacts(wanted, info.size, onRead !== undefined));
  db.exec("BEGIN IMMEDIATE");
  try {
    const row = rowOf(s, plan);
    if (row === undefined) {
      // Another command read it since we looked: its reading stands.
      db.exec("ROLLBACK");
      return false;
    }
    let done: { read: FileRead; texted: boolean };
    if (grown !== undefined) done = await continuedRows(s, plan, row.id, grown);
    else {
      // Rows that stop short of the indexed offset (a listing continued it) are made again.
      const fresh = plan.from === 0 || !plan.text || plan.resume !== undefined;
      if (fresh) s.dropRows(row.id);
      const text = plan.text ? { from: fresh ? 0 : plan.from, fileId: row.id, s } : undefined;
      const profile = searchProfile(wanted.source.format);
      done = {
        read: factsRead ??
          await readFile(wanted, new LineIndexer(info.size, text, profile), {
            reader: onRead !== undefined,
          }),
        texted: plan.text,
      };
    }
    const hash = await tailHash(wanted.path, done.read.indexed);
    saveRow(s, plan, { id: row.id, hash }, done.read, done.texted);
    keepResume(db, row.id, done.read.resume);
    faultPoint();
    db.exec("COMMIT");
    faultPoint();
    const found = done.read.reader;
    if (found !== undefined) onRead?.({ path: wanted.path, info, racy: plan.racy, found });
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
  // The lines' objects serve text rows put in now, a search's (a listing's update puts in none).
  const options = { values: plan.asked };
  const grown = await readGrown(plan.wanted.path, plan.info.size, plan.from, adapter, kept, options)
    .catch((error) => String(error));
  if (typeof grown === "string") return undefined;
  const listed = await previewOf(plan.wanted, plan.info.size);
  if (listed === null) return undefined;
  const facts = { ...grown.facts, forked_from: kept.forked_from, unreadable: null };
  return { ...grown, facts, listed, inherits: kept.inherits };
}

/** A continued file's lines from its last turn told to `indexer`, and its facts as read. */
function readGrownLines(grown: Continued, indexer: LineIndexer, wanted: WantedFile): FileRead {
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

/** Where the text rows of a file stop while its facts went on, as its row's state keeps it. */
function keptTextResume(db: DatabaseSync, known: KnownFile | undefined): TextResume | undefined {
  if (known === undefined || known.texted === 1 || known.deleted === 1) return undefined;
  return textResumeOf(keptFacts(db, known.id).resume);
}

/** How an update reads a file the walk found new, changed, or without its text asked for. */
async function planOf(
  db: DatabaseSync,
  changed: Walked["changed"][number],
  text: boolean,
): Promise<Plan> {
  const { wanted, info, known, racy } = changed;
  const texted = known?.texted === 1;
  const resume = text || known?.texted === 0 ? keptTextResume(db, known) : undefined;
  const plan = { wanted, info, known, racy, from: 0, fromLine: 0, text, asked: text, resume };
  // An unchanged file the walk sent on is one whose text is asked for, not yet indexed.
  if (unchanged(info, known)) return plan;
  let from = await startOf(wanted.path, info, known);
  // A grown file whose text was never indexed is read whole when its text is asked for.
  if (from > 0 && text && !texted && resume === undefined) from = 0;
  const fromLine = from === 0 ? 0 : known?.lines ?? 0;
  return { ...plan, from, fromLine, text: text || (from > 0 && texted) };
}

/** Whether a plan only puts in the text of a file whose facts are kept as they are. */
const textOnly = (plan: Plan) => unchanged(plan.info, plan.known);

/**
 * The plans, but for the text-only ones past `bytes` of them (the first kept when `bytes` is
 * more than 0): what {@linkcode UpdateOptions.textBytes} leaves to the next update.
 */
function withinText(plans: readonly Plan[], bytes: number): Plan[] {
  let taken = 0;
  return plans.filter((plan) => {
    if (!textOnly(plan)) return true;
    if (bytes <= 0 || (taken > 0 && taken + plan.info.size > bytes)) return false;
    taken += Math.max(plan.info.size, 1);
    return true;
  });
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
  const planned: Plan[] = [];
  for (const changed of walked.changed) planned.push(await planOf(db, changed, text));
  const plans = withinText(planned, options.textBytes ?? Infinity);
  summary.textLeft = planned.length - plans.length;
  const progress: UpdateProgress = {
    files: 0,
    filesTotal: plans.length,
    bytes: 0,
    bytesTotal: plans.reduce((sum, plan) => sum + plan.info.size - plan.from, 0),
  };
  // A grown file's facts are continued from its last turn in this thread, if they can be.
  const factsAlone = plans.filter((plan) => !plan.text && plan.from === 0);
  // This thread reads beside the workers while it waits for theirs (`SharedReads`): one worker
  // on two cores, never for a few small files (a worker's start and its own JIT cost more).
  const sizes = factsAlone.map((plan) => plan.info.size);
  const workers = Math.min(
    options.workers ?? workersFor(sizes, { max: MAX_WORKERS }),
    factsAlone.length,
  );
  const reader = options.onRead !== undefined;
  const jobs = factsAlone.map((plan) => ({ wanted: plan.wanted, size: plan.info.size, reader }));
  using pool = workers > 0 ? factsReads(jobs, workers) : undefined;
  const places = new Map(factsAlone.map((plan, at) => [plan, at]));
  for (const plan of plans) {
    if (textOnly(plan)) {
      const { wanted, info, known, resume } = plan;
      const format = wanted.source.format;
      const file = { path: wanted.path, format, size: info.size, known, resume };
      if (await indexText(db, file)) summary.texted++;
    } else {
      const at = places.get(plan);
      const read = at === undefined ? undefined : pool?.read(at);
      const continued = await indexFile(db, plan, read, options.onRead);
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
