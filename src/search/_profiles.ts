/**
 * The search profile of every format: turnlog's own, and each adapter's `search` with its
 * tool's name; another tool's session is continued by importing it first.
 *
 * @module
 */
import { adapterOf, type SessionFormat } from "../formats/mod.ts";
import type { SearchProfile } from "./_profile.ts";
import { turnlogSearch } from "./_turnlog.ts";

/**
 * The search profile of a format.
 *
 * @throws {ForeignSessionError} for a format no adapter reads
 */
export function searchProfile(format: SessionFormat): SearchProfile {
  const adapter = adapterOf(format);
  if (adapter.own) return turnlogSearch;
  return { ...adapter.search, tool: adapter.shortTool, continuedBy: "import" };
}
