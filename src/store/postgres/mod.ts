/**
 * The session store on PostgreSQL, for agents served from more than one machine: the same
 * sessions, the same single-writer rule and the same exact records as the file store, in a
 * database every instance shares. Opened from a `postgres://` URL; tables are made on first use.
 *
 * @module
 */
export { displayUrl, isPostgresUrl } from "../_postgres_url.ts";
export {
  SessionLockLostError,
  SessionStoreUnreachableError,
  SessionStoreVersionError,
} from "./_errors.ts";
export * from "./_postgres_store.ts";
