/**
 * Streams the lines of a file in bounded memory, with their line numbers and byte offsets.
 *
 * @module
 */
import type { Line } from "./_line.ts";
export type { Line };

/** Options of {@linkcode readLines}. */
export interface ReadLinesOptions {
  /** Bytes read per chunk; memory stays near this plus the longest line. */
  chunkSize?: number;
  /** Byte offset to start at (must be the start of a line); line numbers start at `firstLine`. */
  start?: number;
  /** The number of the line at `start`. */
  firstLine?: number;
}

import { cut, SLICE_BYTES, sliceDecoder as decoder } from "./_cut.ts";
import { compressedLineChunks, isCompressed } from "./_zstd.ts";

const NEWLINE = 10;

/**
 * A file read forward chunk by chunk into one reused buffer, and split into lines. Many
 * lines are decoded in one call and the string is cut at its newlines: a decode per line
 * costs more than the decoding itself. Byte offsets come from the bytes: `\n` is
 * never part of a UTF-8 sequence, so the k-th `\n` of the bytes is the k-th of the string (and
 * where each byte decodes to one character, string index = byte index). Decoding the lines
 * together gives the characters decoding each line alone gives: an invalid sequence ends at
 * the newline after it either way (one U+FFFD each), and the BOM a decoder drops at the start
 * of each line is dropped here by hand.
 *
 * The chunk's lines are decoded a slice at a time (see {@linkcode SLICE_BYTES}), and a line's
 * `text` is a slice of its slice's string: it keeps that string (about 32 KiB) alive while it
 * is kept (JSON.parse's strings are copies).
 *
 * The reads are synchronous: from the page cache a read of 1 MiB takes a fraction of a
 * millisecond, less than the trip to Deno's I/O thread and back that an asynchronous read
 * costs (far less on a busy machine, where that trip waits for a core).
 */
class ChunkedLines implements Disposable {
  readonly #file: Deno.FsFile;
  /** Bytes read per chunk. */
  readonly chunkSize: number;
  /** The bytes read and not yet split: a line that started in an earlier chunk, then more. */
  #buffer: Uint8Array;
  /** How many bytes of the buffer hold file bytes. */
  #held = 0;
  /** Where the chunk's whole lines end in the buffer (after its last newline). */
  #linesEnd = 0;
  /** Where the decoded slice of them ends. */
  #sliceEnd = 0;
  /** Byte offset of the buffer's first byte in the file. */
  #offset: number;
  #lineNumber: number;
  /** A slice of the chunk's whole lines, decoded; the next line's place in it and in the buffer. */
  #text = "";
  #at = 0;
  #byteAt = 0;
  /**
   * The text has as many characters as its bytes: each byte is one character (an ASCII one
   * or a U+FFFD), as any longer sequence decodes to fewer; string index = byte index.
   */
  #aligned = true;
  /** True once the file's end was read. */
  ended = false;

