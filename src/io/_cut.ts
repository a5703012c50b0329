/**
 * Lines cut from a string that many lines were decoded into at once (the forward reads' and
 * the range reads' slices): the same text a decode of each line alone gives.
 *
 * @module
 */

const CR = 13;
const BOM = 0xfeff;

/**
 * The bytes of a chunk's lines decoded at once: a string over V8's largest young object (128
 * KiB, that is 64 KiB of text with a character beyond Latin-1) goes to the large-object space,
 * which only a full collection frees, where a smaller one is young garbage, freed at once.
 * It is also all that a line's text can keep alive.
 */
export const SLICE_BYTES = 32 << 10;

/** The decoder of slices: the BOM a decode drops at the start of each line is dropped by hand. */
export const sliceDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The line from `start` to `end` of a decoded slice, without a final `\r` (of a `\r\n`) and
 * without a BOM at its start (as a decode of the line alone drops it).
 */
export function cut(text: string, start: number, end: number): string {
  if (end > start && text.charCodeAt(end - 1) === CR) end--;
  if (end > start && text.charCodeAt(start) === BOM) start++;
  return text.slice(start, end);
}
