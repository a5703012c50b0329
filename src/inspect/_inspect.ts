/**
 * The inspector's entry point: a session file read line by line, streaming, into its report,
 * without changing it.
 *
 * @module
 */
import { runEvents, withCost } from "./_cost.ts";
import {
  adapterOfFile,
  type LineObserver,
  NotAFileError,
  type SessionAdapter,
} from "../formats/mod.ts";
import { forEachLine } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { type ContinuePoint, continuePoint } from "../store/_find.ts";
import { inspectForeignFile, type ReaderFindings } from "./_foreign.ts";
import { type SegmenterOptions, TurnSegmenter } from "./_segmenter.ts";
import type { InspectReport } from "./_types.ts";

/** Options of {@linkcode inspectSession}. */
export interface InspectOptions extends SegmenterOptions {
  /**
   * The sessions root to continue the session from; absent: the root the file's own path
   * implies (`<root>/YYYY/MM/DD/<file>`), when that root finds it.
   */
  root?: string | undefined;
  /**
   * The command a person runs to continue the session (the report's `continueCommand`);
   * absent: the report has none.
   */
  commandFor?: ((point: ContinuePoint) => string) | undefined;
  /**
   * The command a person runs to continue another tool's session in turnlog (an import), for
   * the report's `continueCommand`; absent: none.
   */
  importCommandFor?: ((path: string) => string) | undefined;
  /**
   * The file's adapter, when the command that found the file knows it (`inspect --codex <id>`
   * found it through the Codex adapter): the file is then not detected again from its head.
   * Absent: told from the head.
   */
  adapter?: SessionAdapter | undefined;
  /**
   * Told of each line another tool's file holds as its reader parses it (its adapter's
   * `ReadSessionOptions.onLine`), so work on the same lines needs no read of its own; not told
   * for turnlog's own files.
   */
  onLine?: LineObserver | undefined;
  /**
   * False: no cost is worked out (the price table is not loaded), the session's and turns'
   * cost left as a file without tokens has them, for a caller that keeps no cost (the
   * catalog's facts). Absent: priced.
   */
  priced?: boolean | undefined;
  /**
   * False: the file alone is read, nothing is looked up beside it: no store is asked where a
   * turnlog session continues (its `continuePrefix` and `continueCommand` null) and no
   * subagent's transcript for its title (each `title` null), for a caller that keeps neither
   * (the catalog's facts). Absent: looked up.
   */
  lookups?: boolean | undefined;
  /**
   * Told, for another tool's file, what its reader found beside the report (the tool's
   * version, the check's findings, the lines set aside, fields never seen), so a caller that
   * wants them (the doctor, through the catalog's read) reads the file no more.
   */
  onRead?: ((found: ReaderFindings) => void) | undefined;
}

/**
 * Segments the session file at `path`, streaming, without changing it, and works out where
 * the session continues from (the shortest id prefix that finds it in its store). A Codex
 * rollout, a Claude Code transcript or any other tool's file an adapter knows (told from its
 * head) is read by its adapter; any other file as turnlog's own, however broken.
 *
 * @throws {Deno.errors.NotFound} when there is no such file
 * @throws {NotAFileError} when the path is a folder or another special file
 */
export async function inspectSession(
  path: string,
  options: InspectOptions = {},
): Promise<InspectReport> {
  const info = await Deno.stat(path);
  if (!info.isFile) throw new NotAFileError(path);
  const adapter = options.adapter ?? await adapterOfFile(path);
  if (!adapter.own) {
    const segmented = await inspectForeignFile(path, adapter.name, options);
    const command = segmented.session.state === "records" ? options.importCommandFor : undefined;
    return { ...segmented, continueCommand: command?.(path) ?? null, continuePrefix: null };
  }
  const segmenter = new TurnSegmenter(path, options);
  await forEachLine(path, (line) => {
    if (line.text.length > 0 || !line.terminated) segmenter.push(parseRecordLine(path, line), line);
  });
  const finished = segmenter.finish({ sizeBytes: info.size });
  const segmented = options.priced === false ? finished : await withCost(
    finished,
    runEvents(finished.turns),
    { provider: finished.session.modelProvider },
  );
  const id = segmented.session.id;
  const point = id === null || options.lookups === false
    ? undefined
    : await continuePoint(path, id, options.root);
  return {
    ...segmented,
    continueCommand: point && options.commandFor ? options.commandFor(point) : null,
    continuePrefix: point?.prefix ?? null,
  };
}

/**
 * The reports of the subagents a report lists (Claude Code's `report.subagents`), by id, each
 * inspected with `options`: what a page shows inline where each was started. A transcript
 * that cannot be read (gone since) is left out; the page links it.
 */
export async function inspectSubagents(
  report: InspectReport,
  options: InspectOptions = {},
): Promise<Map<string, InspectReport>> {
  const reports = new Map<string, InspectReport>();
  for (const subagent of report.subagents) {
    try {
      reports.set(subagent.id, await inspectSession(subagent.path, options));
    } catch (error) {
      if (
        !(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied)
      ) {
        throw error;
      }
    }
  }
  return reports;
}
