/**
 * Workers that read session files for their facts, a file at a time each, for an update's
 * first build on a machine with cores to spare.
 *
 * @module
 */
import { type FileRead, readFacts } from "./_facts.ts";
import type { WantedFile } from "./_walk.ts";

/** The bytes of files to read for their facts alone from which an update reads them in workers. */
export const PARALLEL_BYTES = 32 << 20;

/** The most workers an update starts by default. */
export const MAX_WORKERS = 4;

/** The fewest cores on which an update starts workers by default (one left to this thread). */
export const MIN_CORES = 4;

/**
 * Workers that read files for their facts, a file at a time each ({@linkcode readFacts} in
 * `_facts_worker.ts`); none: each read is made in this thread when it is asked for. A worker
 * that fails leaves its file to be read in this thread, which says why if it fails too.
 */
export class FactsPool implements Disposable {
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
