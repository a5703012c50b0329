/**
 * The byte side of a search: a file streamed in chunks, and within each chunk a native,
 * case-insensitive search for the query's longest safe fragment; only a line that holds every
 * fragment comes out, to be parsed. A second pass over a file that had hits counts its lines
 * and turns up to the last hit, still without parsing.
 *
 * @module
 */
import { type CompiledQuery, escapeRegex } from "./_query.ts";
import { FragmentFinder } from "./_finder.ts";
import { ScanBuffer } from "./_simd.ts";
import type { TurnCounter } from "../formats/mod.ts";
import { cut as cutLine } from "../io/_cut.ts";
import { Pauses } from "../io/_lines.ts";
import { isCompressed, openSessionBytes } from "../io/_zstd.ts";

/** A line that may match: its text and the byte offset where it starts. */
export interface CandidateLine {
  /** The line's text, without its terminator. */
  text: string;
  /** Byte offset of its first byte. */
  offset: number;
}

/** Bytes read at a time. */
const CHUNK = 4 << 20;
const NEWLINE = 10;
const CR = 13;
const decoder = new TextDecoder();

/** Complete lines of a file: their bytes, and the offset of the first. */
interface Chunk {
  bytes: Uint8Array;
  offset: number;
}

/**
 * Yields the file in chunks that end at a line's end (the last one may not), each a view of
 * one reused buffer; a line longer than the buffer grows it. Never the whole file. The reads
 * are synchronous (from the page cache a read of 4 MiB takes less than a trip to Deno's I/O
 * thread and back), with a turn of the event loop now and then (`Pauses`) for a server.
 */
async function* byteChunks(path: string, buffer: ScanBuffer): AsyncGenerator<Chunk> {
  if (isCompressed(path)) return yield* compressedChunks(path, buffer);
  using file = Deno.openSync(path, { read: true });
  const pause = new Pauses();
  let filled = 0;
  let offset = 0;
  while (true) {
    if (filled === buffer.bytes.length) buffer.grow(buffer.bytes.length * 2);
    const read = file.readSync(buffer.bytes.subarray(filled));
    await pause.after(read ?? 0);
    if (read === null) {
      if (filled > 0) yield { bytes: buffer.bytes.subarray(0, filled), offset };
      return;
    }
    filled += read;
    const last = buffer.bytes.subarray(0, filled).lastIndexOf(NEWLINE);
    if (last === -1) continue;
    const end = last + 1;
    yield { bytes: buffer.bytes.subarray(0, end), offset };
    buffer.bytes.copyWithin(0, end, filled);
    filled -= end;
    offset += end;
  }
}

/**
 * A compressed file's decompressed bytes in chunks that end at a line's end (the last may
 * not), in `buffer` as a plain file's are (its finder searches the buffer's memory).
 */
async function* compressedChunks(path: string, buffer: ScanBuffer): AsyncGenerator<Chunk> {
  let filled = 0;
  let offset = 0;
  for await (const data of await openSessionBytes(path)) {
    if (filled + data.length > buffer.bytes.length) {
      buffer.grow(Math.max(buffer.bytes.length * 2, filled + data.length));
    }
    buffer.bytes.set(data, filled);
    filled += data.length;
    const end = buffer.bytes.subarray(0, filled).lastIndexOf(NEWLINE) + 1;
    if (end === 0) continue;
    yield { bytes: buffer.bytes.subarray(0, end), offset };
    buffer.bytes.copyWithin(0, end, filled);
    filled -= end;
    offset += end;
  }
  if (filled > 0) yield { bytes: buffer.bytes.subarray(0, filled), offset };
}

/** A buffer for the scans of one search: the files are read into it one after another. */
export function scanBuffer(): ScanBuffer {
  return new ScanBuffer(CHUNK);
}

/** A line's text from its bytes, without `\r` before its end. */
function lineText(bytes: Uint8Array, start: number, end: number): string {
  return decoder.decode(
    bytes.subarray(start, end > start && bytes[end - 1] === CR ? end - 1 : end),
  );
}

function lineEnd(bytes: Uint8Array, from: number): number {
  const newline = bytes.indexOf(NEWLINE, from);
  return newline === -1 ? bytes.length : newline;
}

function* everyLine(chunk: Chunk): Generator<CandidateLine> {
  const { bytes } = chunk;
  for (let start = 0; start < bytes.length;) {
    const end = lineEnd(bytes, start);
    const text = lineText(bytes, start, end);
    if (text.trim() !== "") yield { text, offset: chunk.offset + start };
    start = end + 1;
  }
}

function* matchingLines(
  chunk: Chunk,
  primary: FragmentFinder,
  others: readonly string[],
): Generator<CandidateLine> {
  const { bytes } = chunk;
  primary.prepare(bytes.length);
  for (let at = primary.find(0, bytes.length); at !== -1;) {
    const start = bytes.lastIndexOf(NEWLINE, at) + 1;
    const end = lineEnd(bytes, at);
    const text = lineText(bytes, start, end);
    if (others.length === 0 || holdsAll(text.toLowerCase(), others)) {
      yield { text, offset: chunk.offset + start };
    }
    at = end + 1 < bytes.length ? primary.find(end + 1, bytes.length) : -1;
  }
}

