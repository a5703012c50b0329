/**
 * The other tools' homes without their readers: each format's words, flag, home and search
 * profile (`ToolHome`, its folder's `_home.ts`), in the registry's order; and turnlog's own
 * adapter. What a command that answers
 * from the catalog (a listing, a search, a usage report) needs to start: the readers,
 * checks and repair planners of `registry.ts` load only when a file has changed.
 *
 * @module
 */
import type { ToolHome } from "./_adapter.ts";
import { ForeignSessionError } from "./_types.ts";
import { claudeCodeHome } from "./claude_code/_home.ts";
import { codexHome } from "./codex/_home.ts";
import { geminiHome } from "./gemini/_home.ts";

// turnlog's own adapter reads only turnlog's files: it loads no other tool's reader.
import { type OwnFormatAdapter, turnlogAdapter } from "./turnlog/mod.ts";

export { turnlogAdapter };

/**
 * Every other tool's home, in the order of `ADAPTERS` (a test holds them to it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOOL_HOMES } from "./homes.ts";
 * assert.deepEqual(TOOL_HOMES.map((home) => home.flag), ["codex", "claude", "gemini"]);
 * ```
 */
export const TOOL_HOMES: readonly ToolHome[] = [codexHome, claudeCodeHome, geminiHome];

/**
 * The home of the format a name gives (an adapter's name), or undefined for turnlog's own
 * and any name no adapter has.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolHomeOf } from "./homes.ts";
 * assert.equal(toolHomeOf("codex")?.tool, "Codex CLI");
 * assert.equal(toolHomeOf("turnlog"), undefined);
 * ```
 */
export function toolHomeOf(format: string): ToolHome | undefined {
  return TOOL_HOMES.find((home) => home.name === format);
}

/**
 * The home of another tool's format, by its name.
 *
 * @throws {ForeignSessionError} when no adapter has that name
 */
export function toolHomeFor(format: string): ToolHome {
  const home = toolHomeOf(format);
  if (home === undefined) {
    throw new ForeignSessionError(
      `No adapter reads the format ${JSON.stringify(format)} (known: ${
        TOOL_HOMES.map((home) => home.name).join(", ")
      })`,
    );
  }
  return home;
}

/**
 * The home of the format a piece of data names (`{ format }`), or turnlog's own adapter
 * (`own: true`) for turnlog's: `adapterOfData`'s answer, without loading any other tool's reader.
 *
 * @throws {ForeignSessionError} for a name no adapter has
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { homeOfData } from "./homes.ts";
 * assert.equal(homeOfData({ format: "turnlog" }).own, true);
 * assert.equal(homeOfData({ format: "gemini" }).tool, "Gemini CLI");
 * ```
 */
export function homeOfData(data: { format: string }): ToolHome | OwnFormatAdapter {
  return data.format === turnlogAdapter.name ? turnlogAdapter : toolHomeFor(data.format);
}

/** Names in a sentence: `a, b or c`. */
export function inWords(names: readonly string[], conjunction: string): string {
  return names.length < 2
    ? names.join("")
    : `${names.slice(0, -1).join(", ")} ${conjunction} ${names.at(-1)}`;
}

/** The other tools, in a sentence: `Codex or Claude Code`, `Codex's and Claude Code's`. */
export function foreignToolsInWords(conjunction = "or", possessive = false): string {
  const names = TOOL_HOMES.map((adapter) =>
    possessive ? `${adapter.shortTool}'s` : adapter.shortTool
  );
  return inWords(names, conjunction);
}
