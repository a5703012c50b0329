/**
 * Files read by this thread and workers together, for what is made of each in this thread in
 * the files' order (a cold usage count, a catalog's first build): each worker is sent the next
 * files while it has fewer than {@linkcode SENT} to answer, and this thread, while it waits for
 * a worker's file, reads the files after it (and a file whose turn comes that no worker was
 * sent). Each thread reads about what it has time for, and what waits is a few files' results.
 * On two cores one worker reads beside this thread, which is not left waiting on it.
 *
 * @module
 */

/** A file's job sent to a worker, with its number. */
export interface SharedJob<Job> {
  /** The job's number. */
  id: number;
  /** What the worker reads. */
  job: Job;
}

/** A worker's answer: the job's result, or why it could not be read. */
export type SharedAnswer<Result> = { id: number; result: Result } | { id: number; error: string };

/** Files this thread reads ahead of the one asked for at most while it waits for a worker. */
const AHEAD = 8;

/**
 * Files sent to a worker and not answered at most: it starts the next with no wait for this
 * thread (which hears of an answer only between its own reads).
 */
const SENT = 2;

/** The bytes to read from which workers read beside this thread (below: their start costs more). */
export const SHARED_READS_BYTES = 32 << 20;

/**
 * How many workers read files of these sizes beside this thread: none for fewer than two files,
 * under {@linkcode SHARED_READS_BYTES} (`fromBytes`) together, or on one core; else one per core
 * but this thread's, at most `max` and one per file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { workersFor } from "./_shared_reads.ts";
 * assert.equal(workersFor([1 << 30], { max: 4 }), 0);
 * assert.equal(workersFor([10, 10], { max: 4 }), 0);
 * const cores = navigator.hardwareConcurrency;
 * assert.equal(workersFor([10, 10], { max: 4, fromBytes: 0 }), cores < 2 ? 0 : 1);
 * ```
 */
export function workersFor(
  sizes: readonly number[],
  options: { max: number; fromBytes?: number },
): number {
  const bytes = sizes.reduce((sum, size) => sum + size, 0);
  const cores = navigator.hardwareConcurrency;
  if (sizes.length < 2 || cores < 2 || bytes < (options.fromBytes ?? SHARED_READS_BYTES)) return 0;
  return Math.min(cores - 1, options.max, sizes.length);
}

/** Options of {@linkcode SharedReads}. */
export interface SharedReadsOptions<Job, Result> {
  /** The workers' module: it calls {@linkcode serveReads} with the same read. */
  worker: URL;
  /** The workers' name. */
  name: string;
  /** How many workers read beside this thread. */
  workers: number;
  /** A job's read in this thread. */
  readHere: (job: Job) => Promise<Result>;
  /**
   * A job a worker answers with an error is read again in this thread (which says why if it
   * fails too), else rejected with the worker's error.
   * @default {false}
   */
  again?: boolean | undefined;
}

interface Claim<Result> {
  /** The job's result, or why it could not be read. */
  answer: Promise<Result>;
  /** Whether the answer is in. */
  settled: boolean;
}

interface Sent<Job, Result> {
  job: Job;
  settle: (result: Result | Error) => void;
}

/**
 * Jobs read by this thread and workers together (see the module's comment), asked for by their
 * place in the order given. A worker that cannot run leaves its jobs to this thread; a job a
 * worker answers with an error is rejected with it.
 */
export class SharedReads<Job, Result> implements Disposable {
  readonly #jobs: readonly Job[];
  readonly #readHere: (job: Job) => Promise<Result>;
  /** The first job no thread took. */
  #next = 0;
  /** The jobs taken (read, or being read) and not yet asked for, by place. */
  readonly #claims = new Map<number, Claim<Result>>();
  /** Each worker's jobs not answered, by job number. */
  readonly #workers = new Map<Worker, Map<number, Sent<Job, Result>>>();
  #id = 0;
  /** Jobs read so far by the workers and by this thread. */
  readonly counts = { worker: 0, here: 0 };

