/**
 * The other tools' starts: each format's words, flag, home and what its listing leaves out, its
 * search profile loaded when asked (`ToolStart`, its folder's `_home.ts`), in the registry's
 * order. What a listing of a home answered from the catalog needs to start: the profile of the
 * home it walks alone, loaded then (`_tool_homes.ts` adds every profile, which a search needs).
 *
 * @module
 */
import type { ToolStart } from "./_adapter.ts";
import { ForeignSessionError } from "./_errors.ts";
import { claudeCodeStart } from "./claude_code/_home.ts";
import { codexStart } from "./codex/_home.ts";
import { geminiStart } from "./gemini/_home.ts";

/**
 * Every other tool's start, in the order of `ADAPTERS` (a test holds them to it).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TOOL_STARTS } from "./_tool_starts.ts";
 * assert.deepEqual(TOOL_STARTS.map((start) => start.flag), ["codex", "claude", "gemini"]);
 * ```
 */
export const TOOL_STARTS: readonly ToolStart[] = [codexStart, claudeCodeStart, geminiStart];

/**
 * The start of the format a name gives (an adapter's name), or undefined for turnlog's own
 * and any name no adapter has.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { toolStartOf } from "./_tool_starts.ts";
 * assert.equal(toolStartOf("codex")?.tool, "Codex CLI");
 * assert.equal((await toolStartOf("codex")?.loadSearch())?.walk instanceof Function, true);
 * assert.equal(toolStartOf("turnlog"), undefined);
 * ```
 */
export function toolStartOf(format: string): ToolStart | undefined {
  return TOOL_STARTS.find((start) => start.name === format);
}

/**
 * The start of another tool's format, by its name.
 *
 * @throws {ForeignSessionError} when no adapter has that name
 */
export function toolStartFor(format: string): ToolStart {
  const start = toolStartOf(format);
  if (start === undefined) {
    throw new ForeignSessionError(
      `No adapter reads the format ${JSON.stringify(format)} (known: ${
        TOOL_STARTS.map((start) => start.name).join(", ")
      })`,
    );
  }
  return start;
}

/** Names in a sentence: `a, b or c`. */
export function inWords(names: readonly string[], conjunction: string): string {
  return names.length < 2
    ? names.join("")
    : `${names.slice(0, -1).join(", ")} ${conjunction} ${names.at(-1)}`;
}

/** The other tools, in a sentence: `Codex or Claude Code`, `Codex's and Claude Code's`. */
export function foreignToolsInWords(conjunction = "or", possessive = false): string {
  const names = TOOL_STARTS.map((adapter) =>
    possessive ? `${adapter.shortTool}'s` : adapter.shortTool
  );
  return inWords(names, conjunction);
}
