/**
 * Streams the lines of a file in bounded memory, with their line numbers and byte offsets.
 *
 * @module
 */
import { concatBytes } from "./_bytes.ts";

/** One line of a file, without its line terminator. */
export interface Line {
  /** 1-based line number. */
  line: number;
  /** The line decoded as UTF-8 (invalid bytes become U+FFFD), without `\n` or `\r\n`. */
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's last byte, terminator included. */
  end: number;
  /** False only for a last line that has no final newline. */
  terminated: boolean;
}

/** Options of {@linkcode readLines}. */
export interface ReadLinesOptions {
  /** Bytes read per chunk; memory stays near this plus the longest line. */
  chunkSize?: number;
  /** Byte offset to start at (must be the start of a line); line numbers start at `firstLine`. */
  start?: number;
  /** The number of the line at `start`. */
  firstLine?: number;
}

const NEWLINE = 10;
const CR = 13;
const decoder = new TextDecoder();

function decodeLine(bytes: Uint8Array): string {
  const crlf = bytes.length > 0 && bytes[bytes.length - 1] === CR;
  return decoder.decode(crlf ? bytes.subarray(0, bytes.length - 1) : bytes);
}

/**
 * A file read forward chunk by chunk into one reused buffer, and split into lines. Each line
 * is decoded only when it is reached, so only the line in hand is alive: a reader that keeps
 * nothing of a line leaves nothing for the garbage collector to carry.
 *
 * The reads are synchronous: from the page cache a read of 1 MiB takes a fraction of a
 * millisecond, less than the trip to Deno's I/O thread and back that an asynchronous read
 * costs (far less on a busy machine, where that trip waits for a core).
 */
class ChunkedLines implements Disposable {
  readonly #file: Deno.FsFile;
  readonly #buffer: Uint8Array;
  /** Byte offset of the buffer's first byte in the file. */
  #offset: number;
  #lineNumber: number;
  /** Bytes of a line that started in an earlier chunk. */
  #carry: Uint8Array[] = [];
  #carryLength = 0;
  /** True once the file's end was read. */
  ended = false;

