/**
 * The other tools' homes without their readers: each format's words, flag, home and walk
 * (`ToolHome`, its folder's `_home.ts`), in the registry's order. What a command that answers
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
