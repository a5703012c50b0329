/**
 * The inspector's JSON document written in pieces, so a large report is never one string.
 *
 * @module
 */
import { visibleJson } from "../text/mod.ts";
import type { InspectReport } from "./_types.ts";

/**
 * Entries (and items) a piece of an array holds at most: a turn counts one and each of its
 * entries one, so a report with every line's entry still comes in pieces of a few hundred lines.
 */
const PIECE_ENTRIES = 256;

/** How many entries an array item holds (a turn's, the header's), for {@linkcode PIECE_ENTRIES}. */
function entriesOf(item: unknown): number {
  const entries = (item as { entries?: unknown } | null)?.entries;
  return Array.isArray(entries) ? entries.length : 0;
}

/** `[[...items]]` with two spaces, its items at the depth of a top-level field's array items. */
const ITEMS_OPEN = "[\n  [\n    ".length;
const ITEMS_CLOSE = "\n  ]\n]".length;
/** `[value]` with two spaces, `value` at the depth of a top-level field. */
const VALUE_OPEN = "[\n  ".length;
const VALUE_CLOSE = "\n]".length;

/**
 * The text of `JSON.stringify(report, null, 2)` (its unsafe characters escaped: `visibleJson`),
 * in pieces: one per top-level field and one per run of a field's array items (a few hundred
 * entries at most), so a report with every line's entry is never one string of the whole
 * document. Each piece is stringified already at its depth in the document (wrapped, the wrapper
 * cut off), not indented again after.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { reportJsonPieces } from "./mod.ts";
 * import type { InspectReport } from "./mod.ts";
 * const report = { format: "turnlog-inspect", turns: [{ index: 1, counts: { total: 2 } }] };
 * const pieces = [...reportJsonPieces(report as unknown as InspectReport)];
 * assert.equal(pieces.join(""), JSON.stringify(report, null, 2));
 * ```
 */
export function* reportJsonPieces(report: InspectReport): Generator<string> {
  const fields = Object.entries(report).filter(([, value]) => value !== undefined);
  yield "{";
  for (const [index, [key, value]] of fields.entries()) {
    yield `${index === 0 ? "" : ","}\n  ${visibleJson(key)}: `;
    if (Array.isArray(value) && value.length > 0) {
      let from = 0;
      while (from < value.length) {
        let to = from + 1;
        let entries = 1 + entriesOf(value[from]);
        while (to < value.length && (entries += 1 + entriesOf(value[to])) <= PIECE_ENTRIES) to++;
        const items = visibleJson([value.slice(from, to)], 2);
        yield `${from === 0 ? "[" : ","}\n    ${items.slice(ITEMS_OPEN, -ITEMS_CLOSE)}`;
        from = to;
      }
      yield "\n  ]";
    } else {
      yield visibleJson([value], 2).slice(VALUE_OPEN, -VALUE_CLOSE);
    }
  }
  yield fields.length === 0 ? "}" : "\n}";
}
