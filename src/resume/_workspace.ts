/**
 * Whether a continued session's recorded folder may be its workspace without the user naming
 * it: the folder a session file says is only as trusted as the file.
 *
 * @module
 */
import { resolve } from "node:path";
import type { SessionMeta } from "../record/mod.ts";
// The workspace rules alone: the tools themselves load zod.
import { isInside, refusedWorkspace } from "../tools/_workspace.ts";

/**
 * Why a session's recorded folder (`meta.cwd`) may not be its workspace unless the user names
 * it on this run (`--workspace`), or undefined when it may: a folder taken from another tool's
 * file (the file says where, not the user), the home folder itself, or one outside the user's
 * `home` (another machine's, a system folder, `/`); with no home known, none is trusted. A
 * folder inside `here` (the current folder, where the tools work when the recorded one is
 * doubted) is trusted wherever it is, unless `here` itself is refused (`refusedWorkspace`):
 * it gives the tools less than the current folder would. Compare real paths (symlinks resolved).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordedWorkspaceDoubt } from "./mod.ts";
 * assert.equal(recordedWorkspaceDoubt({ cwd: "/home/ada/src/app" }, "/home/ada"), undefined);
 * assert.equal(recordedWorkspaceDoubt({ cwd: "/" }, "/home/ada"), "is outside your home folder");
 * assert.equal(recordedWorkspaceDoubt({ cwd: "/home/ada" }, "/home/ada"), "is your home folder itself");
 * assert.equal(recordedWorkspaceDoubt({ cwd: "/work/app/demo" }, "/home/ada", "/work/app"), undefined);
 * assert.equal(recordedWorkspaceDoubt({ cwd: "/etc/app" }, "/home/ada", "/etc"), "is outside your home folder");
 * const imported = { cwd: "/home/ada/src/app", importedFrom: { format: "codex", path: "/x.jsonl" } };
 * assert.equal(recordedWorkspaceDoubt(imported, "/home/ada"), "came from another tool's file");
 * ```
 */
export function recordedWorkspaceDoubt(
  meta: Pick<SessionMeta, "cwd"> & { importedFrom?: unknown },
  home: string | undefined,
  here?: string,
): string | undefined {
  if (meta.importedFrom !== undefined) return "came from another tool's file";
  const cwd = resolve(meta.cwd);
  if (
    here !== undefined && isInside(resolve(here), cwd) && refusedWorkspace(here, home) === undefined
  ) {
    return undefined;
  }
  if (home === undefined) return "cannot be told to be in your home (HOME is unset)";
  if (resolve(home) === cwd) return "is your home folder itself";
  if (!isInside(resolve(home), cwd)) return "is outside your home folder";
  return undefined;
}
