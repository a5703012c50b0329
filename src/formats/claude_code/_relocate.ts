/**
 * A Claude Code transcript moved with its project (`restore --cwd`): its project folder is
 * named after the working directory (every character but a letter or digit made `-`), and
 * every line carries `cwd`.
 *
 * @module
 */
import type { Relocation } from "../_relocate.ts";
import { str } from "../_line.ts";

/**
 * The project folder Claude Code files a working directory's sessions under.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { claudeProjectFolder } from "./mod.ts";
 * assert.equal(claudeProjectFolder("/home/ada/my.app"), "-home-ada-my-app");
 * ```
 */
export function claudeProjectFolder(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, "-");
}

/** Claude Code's relocation: the project folder and every line's `cwd`. */
export const claudeRelocation: Relocation = {
  place(rel, cwd) {
    const [, ...rest] = rel.split("/");
    return [claudeProjectFolder(cwd), ...rest].join("/");
  },
  line(value, cwd) {
    if (typeof value.cwd !== "string" || value.cwd === cwd) return [];
    value.cwd = cwd;
    return ["cwd"];
  },
  markedBy: ['"cwd"'],
  cwdOf: (value) => str(value, "cwd"),
};
