/**
 * Chosen lines of a file, read forward by the byte ranges an earlier pass found: the file is
 * read in large blocks as before, but only the lines asked for are decoded, so a second pass
 * that needs a few lines of each block pays for those alone.
 *
 * @module
 */
import { readRangeSync } from "./_bytes.ts";
import type { Line } from "./_lines.ts";

const NEWLINE = 10;
const CR = 13;
const decoder = new TextDecoder();

/**
 * Reads the lines at byte ranges that come in file order (each range a whole line, its
 * terminator included, as {@linkcode Line} gives it), a block of the file at a time.
 *
 * @example
 * ```ts ignore
 * using ranges = LineRanges.open("session.jsonl");
 * const line = ranges.line({ line: 3, start: 120, end: 180 });
 * ```
 */
export class LineRanges implements Disposable {
  readonly #file: Deno.FsFile;
  readonly #blockSize: number;
  #block = new Uint8Array(0);
  /** The file offset of the block's first byte, and how many bytes it holds. */
  #at = 0;
  #held = 0;

  private constructor(file: Deno.FsFile, blockSize: number) {
    this.#file = file;
    this.#blockSize = blockSize;
  }

  /** Opens the file at `path` (synchronously: one system call, as forward reads do). */
  static open(path: string, blockSize = 1 << 20): LineRanges {
    return new LineRanges(Deno.openSync(path, { read: true }), blockSize);
  }

  /** The bytes read so far: what the reads of this reader cost. */
  bytesRead = 0;

  /** The bytes from `start` to `end`, read with the block they are in. */
  #bytes(start: number, end: number): Uint8Array {
    if (start < this.#at || end > this.#at + this.#held) {
      const size = Math.max(this.#blockSize, end - start);
      if (this.#block.length < size) this.#block = new Uint8Array(size);
      const left = Math.max(end - start, Math.min(size, this.#fileSize() - start));
      readRangeSync(this.#file, { start, end: start + left }, this.#block);
      this.#at = start;
      this.#held = left;
      this.bytesRead += left;
    }
    return this.#block.subarray(start - this.#at, end - this.#at);
  }

  #size: number | undefined;
  #fileSize(): number {
    return this.#size ??= this.#file.statSync().size;
  }

  /** The line at `range` (its number, start and end), decoded as forward reads decode it. */
  line(range: { line: number; start: number; end: number }): Line {
    const bytes = this.#bytes(range.start, range.end);
    const terminated = bytes.length > 0 && bytes[bytes.length - 1] === NEWLINE;
    let length = terminated ? bytes.length - 1 : bytes.length;
    if (length > 0 && bytes[length - 1] === CR) length--;
    return {
      line: range.line,
      text: decoder.decode(bytes.subarray(0, length)),
      start: range.start,
      end: range.end,
      terminated,
    };
  }

  /** The open file (for `Pauses`). */
  get file(): Deno.FsFile {
    return this.#file;
  }

  /** Closes the file. */
  [Symbol.dispose](): void {
    this.#file.close();
  }
}