  private constructor(file: Deno.FsFile, options: ReadLinesOptions) {
    this.#file = file;
    this.#offset = options.start ?? 0;
    if (this.#offset > 0) file.seekSync(this.#offset, Deno.SeekMode.Start);
    this.#lineNumber = options.firstLine ?? 1;
    // No bigger than what is left to read: a short tail needs no 1 MiB buffer.
    const left = Math.max(1, file.statSync().size - this.#offset);
    this.#buffer = new Uint8Array(Math.min(options.chunkSize ?? 1 << 20, left));
  }

  static open(path: string, options: ReadLinesOptions): ChunkedLines {
    // Opened synchronously too: a file open is one system call, less than the trip to the
    // I/O thread an asynchronous one takes.
    return new ChunkedLines(Deno.openSync(path, { read: true }), options);
  }

  /**
   * The lines that end in the next chunk (and at the end, an unterminated last line); the
   * chunk is read when the first line is asked for.
   */
  *nextChunk(): Generator<Line, boolean> {
    const read = this.#file.readSync(this.#buffer);
    if (read === null) {
      this.ended = true;
      if (this.#carryLength > 0) yield this.#lastLine();
      return false;
    }
    const chunk = this.#buffer.subarray(0, read);
    let position = 0;
    while (position < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, position);
      if (newline === -1) {
        this.#carry.push(chunk.slice(position));
        this.#carryLength += chunk.length - position;
        break;
      }
      let bytes: Uint8Array = chunk.subarray(position, newline);
      if (this.#carryLength > 0) {
        bytes = concatBytes([...this.#carry, bytes], this.#carryLength + bytes.length);
        this.#carry = [];
        this.#carryLength = 0;
      }
      const end = this.#offset + newline + 1;
      const start = end - bytes.length - 1;
      position = newline + 1;
      yield { line: this.#lineNumber++, text: decodeLine(bytes), start, end, terminated: true };
    }
    this.#offset += read;
    return true;
  }

  #lastLine(): Line {
    const bytes = concatBytes(this.#carry, this.#carryLength);
    const end = this.#offset;
    const start = end - this.#carryLength;
    this.#carry = [];
    this.#carryLength = 0;
    return { line: this.#lineNumber, text: decodeLine(bytes), start, end, terminated: false };
  }

  /** Bytes read per chunk. */
  get chunkSize(): number {
    return this.#buffer.length;
  }

  [Symbol.dispose](): void {
    this.#file.close();
  }
}

/**
 * Lets other work run (a server's other requests, timers) now and then while a whole file is
 * read with synchronous reads: after every 8 MiB, one turn of the event loop. A file of a
 * few MB is read without a pause; a large one pays well under 1% for it.
 */
export class Pauses {
  #since = 0;
  /** Counts `bytes` read; once 8 MiB are counted, waits for one turn of the event loop. */
  async after(bytes: number): Promise<void> {
    this.#since += bytes;
    if (this.#since < PAUSE_EVERY) return;
    this.#since = 0;
    await new Promise((done) => setTimeout(done, 0));
  }
}

const PAUSE_EVERY = 8 << 20;

/**
 * Calls `each` with every line of the file at `path`, in order, reading it in chunks: the
 * whole file is never in memory, and a line is decoded only when its turn comes, so a reader
 * that keeps little of each line (an inspection) stays small. Empty lines are passed too, so
 * line numbers match what an editor shows. When `each` returns `false`, reading stops.
 *
 * It is the way to go through every line of a large file: no step of a generator per line,
 * and no line alive longer than its call.
 *
 * @example
 * ```ts ignore
 * await forEachLine("session.jsonl", ({ line, text }) => console.log(line, text));
 * ```
 */
export async function forEachLine(
  path: string,
  each: (line: Line) => boolean | void,
  options: ReadLinesOptions = {},
): Promise<void> {
  using lines = ChunkedLines.open(path, options);
  const pause = new Pauses();
  while (true) {
    const chunk = lines.nextChunk();
    let step = chunk.next();
    for (; !step.done; step = chunk.next()) {
      if (each(step.value) === false) return;
    }
    await pause.after(lines.chunkSize);
    if (!step.value) return;
  }
}

/**
 * Yields the lines of the file at `path` a chunk at a time: each chunk's lines as a
 * synchronous iterable that decodes a line only when it is reached. One step of the async
 * generator per chunk instead of one per line, for a reader that goes through every line and
 * has to yield as it goes. A chunk must be iterated to its end (or left) before the next one
 * is asked for: its buffer is then reused.
 *
 * @example
 * ```ts ignore
 * for await (const lines of readLineChunks("session.jsonl")) {
 *   for (const { line, text } of lines) console.log(line, text);
 * }
 * ```
 */
export async function* readLineChunks(
  path: string,
  options: ReadLinesOptions = {},
): AsyncGenerator<Iterable<Line>> {
  using lines = ChunkedLines.open(path, options);
  while (!lines.ended) {
    const chunk = lines.nextChunk();
    // No `return`: a reader that leaves the chunk early does not end it, and the lines it left
    // are passed over here, so the next chunk starts where this one ends.
    const iterator = { next: () => chunk.next() as IteratorResult<Line, undefined> };
    yield { [Symbol.iterator]: () => iterator };
    while (!chunk.next().done);
  }
}

/**
 * Yields every line of the file at `path`, reading it in chunks: the whole file is never in
 * memory. Empty lines are yielded too, so line numbers match what an editor shows.
 *
 * @example
 * ```ts ignore
 * for await (const { line, text } of readLines("session.jsonl")) console.log(line, text);
 * ```
 */
export async function* readLines(
  path: string,
  options: ReadLinesOptions = {},
): AsyncGenerator<Line> {
  using lines = ChunkedLines.open(path, options);
  while (true) {
    const chunk = lines.nextChunk();
    let step = chunk.next();
    for (; !step.done; step = chunk.next()) yield step.value;
    if (!step.value) return;
  }
}
