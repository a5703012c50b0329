/**
 * One line of a file as every line reader gives it (plain or compressed).
 *
 * @module
 */
/** One line of a file, without its line terminator. */
export interface Line {
  /** 1-based line number. */
  line: number;
  /**
   * The line decoded as UTF-8 (invalid bytes become U+FFFD, a BOM at its start is dropped),
   * without `\n` or `\r\n`. It may share memory with the lines read with it (about 32 KiB):
   * a reader that keeps many lines' texts, or slices of them, long after reading them keeps
   * copies (JSON.parse's strings are copies).
   */
  text: string;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's last byte, terminator included. */
  end: number;
  /** False only for a last line that has no final newline. */
  terminated: boolean;
}
