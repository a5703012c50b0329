/**
 * Chosen lines of a file, read forward by the byte ranges an earlier pass found: the file is
 * read in large blocks, and decoded a slice at a time from a line asked for, so a second pass
 * that needs a few lines of each block decodes little more than those.
 *
 * @module
 */
import { readRangeSync } from "./_bytes.ts";
import { cut, SLICE_BYTES, sliceDecoder as decoder } from "./_cut.ts";
import type { Line } from "./_lines.ts";

const NEWLINE = 10;

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
    const { line, start, end } = range;
    const bytes = this.#bytes(start, end);
    const terminated = bytes.length > 0 && bytes[bytes.length - 1] === NEWLINE;
    return { line, text: this.#text(start, end, terminated), start, end, terminated };
  }

  /**
   * A slice of the block decoded at once, as forward reads decode their chunks (see
   * `ChunkedLines`): a decode per line costs more than the decoding. The slice starts at a
   * line asked for; the lines asked for after it, in order, are cut from it.
   */
  #slice = "";
  /** The file offsets of the slice's bytes. */
  #sliceStart = 0;
  #sliceEnd = 0;
  /** Each byte of the slice is one character: string index = byte index. */
  #aligned = false;
  /** A line start in the slice, at or before the next line asked for: its offset and index. */
  #cursor = 0;
  #cursorAt = 0;

  /** The text of the line from `start` to `end` (file offsets). */
  #text(start: number, end: number, terminated: boolean): string {
    if (start === end) return "";
    if (start < this.#cursor || end > this.#sliceEnd) this.#decodeSlice(start, end);
    const at = this.#indexOf(start);
    const stop = terminated ? this.#slice.indexOf("\n", at) : this.#slice.length;
    this.#cursor = end;
    this.#cursorAt = terminated ? stop + 1 : stop;
    return cut(this.#slice, at, stop);
  }

  /** Decodes the block's bytes from `start` (a line's) to `end` at least, a slice at most. */
  #decodeSlice(start: number, end: number): void {
    const to = Math.max(end, Math.min(start + SLICE_BYTES, this.#at + this.#held));
    this.#slice = decoder.decode(this.#block.subarray(start - this.#at, to - this.#at));
    this.#aligned = this.#slice.length === to - start;
    this.#sliceStart = start;
    this.#sliceEnd = to;
    this.#cursor = start;
    this.#cursorAt = 0;
  }

  /**
   * The string index of the line starting at file offset `start`: where each byte is one
   * character, the same; else found by counting newlines from the cursor (the k-th newline of
   * the bytes is the k-th of the string: `\n` is never part of a UTF-8 sequence).
   */
  #indexOf(start: number): number {
    if (this.#aligned) return start - this.#sliceStart;
    let byte = this.#cursor;
    let at = this.#cursorAt;
    while (byte < start) {
      byte = this.#at + this.#block.indexOf(NEWLINE, byte - this.#at) + 1;
      at = this.#slice.indexOf("\n", at) + 1;
    }
    return at;
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
