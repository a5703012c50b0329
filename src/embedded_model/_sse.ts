/**
 * The deterministic chunking of the text and arguments a stream carries.
 *
 * @module
 */

/** How many characters one text delta carries at most. */
export const TEXT_CHUNK = 24;
/** How many characters one arguments delta carries at most. */
export const ARGUMENTS_CHUNK = 16;

/**
 * Splits a text into the pieces a stream sends: at most `size` characters, broken after a
 * space when the window has one, so deltas look word-wise. Joined, the pieces are the text.
 */
export function chunkText(text: string, size: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const space = rest.lastIndexOf(" ", size - 1);
    const end = space > 0 ? space + 1 : size;
    pieces.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}
