/**
 * The search profile of every format: turnlog's own, and each adapter's `search` with its
 * tool's name; another tool's session is continued by importing it first.
 *
 * @module
 */
import { adapterFor, type SessionFormat, TURNLOG_FORMAT } from "../formats/mod.ts";
import type { SearchProfile } from "./_profile.ts";
import { turnlogSearch } from "./_turnlog.ts";

/**
 * The search profile of a format.
 *
 * @throws {ForeignSessionError} for a format no adapter reads
 */
export function searchProfile(format: SessionFormat): SearchProfile {
  if (format === TURNLOG_FORMAT) return turnlogSearch;
  const adapter = adapterFor(format);
  return { ...adapter.search, tool: adapter.shortTool, continuedBy: "import" };
}
