/**
 * The drift of a format in its fields: keys of known records that turnlog has never seen,
 * counted by the reader's own pass (no second read), bounded per file.
 *
 * @module
 */
import type { Json } from "./_line.ts";
import type { FieldSighting } from "./_types.ts";

/** Distinct unknown fields kept per file at most; more are not counted. */
export const MAX_UNKNOWN_FIELDS = 32;

/**
 * The unknown fields of one file's records, by `<where>.<key>` (`session_meta.payload.foo`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FieldDrift } from "./_drift.ts";
 * const drift = new FieldDrift();
 * const known = new Set(["type", "payload"]);
 * drift.note("record", { type: "a", payload: {}, fresh: 1 }, known, 3);
 * drift.note("record", { type: "a", fresh: 2 }, known, 5);
 * assert.deepEqual(drift.seen, { "record.fresh": { lines: 2, line: 3 } });
 * ```
 */
export class FieldDrift {
  /** What was seen, by field. */
  readonly seen: Record<string, FieldSighting> = {};
  #distinct = 0;

  /** Counts the keys of `value` that are not in `known`, at line `line`. */
  note(where: string, value: Json, known: ReadonlySet<string>, line: number): void {
    for (const key in value) {
      if (known.has(key)) continue;
      const name = `${where}.${key}`;
      const found = this.seen[name];
      if (found !== undefined) found.lines++;
      else if (this.#distinct < MAX_UNKNOWN_FIELDS) {
        this.seen[name] = { lines: 1, line };
        this.#distinct++;
      }
    }
  }
}
