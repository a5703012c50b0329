/**
 * The lines of a session file that can carry usage, each parsed once: the loop every format's
 * `usage` reader shares (apart from `_usage.ts`, which `_types.ts` imports for its types).
 *
 * @module
 */
import { forEachLine } from "../io/forward.ts";
import { isObject, type Json } from "./_line.ts";
import type { FileUsage } from "./_usage.ts";

/**
 * Each line of a file that names one of `markers` (a substring test, so the lines that cannot
 * carry usage are never parsed), parsed once and handed on when it is a JSON object; a marked
 * line that is not JSON is counted in `usage.badLines`.
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
  await forEachLine(path, ({ line, text }) => {
    if (!markers.some((marker) => text.includes(marker))) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      usage.badLines++;
      return;
    }
    if (isObject(value)) each(value, line);
  });
}
