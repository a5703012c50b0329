/**
 * The one way to read any session file: its entries, streaming, in order, and its facts once
 * they have all been read.
 *
 * @module
 */
import type { SessionRecord } from "../record/mod.ts";
import { readableBytes } from "../io/mod.ts";
import type { ReadSessionOptions } from "./_adapter.ts";
import { detectFormat, type DetectOptions } from "./_detect.ts";
import {
  type ForeignEntry,
  type ForeignFacts,
  ForeignSessionError,
  type SessionFormat,
} from "./_types.ts";
import { adapterOf } from "./registry.ts";

/**
 * A session file being read: iterate it (once) for its entries, then ask for its facts.
 *
 * @example
 * ```ts ignore
 * const session = readForeignSession("rollout.jsonl", "codex");
 * for await (const entry of session) if (entry.record) console.log(entry.line, entry.record.type);
 * console.log(session.facts.turns);
 * ```
 */
export class ForeignSession implements AsyncIterable<ForeignEntry> {
  /** The file's path. */
  readonly path: string;
  /** The format it is read as. */
  readonly format: SessionFormat;
  readonly #options: ReadSessionOptions;
  #facts: ForeignFacts | undefined;
  #started = false;

  /** A reader of the file at `path` as `format`; nothing is read until it is iterated. */
  constructor(path: string, format: SessionFormat, options: ReadSessionOptions = {}) {
    this.path = path;
    this.format = format;
    this.#options = options;
  }

  /** The file's facts; known once every entry has been read. */
  get facts(): ForeignFacts {
    if (this.#facts === undefined) {
      throw new ForeignSessionError(
        `Facts of ${this.path} are not known yet: read its entries to the end first`,
      );
    }
    return this.#facts;
  }

  /** The file's entries, in order (once). */
  async *[Symbol.asyncIterator](): AsyncGenerator<ForeignEntry> {
    for await (const batch of this.batches()) yield* batch;
  }

  /**
   * The file's entries in order, a batch at a time (once, instead of iterating the session):
   * for a reader of every entry, far fewer steps of an async generator than one per entry.
   */
  async *batches(): AsyncGenerator<ForeignEntry[]> {
    if (this.#started) {
      throw new ForeignSessionError(`Entries of ${this.path} can be read only once`);
    }
    this.#started = true;
    // The size now: lines appended while the file is read are left for the next read.
    const { size } = await Deno.stat(this.path);
    const reader = adapterOf(this.format).read(
      this.path,
      readableBytes(this.path, size),
      this.#options,
    );
    try {
      while (true) {
        const step = await reader.next();
        if (step.done) {
          // A compressed file's size is its size on disk.
          this.#facts = { ...step.value, sizeBytes: size };
          return;
        }
        yield Array.isArray(step.value) ? step.value : [step.value];
      }
    } finally {
      // A reader left early closes the file it holds open.
      if (this.#facts === undefined) await reader.return(undefined as never);
    }
  }
}

/**
 * Reads the session file at `path` as `format` (see {@linkcode detectFormat}): turnlog
 * records with the lines they came from, what turnlog's model cannot hold, and bad lines.
 */
export function readForeignSession(
  path: string,
  format: SessionFormat,
  options: ReadSessionOptions = {},
): ForeignSession {
  return new ForeignSession(path, format, options);
}

/**
 * Detects the format of the file at `path` and opens it for reading.
 *
 * @throws {ForeignSessionError} when the format is unknown (the message is the one reason)
 */
export async function openSessionFile(
  path: string,
  options: ReadSessionOptions & DetectOptions = {},
): Promise<ForeignSession> {
  const detected = await detectFormat(path, options);
  if ("reason" in detected) throw new ForeignSessionError(detected.reason);
  return readForeignSession(path, detected.format, options);
}

/** Every entry of a session file, its records alone, and its facts. */
export interface CollectedSession {
  /** Every entry, in order. */
  entries: ForeignEntry[];
  /** The records alone, for replay. */
  records: SessionRecord[];
  /** The file's facts. */
  facts: ForeignFacts;
}

/** Reads a whole session file into memory (for small files, tests and notebooks). */
export async function collectSession(
  path: string,
  format?: SessionFormat,
  options: ReadSessionOptions = {},
): Promise<CollectedSession> {
  const session = format === undefined
    ? await openSessionFile(path, options)
    : readForeignSession(path, format, options);
  const entries: ForeignEntry[] = [];
  for await (const batch of session.batches()) entries.push(...batch);
  const records = entries.flatMap((entry) => (entry.record ? [entry.record] : []));
  return { entries, records, facts: session.facts };
}
