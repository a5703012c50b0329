/**
 * Reads a file from its end in blocks that grow up to a maximum, so a search for the last line
 * of a kind (the last compaction checkpoint) reads only the file's tail.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { concatBytes, readRangeSync } from "./_bytes.ts";
import { type Line, Pauses } from "./_lines.ts";

/** One line of a file, read from the end; line numbers are unknown this way. */
export interface BackwardLine {
  /** The line's bytes, without `\n` or `\r\n`. */
  readonly bytes: Uint8Array;
  /** The line decoded as UTF-8 (invalid bytes become U+FFFD), decoded on first use. */
  readonly text: string;
  /** Byte offset of the line's first byte. */
  readonly start: number;
  /** Byte offset just past the line's last byte, terminator included. */
  readonly end: number;
  /** False only for a last line that has no final newline. */
  readonly terminated: boolean;
}

/** Options of {@linkcode readLinesBackward}. */
export interface ReadLinesBackwardOptions {
  /** The largest block read at once; memory stays near this plus the longest line. */
  blockSize?: number | undefined;
  /** Treat the file as ending here (a byte offset) instead of at its size. */
  end?: number;
  /**
   * Yield only the lines whose bytes hold this text; the others are passed over without
   * being decoded, which is what makes a search of a large file cheap.
   */
  only?: string;
}

/** The size of the backward reader's first block; later ones double up to the block size. */
const FIRST_BLOCK_SIZE = 64 * 1024;

/** The default (largest) block size of the backward reader. */
export const DEFAULT_BLOCK_SIZE = 1024 * 1024;

const NEWLINE = 10;
const encoder = new TextEncoder();
const CR = 13;
const decoder = new TextDecoder();

class LineFromEnd implements BackwardLine {
  #text: string | undefined;
  constructor(
    readonly bytes: Uint8Array,
    readonly start: number,
    readonly end: number,
    readonly terminated: boolean,
  ) {}
  get text(): string {
    return this.#text ??= decoder.decode(this.bytes);
  }
}

function checkBlockSize(blockSize = DEFAULT_BLOCK_SIZE): number {
  if (!Number.isSafeInteger(blockSize) || blockSize <= 0) {
    throw new TurnlogError("usage", `Invalid block size ${blockSize}: expected a positive integer`);
  }
  return blockSize;
}

/**
 * Yields the lines of the file at `path` from the last to the first, reading fixed-size
 * blocks from the end: stopping early reads only the tail. Lines are the ones
 * {@linkcode readLines} yields (empty ones included, a trailing `\r` stripped, a last line
 * without a final newline marked unterminated), in reverse order. A line longer than the
 * block is put together from several blocks.
 *
 * @example
 * ```ts ignore
 * for await (const line of readLinesBackward("session.jsonl")) {
 *   if (line.text.includes('"compaction_checkpoint"')) break;
 * }
 * ```
 */
export async function* readLinesBackward(
  path: string,
  options: ReadLinesBackwardOptions = {},
): AsyncGenerator<BackwardLine> {
  const maxBlock = checkBlockSize(options.blockSize);
  const only = options.only === undefined ? undefined : encoder.encode(options.only);
  using file = await Deno.open(path, { read: true });
  const size = options.end ?? file.statSync().size;
  if (size === 0) return;
  // The line being put together: its end offset and its bytes found so far, in file order.
  const pending: Pending = { parts: [], lineEnd: size, terminated: false };
  for (const { block, blockStart, last } of blocksFromEnd(file, size, maxBlock)) {
    let cursor = block.length; // exclusive end of the unread part of the block
    if (last && block[block.length - 1] === NEWLINE) {
      pending.terminated = true;
      cursor--;
    }
    yield* only === undefined
      ? linesOfBlock(block, blockStart, cursor, pending)
      : matchingLinesOfBlock(block, blockStart, cursor, pending, only);
  }
  if (only === undefined || partsInclude(pending.parts, only)) {
    yield makeLine(pending.parts, 0, pending.lineEnd, pending.terminated);
  }
}

