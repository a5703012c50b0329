/**
 * The search profile of every format: turnlog's own, and each adapter's `search` with its
 * tool's name; another tool's session is continued by importing it first.
 *
 * @module
 */
import type { SessionFormat } from "../formats/mod.ts";
// The homes, not the registry: a search of the catalog loads no reader.
import { homeOfData } from "../formats/homes.ts";
import type { SearchProfile } from "./_profile.ts";
import { turnlogSearch } from "./_turnlog.ts";

/**
 * The search profile of a format, by the name a search source carries (a source is JSON data:
 * a summary names it).
 *
 * @throws {ForeignSessionError} for a format no adapter reads
 */
export function searchProfile(format: SessionFormat): SearchProfile {
  const adapter = homeOfData({ format });
  if (adapter.own) return turnlogSearch;
  return { ...adapter.search, tool: adapter.shortTool, continuedBy: "import" };
}
