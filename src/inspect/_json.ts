/**
 * The inspector's JSON document written in pieces, so a large report is never one string.
 *
 * @module
 */
import type { InspectReport } from "./_schema.ts";

/**
 * The text of `JSON.stringify(report, null, 2)`, in pieces: one per top-level field and one
 * per turn, so a report with every line's entry is never one string of the whole document.
 *
 * @example
 * ```ts ignore
 * for (const piece of reportJsonPieces(report)) await write(piece);
 * ```
 */
export function* reportJsonPieces(report: InspectReport): Generator<string> {
  const nested = (value: unknown, indent: string) =>
    JSON.stringify(value, null, 2).replaceAll("\n", `\n${indent}`);
  const fields = Object.entries(report).filter(([, value]) => value !== undefined);
  yield "{";
  for (const [index, [key, value]] of fields.entries()) {
    yield `${index === 0 ? "" : ","}\n  ${JSON.stringify(key)}: `;
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
