/**
 * A cold count's files read by this thread and a worker together (`SharedReads`): the files to
 * read are handed out in the order the count takes them; the worker is sent the next ones while
 * it has fewer than two to answer, and this thread, while it waits for the worker's file, reads
 * the files after it (and a file whose turn comes that the worker was not sent). Each thread
 * reads about what it has time for, and what waits is a few files' responses. The count, its
 * de-duplication across files and its pricing stay in this thread, the same as with no worker:
 * only the reading of the files (the lines' decoding and parsing, nearly all of a cold count) is
 * shared.
 *
 * @module
 */
import type { FileUsage, SessionFormat } from "../formats/mod.ts";
import { USAGE_READERS } from "../formats/usage_readers.ts";
import { SharedReads } from "../io/_shared_reads.ts";

/** A file sent to the worker. */
export interface UsageJob {
  /** The file. */
  path: string;
  /** Its format, whose `usage` reads it. */
  format: SessionFormat;
}

/**
 * A file the count will read, in its order, with what it was before it was read (`stat`); of
 * a format with a reader in `USAGE_READERS`.
 */
export interface PlannedFile {
  /** The file. */
  path: string;
  /** Its format. */
  format: SessionFormat;
  /** Its `stat` before any read of it. */
  info: Deno.FileInfo;
}

/** A file's usage read by its format's reader (in this thread, or in the worker). */
export const readUsage = ({ path, format }: UsageJob): Promise<FileUsage> =>
  USAGE_READERS.get(format)!(path);

/**
 * Files read by this thread and a worker together (see the module's comment). A worker that
 * cannot run leaves its files to this thread.
 */
export class UsagePool implements Disposable {
  readonly #reads: SharedReads<UsageJob, FileUsage>;
  /** Each file's place in the order, and its `stat`. */
  readonly #planned: Map<string, { at: number; info: Deno.FileInfo }>;

  /** `files`: the files to read, in the order they will be asked for. */
  constructor(files: readonly PlannedFile[]) {
    this.#planned = new Map(files.map((file, at) => [file.path, { at, info: file.info }]));
    this.#reads = new SharedReads(files.map(({ path, format }) => ({ path, format })), {
      worker: new URL("./_usage_worker.ts", import.meta.url),
      name: "turnlog usage",
      workers: 1,
      readHere: readUsage,
    });
  }

  /** Files read so far by the worker and by this thread. */
  get counts(): { worker: number; here: number } {
    return this.#reads.counts;
  }

  /** The `stat` a planned file had before any read of it. */
  infoOf(path: string): Deno.FileInfo | undefined {
    return this.#planned.get(path)?.info;
  }

  /**
   * The usage of a planned file, asked for in the planned order: read by the worker, or by
   * this thread (now, or while it waited for the worker's file before it); null for a file
   * that was not planned. Rejected with why the file could not be read.
   */
  async read(path: string): Promise<FileUsage | null> {
    const planned = this.#planned.get(path);
    return planned === undefined ? null : await this.#reads.read(planned.at);
  }

  [Symbol.dispose](): void {
    this.#reads[Symbol.dispose]();
  }
}
