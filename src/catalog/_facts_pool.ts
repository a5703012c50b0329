/**
 * Session files read for their facts by this thread and workers together, for an update's
 * first build (`SharedReads`): the files' transactions stay in this thread, in their order.
 *
 * @module
 */
import { SharedReads } from "../io/_shared_reads.ts";
import { type FileRead, readFacts } from "./_facts.ts";
import type { WantedFile } from "./_walk.ts";

/** The most workers an update starts by default. */
export const MAX_WORKERS = 4;

/** A file to read for its facts: the file, and its size when it was `stat`ed. */
export interface FactsJob {
  /** The file. */
  wanted: WantedFile;
  /** Its size. */
  size: number;
  /** What its reader found beside the facts is asked for too (`FileRead.reader`). */
  reader: boolean;
}

/**
 * The files' facts read by this thread and `workers` workers together, asked for by place in
 * the order given (`_facts_worker.ts`). A file a worker cannot read is read in this thread,
 * which says why if it fails too.
 */
export function factsReads(
  files: readonly FactsJob[],
  workers: number,
): SharedReads<FactsJob, FileRead> {
  return new SharedReads(files, {
    worker: new URL("./_facts_worker.ts", import.meta.url),
    name: "turnlog catalog facts",
    workers,
    readHere: ({ wanted, size, reader }) => readFacts(wanted, size, reader),
    again: true,
  });
}
