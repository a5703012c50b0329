/**
 * Shell quoting for the commands turnlog prints for a person to copy.
 *
 * @module
 */

const SAFE_WORD = /^[A-Za-z0-9_./:=@+-]+$/;

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return SAFE_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
