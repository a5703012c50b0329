/**
 * The one place that says which store a command uses: `--store` (a `postgres://` URL or a
 * sessions folder), else `--sessions-dir`, else `TURNLOG_STORE`, else the sessions folder
 * (`TURNLOG_SESSIONS_DIR`, else `./sessions`), from names alone: no store is loaded
 * (`_open.ts` opens it).
 *
 * @module
 */
import { resolve } from "../_path.ts";
import { resolveSessionsRoot } from "./_layout.ts";
import { TurnlogError } from "../errors/mod.ts";
import { displayUrl, isPostgresUrl } from "./_postgres_url.ts";

export { isPostgresUrl };

/**
 * A `--store` or `TURNLOG_STORE` value that names no store turnlog can open. Here, beside the
 * names it judges: a command that reads its store's name loads no store's interface
 * (`_session_store.ts`).
 */
export class InvalidStoreError extends TurnlogError {
  /** An error saying what is wrong with the store's name. */
  constructor(message: string, options?: ErrorOptions) {
    super("usage", message, options);
    this.name = "InvalidStoreError";
  }
}

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

/**
 * How a store is named in messages and printed commands: a folder as given, a database by its
 * URL without the password.
 */
export function storeName(spec: string): string {
  return isPostgresUrl(spec) ? displayUrl(spec) : spec;
}

/**
 * Whether `name` (a store's `SessionStore.name`) is the store a command uses when
 * given no `--store` or `--sessions-dir`: then a printed command needs neither.
 */
export function isDefaultStore(name: string): boolean {
  const fallback = resolveStoreSpec();
  if (isPostgresUrl(name) || isPostgresUrl(fallback)) return storeName(fallback) === name;
  return resolve(fallback) === resolve(name);
}
