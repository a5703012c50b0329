/**
 * Where the catalog is: `TURNLOG_CATALOG`, else `catalog.sqlite` beside turnlog's sessions
 * folder (`~/.local/share/turnlog/catalog.sqlite` once installed, `./catalog.sqlite` in a
 * checkout), as the archive sits beside it.
 *
 * @module
 */
import { dirname, join, resolve } from "../_path.ts";
// The store's layout alone, not its face: opening the catalog loads no store.
import { resolveSessionsRoot } from "../store/_layout.ts";
import { CATALOG_ENV, readEnv } from "./_named.ts";

export { CATALOG_ENV } from "./_named.ts";

/**
 * The catalog's file: the explicit one, else `TURNLOG_CATALOG`, else `catalog.sqlite` in
 * turnlog's data folder (beside the sessions folder).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveCatalogPath } from "./mod.ts";
 * assert.equal(resolveCatalogPath("/var/cache/turnlog.sqlite"), "/var/cache/turnlog.sqlite");
 * ```
 */
export function resolveCatalogPath(explicit?: string): string {
  if (explicit) return resolve(explicit);
  return resolve(
    readEnv(CATALOG_ENV) ?? join(dirname(resolve(resolveSessionsRoot())), "catalog.sqlite"),
  );
}
