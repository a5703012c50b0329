/**
 * The user's home folder as the tools' homes are found from it, apart from the finding of
 * sessions (`_find.ts`): a home's words name their root with it, and a command that names a
 * home loads no more.
 *
 * @module
 */
import { HomeUnsetError } from "../errors/mod.ts";

/** Reads `env` the way Deno's environment does (injectable for tests). */
export type Env = { get(name: string): string | undefined };

/**
 * The user's home folder: `$HOME`, else `%USERPROFILE%`; never the current folder (a
 * repository that carries a `.claude` folder is not the user's sessions). `home` says whose
 * home is looked for, and which variables name it, for the error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { homeDir } from "./mod.ts";
 * const home = { what: "Codex's home", variables: ["CODEX_HOME", "HOME"] };
 * assert.equal(homeDir({ get: (name) => (name === "HOME" ? "/home/u" : undefined) }, home), "/home/u");
 * assert.throws(() => homeDir({ get: () => undefined }, home), /^HomeUnsetError: HOME is unset/);
 * ```
 *
 * @throws {HomeUnsetError} when neither is set (or both are empty)
 */
export function homeDir(env: Env, home: { what: string; variables: readonly string[] }): string {
  const found = env.get("HOME") || env.get("USERPROFILE");
  if (!found) throw new HomeUnsetError(home.what, home.variables);
  return found;
}
