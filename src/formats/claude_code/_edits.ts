/**
 * Claude Code's file edits read from a tool call's input, for a page to show as a diff:
 * `Edit` (`file_path`, `old_string`, `new_string`) and `MultiEdit` (`file_path`, `edits[]`).
 *
 * @module
 */
import { isObject, type Json, str } from "../_line.ts";
import type { ToolEdit } from "../_types.ts";

function parsed(input: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(input);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined; // clipped or not JSON: shown as it is
  }
}

function replacement(path: string | null, edit: unknown): ToolEdit | undefined {
  if (!isObject(edit)) return undefined;
  const before = str(edit, "old_string");
  const after = str(edit, "new_string");
  if (before === undefined || after === undefined) return undefined;
  return { kind: "replace", path, before, after };
}

/**
 * The changes an `Edit` or `MultiEdit` call asks for, or null for any other tool or an input
 * that does not read as one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { claudeEdits } from "./_edits.ts";
 * const input = JSON.stringify({ file_path: "a.ts", old_string: "x", new_string: "y" });
 * assert.deepEqual(claudeEdits("Edit", input), [
 *   { kind: "replace", path: "a.ts", before: "x", after: "y" },
 * ]);
 * ```
 */
export function claudeEdits(name: string, input: string): ToolEdit[] | null {
  if (name !== "Edit" && name !== "MultiEdit") return null;
  const value = parsed(input);
  if (value === undefined) return null;
  const path = str(value, "file_path") ?? null;
  const list = name === "Edit" ? [value] : value.edits;
  if (!Array.isArray(list) || list.length === 0) return null;
  const edits = list.map((edit) => replacement(path, edit));
  return edits.every((edit) => edit !== undefined) ? edits : null;
}