  /** `jobs`: what to read, in the order it will be asked for. */
  constructor(jobs: readonly Job[], options: SharedReadsOptions<Job, Result>) {
    this.#jobs = jobs;
    this.#readHere = options.readHere;
    for (let i = 0; i < options.workers; i++) {
      const worker = new Worker(options.worker, { type: "module", name: options.name });
      const sent = new Map<number, Sent<Job, Result>>();
      worker.onmessage = (event: MessageEvent<SharedAnswer<Result>>) => {
        const job = sent.get(event.data.id);
        if (job === undefined) return;
        sent.delete(event.data.id);
        this.counts.worker++;
        if ("result" in event.data) job.settle(event.data.result);
        else if (options.again) this.#settleHere(job);
        else job.settle(new Error(event.data.error));
        this.#feed();
      };
      worker.onerror = (event) => {
        // A worker that cannot run (its module, its permissions): this thread reads its jobs.
        event.preventDefault();
        this.#stop(worker);
      };
      this.#workers.set(worker, sent);
    }
    this.#feed();
  }

  /**
   * The result of the job at `at`, asked for in the jobs' order (a job passed over is never
   * read): read by a worker, or by this thread (now, or while it waited for a worker's job
   * before it). Rejected with why the job could not be read.
   */
  async read(at: number): Promise<Result> {
    const claim = this.#claims.get(at);
    if (claim === undefined) {
      // Its turn came and no thread took it: this thread reads it, and nothing beside it.
      if (at >= this.#next) this.#next = at + 1;
      this.#feed();
      return await this.#here(this.#jobs[at]!);
    }
    // While a worker reads it, this thread reads the jobs after it.
    while (!claim.settled && this.#claims.size < AHEAD && this.#next < this.#jobs.length) {
      const ahead = this.#claimHere(this.#next++);
      await ahead.answer.catch(() => {});
    }
    this.#claims.delete(at);
    this.#feed();
    return await claim.answer;
  }

  #here(job: Job): Promise<Result> {
    this.counts.here++;
    return this.#readHere(job);
  }

  /** Reads a job in this thread. */
  #claimHere(at: number): Claim<Result> {
    const claim: Claim<Result> = { answer: this.#here(this.#jobs[at]!), settled: false };
    this.#claims.set(at, claim);
    claim.answer.then(() => claim.settled = true, () => claim.settled = true);
    return claim;
  }

  /** Sends each worker the next jobs (see {@linkcode SENT} and {@linkcode AHEAD}). */
  #feed(): void {
    for (const [worker, sent] of this.#workers) {
      while (
        sent.size < SENT && this.#claims.size < AHEAD + SENT * this.#workers.size &&
        this.#next < this.#jobs.length
      ) {
        const at = this.#next++;
        const job = this.#jobs[at]!;
        const id = this.#id++;
        const claim: Claim<Result> = { answer: undefined!, settled: false };
        claim.answer = new Promise<Result>((resolve, reject) => {
          sent.set(id, {
            job,
            settle: (result) => {
              claim.settled = true;
              if (result instanceof Error) reject(result);
              else resolve(result);
            },
          });
        });
        // Asked for in the jobs' order: one that fails before its turn is not unhandled.
        claim.answer.catch(() => {});
        this.#claims.set(at, claim);
        worker.postMessage({ id, job } satisfies SharedJob<Job>);
      }
    }
  }

  /** Ends a worker: the jobs it had not answered are read by this thread. */
  #stop(worker: Worker): void {
    worker.terminate();
    const sent = this.#workers.get(worker);
    this.#workers.delete(worker);
    for (const job of sent?.values() ?? []) this.#settleHere(job);
  }

  /** A worker's job read in this thread. */
  #settleHere({ job, settle }: Sent<Job, Result>): void {
    this.#here(job).then(
      settle,
      (error) => settle(error instanceof Error ? error : new Error(String(error))),
    );
  }

  [Symbol.dispose](): void {
    for (const worker of this.#workers.keys()) worker.terminate();
    this.#workers.clear();
  }
}

/**
 * A worker's side of {@linkcode SharedReads}: reads the jobs it is sent with `read`, one after
 * another in the order sent, and answers each with its result or why it could not be read.
 * Called once, in the workers' module.
 */
export function serveReads<Job, Result>(read: (job: Job) => Promise<Result>): void {
  const scope = self as unknown as {
    onmessage: ((event: MessageEvent<SharedJob<Job>>) => void) | null;
    postMessage(message: SharedAnswer<Result>): void;
  };
  // One job at a time: a read awaits now and then, and two files read at once would both be
  // held.
  let turn = Promise.resolve();
  scope.onmessage = (event) => {
    const { id, job } = event.data;
    turn = turn.then(async () => {
      try {
        scope.postMessage({ id, result: await read(job) });
      } catch (error) {
        scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
      }
    });
  };
}
