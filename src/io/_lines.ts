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
  const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
  return decoder.decode(bytes.subarray(0, end));
}

/**
 * Yields the lines of the file at `path` a chunk at a time: every line that ends in a chunk,
 * in one array. The whole file is never in memory. Empty lines are yielded too, so line
 * numbers match what an editor shows.
 *
 * A reader that goes through every line (replay, inspection) takes the lines this way: one
 * step of the generator per chunk instead of one per line. The chunks are read with
 * synchronous reads: from the page cache a read of 1 MiB takes a fraction of a millisecond,
 * less than the trip to Deno's I/O thread and back that an asynchronous read costs (and far
 * less on a busy machine, where that trip waits for a core).
 *
 * @example
 * ```ts ignore
 * for await (const lines of readLineBatches("session.jsonl")) {
 *   for (const { line, text } of lines) console.log(line, text);
 * }
 * ```
 */
export async function* readLineBatches(
  path: string,
  options: ReadLinesOptions = {},
): AsyncGenerator<Line[]> {
  using file = await Deno.open(path, { read: true });
  let offset = options.start ?? 0;
  if (offset > 0) file.seekSync(offset, Deno.SeekMode.Start);
  let lineNumber = options.firstLine ?? 1;
  // No bigger than what is left to read: a short tail needs no 1 MiB buffer.
  const left = Math.max(1, file.statSync().size - offset);
  const buffer = new Uint8Array(Math.min(options.chunkSize ?? 1 << 20, left));
  // Bytes of a line that started in an earlier chunk.
  let carry: Uint8Array[] = [];
  let carryLength = 0;
  while (true) {
    const read = file.readSync(buffer);
    if (read === null) break;
    const chunk = buffer.subarray(0, read);
    const lines: Line[] = [];
    let position = 0;
    while (position < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, position);
      if (newline === -1) {
        carry.push(chunk.slice(position));
        carryLength += chunk.length - position;
        break;
      }
      let bytes: Uint8Array = chunk.subarray(position, newline);
      if (carryLength > 0) {
        bytes = concatBytes([...carry, bytes], carryLength + bytes.length);
        carry = [];
        carryLength = 0;
      }
      const end = offset + newline + 1;
      lines.push({
        line: lineNumber++,
        text: decodeLine(bytes),
        start: end - bytes.length - 1,
        end,
        terminated: true,
      });
      position = newline + 1;
    }
    offset += read;
    if (lines.length > 0) yield lines;
  }
  if (carryLength > 0) {
    const bytes = concatBytes(carry, carryLength);
    yield [{
      line: lineNumber,
      text: decodeLine(bytes),
      start: offset - carryLength,
      end: offset,
      terminated: false,
    }];
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
  for await (const lines of readLineBatches(path, options)) yield* lines;
}
