/**
 * A bad line as repair moves it, shared by both formats' repairs.
 *
 * @module
 */
import type { ForeignMovedLine } from "./_repair_types.ts";
import type { BadLine } from "./_view.ts";

/** A line that cannot be read, as repair moves it (the records it still holds written back). */
export function movedBadLine(bad: BadLine): ForeignMovedLine {
  const { line, kind, start, end, bytes, message } = bad;
  return {
    line,
    kind,
    start,
    end,
    bytes,
    message,
    split: bad.pieces.map((piece) => ({ ...piece })),
  };
}
