/**
 * The one place that says which store a command uses: `--store` (a `postgres://` URL or a
 * sessions folder), else `--sessions-dir`, else `TURNLOG_STORE`, else the sessions folder
 * (`TURNLOG_SESSIONS_DIR`, else `./sessions`); and opens it.
 *
 * @module
 */
import { resolve } from "node:path";
import { FileStore } from "./_file_store.ts";
import { resolveSessionsRoot } from "./_layout.ts";
import { InvalidStoreError, type SessionStore } from "./_session_store.ts";
import { displayUrl, isPostgresUrl } from "./_postgres_url.ts";

export { isPostgresUrl };

/** The environment variable naming the store: a `postgres://` URL or a sessions folder. */
export const STORE_ENV = "TURNLOG_STORE";

/** What a command was told about its store. */
export interface StoreChoice {
  /** `--store`: a `postgres://` URL or a sessions folder. */
  store?: string | undefined;
  /** `--sessions-dir`: a sessions folder. */
  sessionsDir?: string | undefined;
}

/**
 * The store a command uses, as given: `choice.store`, else `choice.sessionsDir`, else
 * `TURNLOG_STORE`, else the sessions folder ({@linkcode resolveSessionsRoot}).
 *
 * @throws {InvalidStoreError} for both `store` and `sessionsDir`, or an empty one
 */
export function resolveStoreSpec(choice: StoreChoice = {}): string {
  const { store, sessionsDir } = choice;
  if (store !== undefined && sessionsDir !== undefined) {
    throw new InvalidStoreError(
      "--store and --sessions-dir do not go together: --store takes a folder too",
    );
  }
  if (store === "" || sessionsDir === "") {
    throw new InvalidStoreError(
      "The store is empty: give a postgres:// URL or a sessions folder",
    );
  }
  const env = storeFromEnvironment();
  return store ?? sessionsDir ?? env ?? resolveSessionsRoot();
}

/**
 * `TURNLOG_STORE`, or undefined when it is unset, empty, or not ours to read (a process run
 * without the permission was not given the variable either, and is not asked for it).
 */
export function storeFromEnvironment(): string | undefined {
  const allowed = Deno.permissions.querySync({ name: "env", variable: STORE_ENV }).state;
  if (allowed !== "granted") return undefined;
  return Deno.env.get(STORE_ENV) || undefined;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * How a store is named in messages and printed commands: a folder as given, a database by its
 * URL without the password.
 */
export function storeName(spec: string): string {
  return isPostgresUrl(spec) ? displayUrl(spec) : spec;
}

/**
 * Whether `name` (a store's {@linkcode SessionStore.name}) is the store a command uses when
 * given no `--store` or `--sessions-dir`: then a printed command needs neither.
 */
export function isDefaultStore(name: string): boolean {
  const fallback = resolveStoreSpec();
  if (isPostgresUrl(name) || isPostgresUrl(fallback)) return storeName(fallback) === name;
  return resolve(fallback) === resolve(name);
}

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
