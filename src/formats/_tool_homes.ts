/**
 * The other tools' homes without their readers: each format's start (`_tool_starts.ts`) with its
 * search profile, in the registry's order. What a search answered from the catalog needs to
 * start: the readers, checks and repair planners of `registry.ts` load only when a file has
 * changed.
 *
 * @module
 */
import type { ToolHome } from "./_adapter.ts";
import { claudeCodeStart } from "./claude_code/_home.ts";
import { claudeCodeSearch } from "./claude_code/_search.ts";
import { codexStart } from "./codex/_home.ts";
import { codexSearch } from "./codex/_search.ts";
import { geminiStart } from "./gemini/_home.ts";
import { geminiSearch } from "./gemini/_search.ts";

import { TOOL_STARTS, toolStartFor } from "./_tool_starts.ts";

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
 * The home of another tool's format, by its name: the one at its start's place (the starts say
 * which formats there are, and why none has that name).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolHomeFor } from "./_tool_homes.ts";
 * assert.equal(toolHomeFor("codex").tool, "Codex CLI");
 * assert.throws(() => toolHomeFor("turnlog"), /No adapter reads the format "turnlog"/);
 * ```
 *
 * @throws {ForeignSessionError} when no adapter has that name
 */
export function toolHomeFor(format: string): ToolHome {
  return TOOL_HOMES[TOOL_STARTS.indexOf(toolStartFor(format))]!;
}
