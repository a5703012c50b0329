/**
 * The inspector's JSON document written in pieces, so a large report is never one string.
 *
 * @module
 */
import { visibleJson } from "../text/mod.ts";
import type { InspectReport } from "./_types.ts";

/**
 * The text of `JSON.stringify(report, null, 2)` (its unsafe characters escaped: `visibleJson`), in pieces: one per top-level field and one
 * per turn, so a report with every line's entry is never one string of the whole document.
 *
 * @example
 * ```ts ignore
 * for (const piece of reportJsonPieces(report)) await write(piece);
 * ```
 */
export function* reportJsonPieces(report: InspectReport): Generator<string> {
  const nested = (value: unknown, indent: string) =>
    visibleJson(value, 2).replaceAll("\n", `\n${indent}`);
  const fields = Object.entries(report).filter(([, value]) => value !== undefined);
  yield "{";
  for (const [index, [key, value]] of fields.entries()) {
    yield `${index === 0 ? "" : ","}\n  ${visibleJson(key)}: `;
    if (Array.isArray(value) && value.length > 0) {
      for (const [i, item] of value.entries()) {
        yield `${i === 0 ? "[" : ","}\n    ${nested(item, "    ")}`;
      }
      yield "\n  ]";
    } else {
      yield nested(value, "  ");
    }
  }
  yield fields.length === 0 ? "}" : "\n}";
}
