/**
 * A PostgreSQL store's URL as turnlog reads and shows it: told apart from a folder, shown
 * without its password, and its password kept out of every message. Light on purpose: the
 * store opener uses it without loading the database client.
 *
 * @module
 */

/** True for a `postgres://` or `postgresql://` URL. */
export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/**
 * The URL to show for a database: scheme, user, host, port and database, without the password
 * or the query (a query may carry a password too). With the password given apart (`PGPASSWORD`,
 * `~/.pgpass`), it connects as the full URL does, so commands turnlog prints may show it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { displayUrl } from "./_postgres_url.ts";
 * const shown = displayUrl("postgres://app:s3cret@db.internal:6432/turnlog?sslmode=require");
 * assert.equal(shown, "postgres://app@db.internal:6432/turnlog");
 * ```
 */
export function displayUrl(url: string): string {
  const match = /^(postgres(?:ql)?):\/\/(?:([^@/?#:]*)(?::[^@/?#]*)?@)?([^/?#]*)(\/[^?#]*)?/i.exec(
    url,
  );
  if (!match) return "postgres://(invalid URL)";
  const user = match[2] ? `${match[2]}@` : "";
  const database = match[4] ?? "/";
  const socket = /[?&]host=([^&#]*)/i.exec(url)?.[1];
  const hosts = match[3] || (socket === undefined ? "localhost" : decodeURIComponent(socket));
  if (hosts.startsWith("/")) return `postgres://${user}localhost${database}?host=${hosts}`;
  const withPort = hosts.split(",").map((h) => (/:\d+$|^\[.*\]:\d+$/.test(h) ? h : `${h}:5432`));
  return `postgres://${user}${withPort.join(",")}${database}`;
}

/** The password a URL carries, if any, so it can be kept out of every message. */
export function urlPassword(url: string): string | undefined {
  const match = /^postgres(?:ql)?:\/\/[^:@/]*:([^@/]*)@/i.exec(url);
  const fromQuery = /[?&]password=([^&#]*)/i.exec(url);
  const raw = match?.[1] ?? fromQuery?.[1];
  if (raw === undefined || raw === "") return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Replaces every occurrence of `secret` in `text`, so no message ever shows a password. */
export function scrub(text: string, secret: string | undefined): string {
  return secret === undefined || secret === "" ? text : text.replaceAll(secret, "***");
}
