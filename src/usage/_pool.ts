/**
 * A cold count's files read by this thread and a worker together: the files to read are
 * handed out in the order the count takes them; the worker is sent the next ones while it has
 * fewer than {@linkcode SENT} to answer, and this thread, while it waits for the worker's
 * file, reads the files after it (and a file whose turn comes that the worker was not sent).
 * Each thread reads about what it has time for, and what waits is a few files' responses. The count, its de-duplication across files and its
 * pricing stay in this thread, the same as with no worker: only the reading of the files (the
 * lines' decoding and parsing, nearly all of a cold count) is shared.
 *
 * @module
 */
import type { FileUsage, SessionFormat } from "../formats/mod.ts";
import { USAGE_READERS } from "../formats/usage_readers.ts";

/** A file sent to the worker. */
export interface UsageJob {
  /** The job's number. */
  id: number;
  /** The file. */
  path: string;
  /** Its format, whose `usage` reads it. */
  format: SessionFormat;
}

/** The worker's answer: the file's usage, or why it could not be read. */
export type UsageAnswer = { id: number; usage: FileUsage } | { id: number; error: string };

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

/** A planned file's usage, read in this thread. */
const readHere = (file: PlannedFile): Promise<FileUsage> =>
  USAGE_READERS.get(file.format)!(file.path);

/** Files this thread reads ahead of the count at most while it waits for the worker. */
const AHEAD = 8;

/**
 * Files sent to the worker and not answered at most: it starts the next with no wait for this
 * thread (which hears of an answer only between its own reads).
 */
const SENT = 2;

interface Claim {
  /** The file's usage, or why it could not be read. */
  answer: Promise<FileUsage>;
  /** Whether the answer is in. */
  settled: boolean;
}

/**
 * Files read by this thread and a worker together (see the module's comment). A worker that
 * cannot run leaves its files to this thread.
 */
export class UsagePool implements Disposable {
  readonly #files: readonly PlannedFile[];
  readonly #infos: Map<string, Deno.FileInfo>;
  /** The first file no thread took. */
  #next = 0;
  /** The files taken (read, or being read) and not yet asked for, by path. */
  readonly #claims = new Map<string, Claim>();
  /** The worker's files not answered, by job number. */
  readonly #sent = new Map<
    number,
    { file: PlannedFile; settle: (usage: FileUsage | Error) => void }
  >();
  #worker: Worker | undefined;
  /** Files read so far by the worker and by this thread. */
  readonly counts = { worker: 0, here: 0 };

  /** `files`: the files to read, in the order they will be asked for. */
  constructor(files: readonly PlannedFile[]) {
    this.#files = files;
    this.#infos = new Map(files.map((file) => [file.path, file.info]));
    const worker = new Worker(new URL("./_usage_worker.ts", import.meta.url), {
      type: "module",
      name: "turnlog usage",
    });
    worker.onmessage = (event: MessageEvent<UsageAnswer>) => {
      const sent = this.#sent.get(event.data.id);
      if (sent === undefined) return;
      this.#sent.delete(event.data.id);
      this.counts.worker++;
      sent.settle("usage" in event.data ? event.data.usage : new Error(event.data.error));
      this.#feed();
    };
    worker.onerror = (event) => {
      // A worker that cannot run (its module, its permissions): this thread reads its files.
      event.preventDefault();
      this.#stop();
    };
    this.#worker = worker;
    this.#feed();
  }

  /** The `stat` a planned file had before any read of it. */
  infoOf(path: string): Deno.FileInfo | undefined {
    return this.#infos.get(path);
  }

  /**
   * The usage of a planned file, asked for in the planned order: read by the worker, or by
   * this thread (now, or while it waited for the worker's file before it); null for a file
   * that was not planned. Rejected with why the file could not be read.
   */
  async read(path: string): Promise<FileUsage | null> {
    let claim = this.#claims.get(path);
    if (claim === undefined) {
      const at = this.#files.findIndex((file, i) => i >= this.#next && file.path === path);
      if (at < 0) return null;
      this.#next = at;
      claim = this.#claimHere(this.#files[this.#next++]!);
    }
    // While the worker reads it, this thread reads the files after it.
    while (!claim.settled && this.#claims.size < AHEAD && this.#next < this.#files.length) {
      const ahead = this.#claimHere(this.#files[this.#next++]!);
      await ahead.answer.catch(() => {});
    }
    this.#claims.delete(path);
    this.#feed();
    return await claim.answer;
  }

  /** Reads a file in this thread. */
  #claimHere(file: PlannedFile): Claim {
    this.counts.here++;
    const claim: Claim = { answer: readHere(file), settled: false };
    this.#claims.set(file.path, claim);
    claim.answer.then(() => claim.settled = true, () => claim.settled = true);
    return claim;
  }

  /** Hands the worker the next files (see {@linkcode SENT} and {@linkcode AHEAD}). */
  #feed(): void {
    const worker = this.#worker;
    if (worker === undefined) return;
    while (
      this.#sent.size < SENT && this.#claims.size < AHEAD + SENT &&
      this.#next < this.#files.length
    ) {
      const file = this.#files[this.#next]!;
      const id = this.#next++;
      const claim: Claim = { answer: undefined!, settled: false };
      claim.answer = new Promise<FileUsage>((resolve, reject) => {
        this.#sent.set(id, {
          file,
          settle: (usage) => {
            claim.settled = true;
            if (usage instanceof Error) reject(usage);
            else resolve(usage);
          },
        });
      });
      // Asked for in the count's order: one that fails before its turn is not unhandled.
      claim.answer.catch(() => {});
      this.#claims.set(file.path, claim);
      worker.postMessage({ id, path: file.path, format: file.format } satisfies UsageJob);
    }
  }

  /** Ends the worker: the files it had not answered are read by this thread. */
  #stop(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const { file, settle } of this.#sent.values()) {
      this.counts.here++;
      readHere(file).then(settle, settle);
    }
    this.#sent.clear();
  }

  [Symbol.dispose](): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#sent.clear();
  }
}
