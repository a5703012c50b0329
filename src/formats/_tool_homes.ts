/**
 * The other tools' homes without their readers: each format's start (`_tool_starts.ts`) with its
 * search profile, in the registry's order. What a search answered from the catalog needs to
 * start: the readers, checks and repair planners of `registry.ts` load only when a file has
 * changed.
 *
 * @module
 */
import type { ToolHome } from "./_adapter.ts";
import { ForeignSessionError } from "./_types.ts";
import { claudeCodeStart } from "./claude_code/_home.ts";
import { claudeCodeSearch } from "./claude_code/_search.ts";
import { codexStart } from "./codex/_home.ts";
import { codexSearch } from "./codex/_search.ts";
import { geminiStart } from "./gemini/_home.ts";
import { geminiSearch } from "./gemini/_search.ts";

export { foreignToolsInWords, inWords } from "./_tool_starts.ts";

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
export const TOOL_HOMES: readonly ToolHome[] = [
  { ...codexStart, search: codexSearch },
  { ...claudeCodeStart, search: claudeCodeSearch },
  { ...geminiStart, search: geminiSearch },
];

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
