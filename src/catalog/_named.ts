/**
 * The catalog's file as `TURNLOG_CATALOG` names it, apart from where it is by default (whose
 * module loads `node:path` and the store's layout): a warm `usage` finds it with nothing else.
 *
 * @module
 */

/** The environment variable that names the catalog's file. */
export const CATALOG_ENV = "TURNLOG_CATALOG";

/** A variable, or undefined when it is unset, empty or may not be read. */
export function readEnv(variable: string): string | undefined {
  const state = Deno.permissions.querySync({ name: "env", variable }).state;
  return state === "granted" ? Deno.env.get(variable) || undefined : undefined;
}

/**
 * The catalog's file as `TURNLOG_CATALOG` names it, absolute (a relative one from the current
 * folder), or undefined when the variable does not name one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { namedCatalogPath } from "./_named.ts";
 * Deno.env.set("TURNLOG_CATALOG", "/var/cache/turnlog.sqlite");
 * assert.equal(namedCatalogPath(), "/var/cache/turnlog.sqlite");
 * Deno.env.delete("TURNLOG_CATALOG");
 * assert.equal(namedCatalogPath(), undefined);
 * ```
 */
export function namedCatalogPath(): string | undefined {
  const named = readEnv(CATALOG_ENV);
  if (named === undefined) return undefined;
  return named.startsWith("/") ? named : `${Deno.cwd()}/${named}`;
}
