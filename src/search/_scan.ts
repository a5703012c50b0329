/**
 * The byte side of a search: a file streamed in chunks, and within each chunk a native,
 * case-insensitive search for the query's longest safe fragment; only a line that holds every
 * fragment comes out, to be parsed. A second pass over a file that had hits counts its lines
 * and turns up to the last hit, still without parsing.
 *
 * @module
 */
import type { CompiledQuery } from "./_query.ts";
import type { TurnCounter } from "./_profile.ts";

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
const decoder = new TextDecoder();
const encoder = new TextEncoder();

const stripCr = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line);

/** Complete lines of a file as text, where they start and how many bytes they are. */
interface Chunk {
  text: string;
  offset: number;
  bytes: number;
}

/**
 * Yields the complete lines of a file in chunks of text that end at a line's end, with the
 * byte offset of each chunk; one line longer than the buffer grows it. Never the whole file.
 */
async function* textChunks(path: string): AsyncGenerator<Chunk> {
  using file = await Deno.open(path, { read: true });
  let buffer = new Uint8Array(CHUNK);
  let filled = 0;
  let offset = 0;
  while (true) {
    if (filled === buffer.length) {
      const grown = new Uint8Array(buffer.length * 2);
      grown.set(buffer);
      buffer = grown;
    }
    const read = await file.read(buffer.subarray(filled));
    if (read === null) {
      if (filled > 0) {
        yield { text: decoder.decode(buffer.subarray(0, filled)), offset, bytes: filled };
      }
      return;
    }
    filled += read;
    const last = buffer.subarray(0, filled).lastIndexOf(NEWLINE);
    if (last === -1) continue;
    const end = last + 1;
    yield { text: decoder.decode(buffer.subarray(0, end)), offset, bytes: end };
    buffer.copyWithin(0, end, filled);
    filled -= end;
    offset += end;
  }
}

/** Byte offsets of string positions in a chunk, counted forward as they are asked for. */
class ByteOffsets {
  #at = 0;
  #bytes = 0;
  readonly #ascii: boolean;

  constructor(readonly text: string, readonly base: number, byteLength: number) {
    this.#ascii = text.length === byteLength;
  }

  of(index: number): number {
    if (this.#ascii) return this.base + index;
    this.#bytes += encoder.encode(this.text.slice(this.#at, index)).length;
    this.#at = index;
    return this.base + this.#bytes;
  }
}

function* everyLine(text: string, offsets: ByteOffsets): Generator<CandidateLine> {
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const line = stripCr(text.slice(start, end));
    if (line.trim() !== "") yield { text: line, offset: offsets.of(start) };
    start = end + 1;
  }
}

function* matchingLines(
  text: string,
  offsets: ByteOffsets,
  primary: RegExp,
  others: readonly string[],
): Generator<CandidateLine> {
  primary.lastIndex = 0;
  for (let match = primary.exec(text); match !== null; match = primary.exec(text)) {
    const start = text.lastIndexOf("\n", match.index) + 1;
    const newline = text.indexOf("\n", match.index);
    const end = newline === -1 ? text.length : newline;
    const line = stripCr(text.slice(start, end));
    if (others.length === 0 || holdsAll(line.toLowerCase(), others)) {
      yield { text: line, offset: offsets.of(start) };
    }
    primary.lastIndex = end + 1;
  }
}

const holdsAll = (lower: string, fragments: readonly string[]) =>
  fragments.every((fragment) => lower.includes(fragment));

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * The lines of the file at `path` that can match `query`, in order: those holding every
 * fragment (case-insensitively, in the raw bytes), or every non-empty line when the query
 * has no fragment.
 */
export async function* candidateLines(
  path: string,
  query: CompiledQuery,
): AsyncGenerator<CandidateLine> {
  const [first, ...others] = query.fragments;
  const primary = first === undefined ? undefined : new RegExp(escapeRegex(first), "gi");
  for await (const chunk of textChunks(path)) {
    const offsets = new ByteOffsets(chunk.text, chunk.offset, chunk.bytes);
    yield* primary === undefined
      ? everyLine(chunk.text, offsets)
      : matchingLines(chunk.text, offsets, primary, others);
  }
}

/** Where a line is: its number and the turn it is in. */
export interface LinePlace {
  /** 1-based line number. */
  line: number;
  /** The turn (1-based), or 0 before the first. */
  turn: number;
}

/**
 * The line numbers and turns of the lines starting at `offsets` (sorted), read forward to the
 * last of them; every line is shown to `turns`, none is parsed.
 */
export async function placeLines(
  path: string,
  offsets: readonly number[],
  turns: TurnCounter,
): Promise<Map<number, LinePlace>> {
  const places = new Map<number, LinePlace>();
  if (offsets.length === 0) return places;
  const wanted = new Set(offsets);
  const last = offsets[offsets.length - 1]!;
  let line = 0;
  for await (const chunk of textChunks(path)) {
    const positions = new ByteOffsets(chunk.text, chunk.offset, chunk.bytes);
    let start = 0;
    while (start < chunk.text.length) {
      const newline = chunk.text.indexOf("\n", start);
      const end = newline === -1 ? chunk.text.length : newline;
      const text = chunk.text.slice(start, end);
      const offset = positions.of(start);
      line++;
      const turn = turns.turnOf(text);
      if (wanted.has(offset)) places.set(offset, { line, turn });
      if (offset >= last) return places;
      start = end + 1;
    }
  }
  return places;
}
