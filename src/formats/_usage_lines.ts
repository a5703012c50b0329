/**
 * The lines of a session file that can carry usage, each parsed once: the loop every format's
 * `usage` reader shares (apart from `_usage.ts`, which `_types.ts` imports for its types).
 *
 * @module
 */
import { cutLine, forEachLine, isCompressed, Pauses } from "../io/forward.ts";
import { isObject, type Json } from "./_line.ts";
import type { FileUsage } from "./_usage.ts";

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * Bytes of whole lines decoded at once: a string this small is young garbage, freed at once
 * (one over 128 KiB goes to V8's large-object space, which only a full collection frees).
 */
const SLICE_BYTES = 32 << 10;

const NEWLINE = 10;

/** The BOM a decode drops at the start of each line is dropped by hand (`cutLine`). */
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * Each line of a file that names one of `markers` (a substring test, so the lines that cannot
 * carry usage are never parsed), parsed once and handed on when it is a JSON object; a marked
 * line that is not JSON is counted in `usage.badLines`.
 *
 * The markers are looked for in many lines' text at once (a slice of about 32 KiB decoded in
 * one call; a line longer than that is a slice of its own), all with one regular expression:
 * a line no marker is in is neither cut from its slice nor tested on its own.
 * That is most of a home's bytes (tool output, file contents), and most of what reading its
 * usage cost when each line was cut and tested.
 *
 * @example Only the marked lines are parsed; a broken one is counted
 * ```ts
 * import assert from "node:assert/strict";
 * import { noUsage } from "./_usage.ts";
 * import { forEachMarkedRecord } from "./_usage_lines.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, '{"usage":1}\n{"other":2}\n{"usage":\n');
 * const usage = noUsage(null);
 * const seen: number[] = [];
 * await forEachMarkedRecord(path, ['"usage"'], usage, (_value, line) => seen.push(line));
 * assert.deepEqual([seen, usage.badLines], [[1], 1]);
 * await Deno.remove(path);
 * ```
 */
export async function forEachMarkedRecord(
  path: string,
  markers: readonly string[],
  usage: FileUsage,
  each: (value: Json, line: number) => void,
): Promise<void> {
  const take = (text: string, line: number) => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      usage.badLines++;
      return;
    }
    if (isObject(value)) each(value, line);
  };
  if (isCompressed(path)) {
    await forEachLine(path, ({ line, text }) => {
      if (markers.some((marker) => text.includes(marker))) take(text, line);
    });
    return;
  }
  const scan = new MarkedLines(markers, take);
  using file = Deno.openSync(path, { read: true });
  const pause = new Pauses(file);
  const size = file.statSync().size;
  // The spare buffer when it is free and the file needs that much: a buffer a file makes and
  // drops is memory the allocator keeps (a home's hundreds of files, read one after another).
  const buffer = spare !== undefined && size >= CHUNK_BYTES
    ? spare
    : new Uint8Array(Math.max(1, Math.min(CHUNK_BYTES, size)));
  if (buffer === spare) spare = undefined;
  try {
    await scanFile(file, buffer, scan, pause);
  } finally {
    if (buffer.length === CHUNK_BYTES) spare = buffer;
  }
}

/** A buffer of {@linkcode CHUNK_BYTES} no read is using. */
let spare: Uint8Array | undefined;

async function scanFile(
  file: Deno.FsFile,
  buffer: Uint8Array,
  scan: MarkedLines,
  pause: Pauses,
): Promise<void> {
  let held = 0;
  for (;;) {
    if (held === buffer.length) {
      // A line longer than the buffer: twice the room.
      const bigger = new Uint8Array(buffer.length * 2);
      bigger.set(buffer);
      buffer = bigger;
    }
    const read = file.readSync(buffer.subarray(held));
    if (read === null) break;
    held += read;
    const linesEnd = buffer.lastIndexOf(NEWLINE, held - 1) + 1;
    for (let from = 0; from < linesEnd;) {
      let end = Math.min(linesEnd, from + SLICE_BYTES);
      if (end < linesEnd) {
        const newline = buffer.lastIndexOf(NEWLINE, end - 1);
        end = newline >= from ? newline + 1 : buffer.indexOf(NEWLINE, end) + 1;
      }
      scan.slice(decoder.decode(buffer.subarray(from, end)));
      from = end;
    }
    buffer.copyWithin(0, linesEnd, held);
    held -= linesEnd;
    await pause.after(read);
  }
  // The last line, when the file does not end with a newline.
  if (held > 0) scan.slice(decoder.decode(buffer.subarray(0, held)));
}

/** Finds the marked lines of decoded slices of whole lines, counting every line passed. */
class MarkedLines {
  /**
   * Any of the markers: one search for them all (V8's regular expression), where an `indexOf`
   * per marker goes over the text once for each (a Codex rollout's four markers: 3.5x slower;
   * an `indexOf` of a marker that starts with a quote stops at every quote, 5x slower still).
   */
  readonly #any: RegExp;
  readonly #take: (text: string, line: number) => void;
  /** The number of the next slice's first line. */
  #line = 1;

  constructor(markers: readonly string[], take: (text: string, line: number) => void) {
    this.#any = new RegExp(
      markers.map((marker) => marker.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"),
      "g",
    );
    this.#take = take;
  }

  /** The marked lines of `text` (whole lines, each ended by a newline but perhaps the last). */
  slice(text: string): void {
    const any = this.#any;
    any.lastIndex = 0;
    // The start of the line numbered `line`.
    let counted = 0;
    let line = this.#line;
    while (any.test(text)) {
      // In the marked line: a marker holds no newline.
      const hit = any.lastIndex - 1;
      const start = text.lastIndexOf("\n", hit) + 1;
      while (counted < start) {
        counted = text.indexOf("\n", counted) + 1;
        line++;
      }
      let end = text.indexOf("\n", hit);
      if (end < 0) end = text.length;
      this.#take(cutLine(text, start, end), line);
      any.lastIndex = end;
    }
    for (let at = text.indexOf("\n", counted); at >= 0; at = text.indexOf("\n", at + 1)) line++;
    this.#line = line;
  }
}
