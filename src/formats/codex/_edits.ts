/**
 * Codex's file edits read from a tool call's input, for a page to show as a diff: an
 * `apply_patch` call's patch (`*** Begin Patch`, `*** Update File: <path>`, `@@` hunks of
 * `+`, `-` and ` ` lines, `*** End Patch`), as the custom tool's raw input, as a function's
 * `{"input": ...}`, or as a shell command `["apply_patch", <patch>]`.
 *
 * @module
 */
import { isObject, str } from "../_line.ts";
import type { PatchLine, ToolEdit } from "../_types.ts";

const FILE = /^\*\*\* (Add|Update|Delete) File: (.*)$/;

/** The patch text of an `apply_patch` call's input, or undefined. */
function patchText(name: string, input: string): string | undefined {
  if (input.startsWith("*** Begin Patch")) return name === "apply_patch" ? input : undefined;
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    return undefined; // clipped or not JSON: shown as it is
  }
  if (!isObject(value)) return undefined;
  if (name === "apply_patch") return str(value, "input") ?? str(value, "patch");
  const command = value.command;
  return Array.isArray(command) && command[0] === "apply_patch" && typeof command[1] === "string"
    ? command[1]
    : undefined;
}

function patchLine(line: string): PatchLine {
  if (line.startsWith("@@")) return { kind: "hunk", text: line.slice(2).trim() };
  if (line.startsWith("+")) return { kind: "add", text: line.slice(1) };
  if (line.startsWith("-")) return { kind: "remove", text: line.slice(1) };
  return { kind: "context", text: line.startsWith(" ") ? line.slice(1) : line };
}

/**
 * The files an `apply_patch` call changes, each with its lines, or null for any other call or
 * an input that is not a patch.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { codexEdits } from "./_edits.ts";
 * const patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** End Patch";
 * assert.deepEqual(codexEdits("apply_patch", patch), [{
 *   kind: "patch",
 *   path: "a.ts",
 *   lines: [{ kind: "hunk", text: "" }, { kind: "remove", text: "x" }, { kind: "add", text: "y" }],
 * }]);
 * ```
 */
export function codexEdits(name: string, input: string): ToolEdit[] | null {
  const patch = patchText(name, input);
  if (patch === undefined) return null;
  const edits: (ToolEdit & { kind: "patch" })[] = [];
  for (const line of patch.split("\n")) {
    const file = FILE.exec(line);
    if (file) {
      const path = file[1] === "Update" ? file[2]! : `${file[2]!} (${file[1]!.toLowerCase()})`;
      edits.push({ kind: "patch", path, lines: [] });
    } else if (line.startsWith("*** Move to: ")) {
      const last = edits.at(-1);
      if (last) last.path = `${last.path} → ${line.slice("*** Move to: ".length)}`;
    } else if (!line.startsWith("*** ") && edits.length > 0) {
      edits.at(-1)!.lines.push(patchLine(line));
    }
  }
  return edits.length > 0 ? edits : null;
}