const holdsAll = (lower: string, fragments: readonly string[]) =>
  fragments.every((fragment) => lower.includes(fragment));

/**
 * The lines of the file at `path` that can match `query`, in order: those holding every
 * fragment (case-insensitively, in the raw bytes), or every non-empty line when the query
 * has no fragment. Only those lines are decoded.
 */
export async function* candidateLines(
  path: string,
  query: CompiledQuery,
  buffer: ScanBuffer = scanBuffer(),
  options: CandidateOptions = {},
): AsyncGenerator<CandidateLine> {
  const [first, ...others] = query.fragments;
  const primary = first === undefined ? undefined : new FragmentFinder(first, buffer);
  let head = options.headMarker === undefined ? undefined : encoder.encode(options.headMarker);
  for await (const chunk of byteChunks(path, buffer)) {
    if (head !== undefined) {
      const end = chunk.offset === 0 ? lineEnd(chunk.bytes, 0) : 0;
      if (holdsBytes(chunk.bytes.subarray(0, end), head)) {
        options.onHead?.(lineText(chunk.bytes, 0, end));
      }
      head = undefined;
    }
    yield* primary === undefined ? everyLine(chunk) : matchingLines(chunk, primary, others);
  }
}

/** Options of {@linkcode candidateLines}. */
export interface CandidateOptions {
  /** A text looked for (as it is) in the file's first line only. */
  headMarker?: string;
  /** Given the first line's text when it holds `headMarker` (before any line is yielded). */
  onHead?: (text: string) => void;
}

const encoder = new TextEncoder();

/** Whether `bytes` hold `needle` as they are. */
function holdsBytes(bytes: Uint8Array, needle: Uint8Array): boolean {
  const [lead] = needle;
  if (lead === undefined) return true;
  for (let at = bytes.indexOf(lead); at !== -1; at = bytes.indexOf(lead, at + 1)) {
    if (at + needle.length > bytes.length) return false;
    let i = 1;
    while (i < needle.length && bytes[at + i] === needle[i]) i++;
    if (i === needle.length) return true;
  }
  return false;
}

/** Where a line is: its number and the turn it is in. */
export interface LinePlace {
  /** 1-based line number. */
  line: number;
  /** The turn (1-based), or 0 before the first. */
  turn: number;
}

/** A pattern that matches any of `texts` as they are. */
function anyOf(texts: readonly string[]): RegExp {
  const escaped = texts.map(escapeRegex);
  return new RegExp(escaped.length === 0 ? "(?!)" : escaped.join("|"), "g");
}

/**
 * Which lines of one decoded chunk hold one of a counter's markers, asked in order: the next
 * marker is searched for (one pattern for them all) only once the lines pass the last one.
 */
class MarkedLines {
  readonly #pattern: RegExp;
  readonly #text: string;
  #next = -1;

  constructor(markers: readonly string[], text: string) {
    this.#pattern = anyOf(markers);
    this.#text = text;
  }

  /** Whether the line at `[start, end)` of the text holds a marker. */
  holds(start: number, end: number): boolean {
    if (this.#next < start) {
      this.#pattern.lastIndex = start;
      this.#next = this.#pattern.exec(this.#text)?.index ?? Infinity;
    }
    return this.#next < end;
  }
}

/**
 * The line numbers and turns of the lines starting at `offsets` (sorted), read forward to the
 * last of them; none is parsed. Each chunk is decoded once, and its lines are followed in its
 * bytes (for their offsets) and in its text (for what they hold) at once: a `\n` byte is
 * never part of a longer UTF-8 sequence, so the two hold the same newlines in the same order.
 * `turns` is shown only the wanted lines and those that hold one of its markers (the others
 * cannot move the count).
 */
export async function placeLines(
  path: string,
  offsets: readonly number[],
  turns: TurnCounter,
  buffer: ScanBuffer = scanBuffer(),
): Promise<Map<number, LinePlace>> {
  const places = new Map<number, LinePlace>();
  if (offsets.length === 0) return places;
  const wanted = new Set(offsets);
  const last = offsets[offsets.length - 1]!;
  let line = 0;
  for await (const { bytes, offset } of byteChunks(path, buffer)) {
    const text = decoder.decode(bytes);
    // As many characters as bytes: each byte is one character (string index = byte index).
    const aligned = text.length === bytes.length;
    const marked = new MarkedLines(turns.markers, text);
    for (let start = 0, char = 0; start < bytes.length;) {
      const charEnd = textLineEnd(text, char);
      const end = aligned ? charEnd : lineEnd(bytes, start);
      line++;
      const at = offset + start;
      if (wanted.has(at)) {
        places.set(at, { line, turn: turns.turnOf(cutLine(text, char, charEnd)) });
      } else if (marked.holds(char, charEnd)) turns.turnOf(cutLine(text, char, charEnd));
      if (at >= last) return places;
      start = end + 1;
      char = charEnd + 1;
    }
  }
  return places;
}

function textLineEnd(text: string, from: number): number {
  const newline = text.indexOf("\n", from);
  return newline === -1 ? text.length : newline;
}
