/**
 * The search profile of every format: a record over the format names, so a new format is a
 * decision here before it compiles.
 *
 * @module
 */
import type { SessionFormat } from "../formats/mod.ts";
import { claudeCodeSearch } from "./_claude_code.ts";
import { codexSearch } from "./_codex.ts";
import type { SearchProfile } from "./_profile.ts";
import { turnlogSearch } from "./_turnlog.ts";

/** How a search reads each format. */
export const SEARCH_PROFILES: Readonly<Record<SessionFormat, SearchProfile>> = {
  turnlog: turnlogSearch,
  codex: codexSearch,
  "claude-code": claudeCodeSearch,
};
