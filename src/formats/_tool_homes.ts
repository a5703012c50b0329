/**
 * The other tools' homes without their readers, and without turnlog's own adapter either:
 * each format's words, flag, home and search profile (`ToolHome`, its folder's `_home.ts`), in
 * the registry's order. What a listing of a home answered from the catalog needs to start
 * (`homes.ts` adds turnlog's adapter, which a search of turnlog's store needs, and its reader).
 *
 * @module
 */
import type { ToolHome } from "./_adapter.ts";
import { ForeignSessionError } from "./_types.ts";
import { claudeCodeHome } from "./claude_code/_home.ts";
import { codexHome } from "./codex/_home.ts";
import { geminiHome } from "./gemini/_home.ts";

/**
 * Every other tool's home, in the order of `ADAPTERS` (a test holds them to it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOOL_HOMES } from "./_tool_homes.ts";
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
 * import { toolHomeOf } from "./_tool_homes.ts";
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