/**
 * Calls `each` with the lines of the file at `path` from the last to the first, reading
 * blocks from the end; a line is decoded straight from its block when its turn comes. Line
 * numbers are unknown this way: every `line` is 0. The
 * lines are the ones {@linkcode readLinesBackward} yields. When `each` returns `false`,
 * reading stops: the part of the file before that line is not read. It reads synchronously,
 * and lets other work run between blocks now and then (see `forEachLine`). For a reader that decodes
 * every line it meets (resume parsing its way back to the last checkpoint), this costs what
 * reading forward costs.
 *
 * @example
 * ```ts ignore
 * await forEachLineBackward("session.jsonl", ({ text }) => !text.includes("checkpoint"));
 * ```
 */
export async function forEachLineBackward(
  path: string,
  each: (line: Line) => boolean | void,
  options: Omit<ReadLinesBackwardOptions, "only"> = {},
): Promise<void> {
  const maxBlock = checkBlockSize(options.blockSize);
  using file = Deno.openSync(path, { read: true });
  const size = options.end ?? file.statSync().size;
  if (size === 0) return;
  const pending: Pending = { parts: [], lineEnd: size, terminated: false };
  const pause = new Pauses(file);
  for (const { block, blockStart, last } of blocksFromEnd(file, size, maxBlock)) {
    await pause.after(block.length);
    let cursor = block.length;
    if (last && block[block.length - 1] === NEWLINE) {
      pending.terminated = true;
      cursor--;
    }
    while (cursor > 0) {
      const newline = block.lastIndexOf(NEWLINE, cursor - 1);
      if (newline === -1) {
        pending.parts.unshift(block.slice(0, cursor));
        break;
      }
      const here = block.subarray(newline + 1, cursor);
      const start = blockStart + newline + 1;
      const bytes = pending.parts.length === 0 ? here : concatBytes([here, ...pending.parts]);
      const { lineEnd: end, terminated } = pending;
      pending.parts = [];
      pending.lineEnd = start;
      pending.terminated = true;
      cursor = newline;
      if (each({ line: 0, text: decodeLine(bytes), start, end, terminated }) === false) return;
    }
  }
  const { lineEnd: end, terminated } = pending;
  each({ line: 0, text: decodeLine(concatBytes(pending.parts)), start: 0, end, terminated });
}

function decodeLine(bytes: Uint8Array): string {
  const crlf = bytes.length > 0 && bytes[bytes.length - 1] === CR;
  return decoder.decode(crlf ? bytes.subarray(0, bytes.length - 1) : bytes);
}

/** A line whose start is in a block not read yet. */
interface Pending {
  parts: Uint8Array[];
  lineEnd: number;
  terminated: boolean;
}

/**
 * The file's blocks from its end, one reused buffer. Blocks start small and double up to the
 * maximum: a reader that stops near the end (resume finding a recent checkpoint) reads
 * little, one that reads it all makes few calls. `last` marks the file's last block. The
 * reads are synchronous, for the reason `forEachLine` gives.
 */
function* blocksFromEnd(
  file: Deno.FsFile,
  size: number,
  maxBlock: number,
): Generator<{ block: Uint8Array; blockStart: number; last: boolean }> {
  let blockSize = Math.min(FIRST_BLOCK_SIZE, maxBlock, size);
  let buffer = new Uint8Array(blockSize);
  let position = size;
  while (position > 0) {
    if (position < size && blockSize < maxBlock && blockSize < position) {
      blockSize = Math.min(blockSize * 2, maxBlock);
      buffer = new Uint8Array(blockSize);
    }
    const blockStart = Math.max(0, position - blockSize);
    const block = readRangeSync(file, { start: blockStart, end: position }, buffer);
    yield { block, blockStart, last: position === size };
    position = blockStart;
  }
}

