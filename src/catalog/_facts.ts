/**
 * The facts of a session file as the catalog keeps them: what the inspector reports (turns,
 * verdict, tokens, models, links) and, for another tool's file, what its listing shows (its own
 * dates, project, title, first prompt), read whole, the lines told to the text index's
 * {@linkcode LineIndexer} as the inspector's reader parses them.
 *
 * @module
 */
import { forEachLine, isCompressed } from "../io/mod.ts";
import {
  type InspectReport,
  inspectSession,
  type ReaderFindings,
  verdictOf,
} from "../inspect/mod.ts";
import { searchProfile } from "../search/_profiles.ts";
import { adapterOfData, type LineObserver } from "../formats/mod.ts";
import { trackerOf } from "./_grow.ts";
import { LineIndexer } from "./_text.ts";
import type { WantedFile } from "./_walk.ts";

/**
 * What a listing shows of another tool's file today, from its head and a bounded tail (its
 * adapter's `preview`): its own dates, project, title and first prompt; null for turnlog's own.
 */
export async function previewOf(wanted: WantedFile, sizeBytes: number) {
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

export type Listed = NonNullable<Awaited<ReturnType<typeof previewOf>>>;

/** The columns a listing of another tool's file fills (its own dates, project, title). */
export function listedColumns(listed: Listed, wanted: WantedFile) {
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
 * The columns the catalog fills from a file's inspection: its turns, verdict and findings,
 * tokens, models and links, and the bytes the inspector read.
 */
export function reportColumns(report: InspectReport) {
  const { session } = report;
  return {
    turns: report.turns.length,
    healthy: report.healthy ? 1 : 0,
    verdict: verdictOf(report).words,
    findings: report.problems.length + report.orphanCalls.length,
    tokens: session.tokens === null ? null : JSON.stringify(session.tokens),
    models: JSON.stringify(session.models),
    forked_from: session.forkedFrom === null ? null : JSON.stringify(session.forkedFrom),
    forks: report.forks.length,
    problems: report.problems.length,
    orphans: report.orphanCalls.length,
    // The bytes the inspector read: more than the stat's when the file grew in between.
    size: session.sizeBytes,
  };
}

/**
 * The facts of a file as the inspector reports them (turns, verdict, tokens, models, links)
 * and, for another tool's file, as its listing shows it (dates, project, title, prompt), as
 * the columns hold them; what its reader found beside them told to `onRead`.
 */
export async function factsOf(
  wanted: WantedFile,
  sizeBytes: number,
  onLine: LineObserver | undefined,
  onRead?: (found: ReaderFindings) => void,
) {
  const { path } = wanted;
  try {
    // The catalog keeps no cost, no continue point and no subagent's title: the price table is
    // neither loaded nor asked, and nothing beside the file is looked up (a store's day
    // folders listed for the shortest prefix were half a small turnlog file's inspection).
    const report = await inspectSession(path, { onLine, priced: false, lookups: false, onRead });
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
      ...reportColumns(report),
      unreadable: null,
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

/** What a read of one file tells the catalog: its facts, and where its whole lines end. */
export interface FileRead {
  facts: Awaited<ReturnType<typeof factsOf>>;
  indexed: number;
  lines: number;
  inherits: boolean;
  /** The state that continues its facts when it grows (`_grow.ts`), as JSON; null: none. */
  resume: string | null;
  /**
   * What its reader found beside the facts (another tool's file read whole, when asked:
   * `UpdateOptions.onRead`); absent else.
   */
  reader?: ReaderFindings;
}

/**
 * Reads one file for its facts, its lines told to `indexer` as the inspector's reader parses
 * them, then those it did not tell (what it left after its last line, or a whole file it read
 * otherwise) from a read of the rest alone.
 */
export async function readFile(
  wanted: WantedFile,
  indexer: LineIndexer,
  options: { reader?: boolean | undefined } = {},
): Promise<FileRead> {
  const compressed = isCompressed(wanted.path);
  // The inspector's reader tells the lines it parses (a plain file of another tool alone:
  // a compressed file's offsets are not its bytes on disk).
  const adapter = adapterOfData({ format: wanted.source.format });
  const told: LineObserver | undefined = adapter.own || compressed
    ? undefined
    : (line, parsed) => void indexer.take(line, parsed, false);
  if (!compressed) indexer.tracker = trackerOf(adapter);
  let reader: ReaderFindings | undefined;
  const onRead = options.reader ? (found: ReaderFindings) => void (reader = found) : undefined;
  const facts = await factsOf(wanted, indexer.size, told, onRead);
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
  return { facts, indexed, lines, inherits, resume, ...(reader ? { reader } : {}) };
}

/**
 * The facts of one session file as an update keeps them (its text aside), read in this
 * thread: what the update's workers run, each for a file at a time; with `reader`, what its
 * reader found beside them.
 */
export function readFacts(wanted: WantedFile, size: number, reader = false): Promise<FileRead> {
  const indexer = new LineIndexer(size, undefined, searchProfile(wanted.source.format));
  return readFile(wanted, indexer, { reader });
}
