/**
 * Exact byte I/O on an open file: whole writes, whole reads at an offset, and joining byte
 * chunks. `read` and `write` may move fewer bytes than asked; these never do.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";

/**
 * The chunks joined into one array (the chunk itself when there is only one).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { concatBytes } from "./mod.ts";
 * assert.deepEqual(concatBytes([new Uint8Array([1]), new Uint8Array([2, 3])]), new Uint8Array([1, 2, 3]));
 * ```
 */
export function concatBytes(parts: readonly Uint8Array[], length?: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length ?? parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Writes every byte of `data` at the file's current position (or to a connection). */
export async function writeAll(
  file: { write(data: Uint8Array): Promise<number> },
  data: Uint8Array,
): Promise<void> {
  let written = 0;
  while (written < data.length) written += await file.write(data.subarray(written));
}

/** Writes every byte of `data` at the file's current position, without waiting on a thread. */
export function writeAllSync(
  file: { writeSync(data: Uint8Array): number },
  data: Uint8Array,
): void {
  let written = 0;
  while (written < data.length) written += file.writeSync(data.subarray(written));
}

/**
 * Fills `into` from the file's current position; returns how many bytes were read, fewer
 * than asked only at the end of the file.
 */
export async function readFull(file: Deno.FsFile, into: Uint8Array): Promise<number> {
  let at = 0;
  while (at < into.length) {
    const n = await file.read(into.subarray(at));
    if (n === null) break;
    at += n;
  }
  return at;
}

/** The file ended before a range that was expected in it (it shrank under the reader). */
export class ShortReadError extends TurnlogError {
  /** A read of bytes `start` to `end` that the file did not hold. */
  constructor(start: number, end: number, options?: ErrorOptions) {
    super(
      "internal",
      `The file ended before byte ${end} while reading from byte ${start}`,
      options,
    );
    this.name = "ShortReadError";
  }
}

/**
 * The bytes from `start` to `end` (exclusive), read into `into` when given (its start is
 * used), else into a new array.
 *
 * @throws {ShortReadError} when the file ends before `end`
 */
export async function readRange(
  file: Deno.FsFile,
  range: { start: number; end: number },
  into?: Uint8Array,
): Promise<Uint8Array> {
  const bytes = into
    ? into.subarray(0, range.end - range.start)
    : new Uint8Array(range.end - range.start);
  await file.seek(range.start, Deno.SeekMode.Start);
  if (await readFull(file, bytes) < bytes.length) throw new ShortReadError(range.start, range.end);
  return bytes;
}

/**
 * {@linkcode readRange} with synchronous reads: for a reader that goes through a whole file,
 * where a trip to Deno's I/O thread per block costs more than the read from the page cache.
 *
 * @throws {ShortReadError} when the file ends before `end`
 */
export function readRangeSync(
  file: Deno.FsFile,
  range: { start: number; end: number },
  into?: Uint8Array,
): Uint8Array {
  const bytes = into
    ? into.subarray(0, range.end - range.start)
    : new Uint8Array(range.end - range.start);
  file.seekSync(range.start, Deno.SeekMode.Start);
  let at = 0;
  while (at < bytes.length) {
    const n = file.readSync(bytes.subarray(at));
    if (n === null) throw new ShortReadError(range.start, range.end);
    at += n;
  }
  return bytes;
}
