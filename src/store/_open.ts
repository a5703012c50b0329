/**
 * Opens the store a command uses (`_spec.ts` says which: `--store`, else `--sessions-dir`,
 * else `TURNLOG_STORE`, else the sessions folder).
 *
 * @module
 */
import { FileStore } from "./_file_store.ts";
import type { SessionStore } from "./_session_store.ts";
import { isPostgresUrl } from "./_postgres_url.ts";
import { InvalidStoreError, resolveStoreSpec, type StoreChoice } from "./_spec.ts";

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * Opens the store `spec` names: a `postgres://` URL is the PostgreSQL store (its client is
 * loaded only then), anything else a sessions folder. Absent, or given as flags:
 * {@linkcode resolveStoreSpec} decides. Nothing connects until the first call; close the
 * store when done.
 *
 * @throws {InvalidStoreError} for a URL of another kind, or a malformed PostgreSQL URL
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { FileStore, openStore } from "./mod.ts";
 * const store = await openStore("sessions");
 * assert(store instanceof FileStore);
 * await store.close();
 * ```
 */
export async function openStore(spec?: string | StoreChoice): Promise<SessionStore> {
  const resolved = typeof spec === "string" ? spec : resolveStoreSpec(spec);
  if (isPostgresUrl(resolved)) {
    const { PostgresStore } = await import("./postgres/mod.ts");
    return new PostgresStore(resolved);
  }
  const scheme = SCHEME.exec(resolved)?.[1];
  if (scheme !== undefined) {
    throw new InvalidStoreError(
      `Unknown store "${scheme}://...": give a postgres:// URL or a sessions folder`,
    );
  }
  return new FileStore(resolved);
}
