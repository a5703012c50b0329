/**
 * The other tools' homes without their readers (`_tool_homes.ts`: each format's words, flag,
 * home and search profile, in the registry's order), and turnlog's own adapter. What a command
 * that answers from the catalog (a listing, a search, a usage report) needs to start: the
 * readers, checks and repair planners of `registry.ts` load only when a file has changed.
 *
 * @module
 */
import type { ToolHome } from "./_adapter.ts";
import { toolHomeFor } from "./_tool_homes.ts";

// turnlog's own adapter reads only turnlog's files: it loads no other tool's reader.
import { type OwnFormatAdapter, turnlogAdapter } from "./turnlog/mod.ts";

export { turnlogAdapter };
export * from "./_tool_homes.ts";
export { TOOL_STARTS, toolStartFor, toolStartOf } from "./_tool_starts.ts";

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