/** Every line that ends in this block, last first; the block's first line stays pending. */
function* linesOfBlock(
  block: Uint8Array,
  blockStart: number,
  cursor: number,
  pending: Pending,
): Generator<BackwardLine> {
  while (cursor > 0) {
    const newline = block.lastIndexOf(NEWLINE, cursor - 1);
    if (newline === -1) {
      pending.parts.unshift(block.slice(0, cursor));
      return;
    }
    pending.parts.unshift(block.subarray(newline + 1, cursor));
    const start = blockStart + newline + 1;
    yield makeLine(pending.parts, start, pending.lineEnd, pending.terminated);
    pending.parts = [];
    pending.lineEnd = start;
    pending.terminated = true;
    cursor = newline;
  }
}

/**
 * The lines of this block that hold `needle`, last first. Lines that lie wholly in the block
 * are found from the needle's occurrences, so a block without one costs two native searches
 * and no line objects.
 */
function* matchingLinesOfBlock(
  block: Uint8Array,
  blockStart: number,
  cursor: number,
  pending: Pending,
  needle: Uint8Array,
): Generator<BackwardLine> {
  const newline = cursor > 0 ? block.lastIndexOf(NEWLINE, cursor - 1) : -1;
  if (newline === -1) {
    if (cursor > 0) pending.parts.unshift(block.slice(0, cursor));
    return;
  }
  pending.parts.unshift(block.subarray(newline + 1, cursor));
  if (partsInclude(pending.parts, needle)) {
    yield makeLine(pending.parts, blockStart + newline + 1, pending.lineEnd, pending.terminated);
  }
  const firstNewline = block.indexOf(NEWLINE);
  const found: number[] = [];
  for (
    let at = indexOfBytes(block, needle, firstNewline + 1);
    at !== -1 && at < newline;
    at = indexOfBytes(block, needle, at + 1)
  ) {
    found.push(at);
  }
  let yieldedStart = -1;
  for (const at of found.reverse()) {
    const lineStart = block.lastIndexOf(NEWLINE, at) + 1;
    if (lineStart === yieldedStart) continue;
    const lineNewline = block.indexOf(NEWLINE, at);
    yieldedStart = lineStart;
    const bytes = [block.subarray(lineStart, lineNewline)];
    yield makeLine(bytes, blockStart + lineStart, blockStart + lineNewline + 1, true);
  }
  pending.parts = [block.slice(0, firstNewline)];
  pending.lineEnd = blockStart + firstNewline + 1;
  pending.terminated = true;
}

function partsInclude(parts: Uint8Array[], needle: Uint8Array): boolean {
  return includesBytes(parts.length === 1 ? parts[0]! : concatBytes(parts), needle);
}

function makeLine(
  parts: Uint8Array[],
  start: number,
  end: number,
  terminated: boolean,
): BackwardLine {
  // A line is handed out as a copy: the block it came from is about to be overwritten.
  let bytes = parts.length === 0
    ? new Uint8Array(0)
    : parts.length === 1
    ? parts[0]!.slice()
    : concatBytes(parts);
  if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, -1);
  return new LineFromEnd(bytes, start, end, terminated);
}

/**
 * The first index at or after `from` where `needle` occurs in `haystack`, or -1. The native
 * byte search runs on the needle's `_` (rare in JSON outside type names), else its first byte.
 */
export function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  if (needle.length === 0) return from <= haystack.length ? from : -1;
  const anchor = Math.max(0, needle.indexOf(95));
  const anchorByte = needle[anchor]!;
  const after = needle[anchor + 1];
  const last = needle.length - 1;
  const lastByte = needle[last]!;
  let at = haystack.indexOf(anchorByte, from + anchor);
  while (at !== -1) {
    const start = at - anchor;
    if (start + needle.length > haystack.length) return -1;
    // Two cheap byte checks turn away almost every false hit before the full comparison.
    if (
      (after === undefined || haystack[at + 1] === after) && haystack[start + last] === lastByte
    ) {
      let index = 0;
      while (index < needle.length && haystack[start + index] === needle[index]) index++;
      if (index === needle.length) return start;
    }
    at = haystack.indexOf(anchorByte, at + 1);
  }
  return -1;
}

/** Whether `needle` occurs in `haystack`. */
export function includesBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  return indexOfBytes(haystack, needle) !== -1;
}
