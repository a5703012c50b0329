/**
 * The search profile of every format: a record over the format names, so a new format is a
 * decision here before it compiles.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type { KnownFormat, SessionFormat } from "../formats/mod.ts";
import { claudeCodeSearch } from "./_claude_code.ts";
import { codexSearch } from "./_codex.ts";
import type { SearchProfile } from "./_profile.ts";
import { turnlogSearch } from "./_turnlog.ts";

/** How a search reads each format. */
export const SEARCH_PROFILES: Readonly<Record<KnownFormat, SearchProfile>> = {
  turnlog: turnlogSearch,
  codex: codexSearch,
  "claude-code": claudeCodeSearch,
};

/**
 * The search profile of a format.
 *
 * @throws {TurnlogError} for a format no profile reads
 */
export function searchProfile(format: SessionFormat): SearchProfile {
  const profile = (SEARCH_PROFILES as Readonly<Record<string, SearchProfile | undefined>>)[format];
  if (profile === undefined) {
    throw new TurnlogError("internal", `No search profile reads the format ${format}`);
  }
  return profile;
}