  private constructor(file: Deno.FsFile, options: ReadLinesOptions) {
    this.#file = file;
    this.#offset = options.start ?? 0;
    if (this.#offset > 0) file.seekSync(this.#offset, Deno.SeekMode.Start);
    this.#lineNumber = options.firstLine ?? 1;
    // No bigger than what is left to read: a short tail needs no 1 MiB buffer.
    const left = Math.max(1, file.statSync().size - this.#offset);
    this.chunkSize = Math.min(options.chunkSize ?? 1 << 20, left);
    this.#buffer = new Uint8Array(this.chunkSize);
  }

  static open(path: string, options: ReadLinesOptions): ChunkedLines {
    // Opened synchronously too: a file open is one system call, less than the trip to the
    // I/O thread an asynchronous one takes.
    return new ChunkedLines(Deno.openSync(path, { read: true }), options);
  }

  /**
   * The next line of the chunk in hand, or undefined when its lines are all given (then
   * {@linkcode nextChunk} reads on).
   */
  next(): Line | undefined {
    if (this.#at >= this.#text.length && !this.#decodeSlice()) return undefined;
    const text = this.#text;
    const at = this.#at;
    const newline = text.indexOf("\n", at);
    const byteEnd = this.#aligned
      ? this.#byteAt + newline - at + 1
      : this.#buffer.indexOf(NEWLINE, this.#byteAt) + 1;
    const start = this.#offset + this.#byteAt;
    this.#at = newline + 1;
    this.#byteAt = byteEnd;
    const end = this.#offset + byteEnd;
    return { line: this.#lineNumber++, text: cut(text, at, newline), start, end, terminated: true };
  }

  /**
   * Reads the next chunk; false at the end of the file, when {@linkcode lastLine} has what is
   * left. The lines of the chunk before it that were not asked for are passed over.
   */
  nextChunk(): boolean {
    this.#keepRest();
    if (this.#held === this.#buffer.length) this.#grow();
    const read = this.#file.readSync(this.#buffer.subarray(this.#held));
    if (read === null) {
      this.ended = true;
      return false;
    }
    this.#held += read;
    this.#linesEnd = this.#buffer.lastIndexOf(NEWLINE, this.#held - 1) + 1;
    return true;
  }

  /** The last line when the file does not end with a newline, once the file's end is read. */
  lastLine(): Line | undefined {
    if (!this.ended || this.#held === 0) return undefined;
    const text = decoder.decode(this.#buffer.subarray(0, this.#held));
    const start = this.#offset;
    const end = start + this.#held;
    this.#held = 0;
    return {
      line: this.#lineNumber,
      text: cut(text, 0, text.length),
      start,
      end,
      terminated: false,
    };
  }

  /**
   * Decodes the next slice of the chunk's whole lines: about {@linkcode SLICE_BYTES} of them
   * (or one longer line); false when the chunk has no more.
   */
  #decodeSlice(): boolean {
    const from = this.#sliceEnd;
    if (from >= this.#linesEnd) return false;
    let end = Math.min(this.#linesEnd, from + SLICE_BYTES);
    if (end < this.#linesEnd) {
      const newline = this.#buffer.lastIndexOf(NEWLINE, end - 1);
      // A line longer than a slice is a slice of its own (a newline ends it, at #linesEnd at most).
      end = newline >= from ? newline + 1 : this.#buffer.indexOf(NEWLINE, end) + 1;
    }
    this.#text = decoder.decode(this.#buffer.subarray(from, end));
    this.#aligned = this.#text.length === end - from;
    this.#at = 0;
    this.#byteAt = from;
    this.#sliceEnd = end;
    return true;
  }

  /** Moves the bytes after the chunk's whole lines (a line not yet ended) to the buffer's start. */
  #keepRest(): void {
    const used = this.#linesEnd;
    this.#text = "";
    this.#at = 0;
    this.#linesEnd = 0;
    this.#sliceEnd = 0;
    if (used === 0) return;
    this.#buffer.copyWithin(0, used, this.#held);
    this.#held -= used;
    this.#offset += used;
  }

  /** A line longer than the buffer: twice the room. */
  #grow(): void {
    const bigger = new Uint8Array(this.#buffer.length * 2);
    bigger.set(this.#buffer);
    this.#buffer = bigger;
  }

  /** The open file (for {@linkcode Pauses}). */
  get file(): Deno.FsFile {
    return this.#file;
  }

  [Symbol.dispose](): void {
    this.#file.close();
  }
}

/**
 * Lets other work run (a server's other requests, timers) now and then while a whole file is
 * read with synchronous reads: after every 8 MiB, one turn of the event loop. A file of a
 * few MB is read without a pause; a large one pays well under 1% for it.
 *
 * The turn is an asynchronous `stat()` of the file being read when there is one: an I/O
 * operation, so the event loop runs the other I/O and the timers due meanwhile as it does for
 * a timer, in about 0.1 ms where a `setTimeout(0)` takes 1 to 3 ms (its timer's resolution).
 */
export class Pauses {
  #since = 0;
  readonly #file: Deno.FsFile | undefined;
  /** `file`: the open file being read, whose `stat()` is the turn (else a timer). */
  constructor(file?: Deno.FsFile) {
    this.#file = file;
  }
  /** Counts `bytes` read; once 8 MiB are counted, waits for one turn of the event loop. */
  async after(bytes: number): Promise<void> {
    this.#since += bytes;
    if (this.#since < PAUSE_EVERY) return;
    this.#since = 0;
    if (this.#file === undefined) await new Promise((done) => setTimeout(done, 0));
    else await this.#file.stat();
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
  if (isCompressed(path)) {
    for await (const chunk of compressedLineChunks(path, options.start, options.firstLine)) {
      for (const line of chunk) if (each(line) === false) return;
    }
    return;
  }
  using lines = ChunkedLines.open(path, options);
  const pause = new Pauses(lines.file);
  while (lines.nextChunk()) {
    for (let line = lines.next(); line !== undefined; line = lines.next()) {
      if (each(line) === false) return;
    }
    await pause.after(lines.chunkSize);
  }
  const last = lines.lastLine();
  if (last !== undefined) each(last);
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
  if (isCompressed(path)) {
    yield* compressedLineChunks(path, options.start, options.firstLine);
    return;
  }
  using lines = ChunkedLines.open(path, options);
  // A reader that leaves a chunk early does not end it: the lines it left are passed over,
  // and the next chunk starts where this one ends.
  const iterator = { next: () => resultOf(lines.next()) };
  const chunk = { [Symbol.iterator]: () => iterator };
  while (lines.nextChunk()) yield chunk;
  const last = lines.lastLine();
  if (last !== undefined) yield [last];
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };
const resultOf = (line: Line | undefined): IteratorResult<Line, undefined> =>
  line === undefined ? DONE : { done: false, value: line };

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
  if (isCompressed(path)) {
    for await (const chunk of compressedLineChunks(path, options.start, options.firstLine)) {
      yield* chunk;
    }
    return;
  }
  using lines = ChunkedLines.open(path, options);
  while (lines.nextChunk()) {
    for (let line = lines.next(); line !== undefined; line = lines.next()) yield line;
  }
  const last = lines.lastLine();
  if (last !== undefined) yield last;
}
