/**
 * turnlog's own sessions as a search walks them: the store's files from their names; what a
 * file says is read by turnlog's adapter (`src/formats/turnlog/`).
 *
 * @module
 */
// The store's layout and turnlog's adapter alone, not the faces: a search loads no reader of
// another tool's files and no store.
import { walkSessions } from "../store/_layout.ts";
import type { SessionFiles } from "../formats/mod.ts";
import { turnlogAdapter } from "../formats/homes.ts";
import type { SearchProfile } from "./_profile.ts";

async function* walk(root: string): AsyncGenerator<SessionFiles> {
  for await (const location of walkSessions(root)) {
    yield { id: location.id, path: location.path, subagents: [], project: null };
  }
}

/** turnlog's search profile: its adapter's search, walking the store's layout. */
export const turnlogSearch: SearchProfile = {
  ...turnlogAdapter.search,
  tool: turnlogAdapter.tool,
  continuedBy: "resume",
  walk,
};
