/**
 * What can go wrong between turnlog and its PostgreSQL database, said in one line that names the
 * database by a URL without its password.
 *
 * @module
 */
import { TurnlogError } from "../../errors/mod.ts";

/** The database cannot be reached, or the connection to it broke; nothing half-written stays. */
export class SessionStoreUnreachableError extends TurnlogError {
  /** The store's URL without password. */
  readonly store: string;
  /** `store`: the URL without password; `reason`: what failed, in a few words. */
  constructor(store: string, reason: string, options?: ErrorOptions) {
    super("store", `Could not reach the session store at ${store}: ${reason}`, options);
    this.name = "SessionStoreUnreachableError";
    this.store = store;
  }
}

/**
 * A writer's lock ended with its connection (a database restart, a terminated backend) and
 * could not be taken back as it was: another run may have written since. Nothing more is
 * written through this writer.
 */
export class SessionLockLostError extends TurnlogError {
  /** `path`: the session's location path; `reason`: why the lock could not be taken back. */
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(
      "store",
      `Session lock lost: the connection that held the lock on ${path} was closed and ${reason}; resume the session to continue`,
      options,
    );
    this.name = "SessionLockLostError";
  }
}

/** The database's tables were made by a newer turnlog than this one. */
export class SessionStoreVersionError extends TurnlogError {
  /** `found`: the database's schema version; `known`: the newest this code knows. */
  constructor(store: string, found: number, known: number, options?: ErrorOptions) {
    super(
      "store",
      `Session store too new: ${store} has schema version ${found}, this turnlog knows up to ${known}`,
      options,
    );
    this.name = "SessionStoreVersionError";
  }
}

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
 * import { displayUrl } from "./_errors.ts";
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

const CLOSED = "the connection was closed (did the server stop or restart?)";

const NETWORK_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "connection refused (is the server running?)",
  ECONNRESET: "the connection was reset (did the server stop or restart?)",
  EPIPE: CLOSED,
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
};

/** node-postgres's own messages for a connection that ended or never came. */
const CLIENT_MESSAGES: readonly [RegExp, string][] = [
  [/^Connection terminated unexpectedly|is not queryable|^Connection terminated$/, CLOSED],
  [/connection timeout|timeout exceeded when trying to connect/i, "timed out connecting"],
  [
    /client password must be a string/,
    "the server wants a password and none was given (put it in the URL, PGPASSWORD or ~/.pgpass)",
  ],
];

/**
 * SQLSTATEs that mean the session (not the statement) failed: connection exceptions (class 08),
 * shutdown or restart (57P01-57P03), a missing database, failed authentication, no free slots.
 */
const SESSION_STATES = /^(08...|57P0[123]|3D000|28000|28P01|53300)$/;

/**
 * Why the connection failed, in a few words, or undefined when `error` is not about the
 * connection (a statement's own error, a bug).
 */
export function connectionProblem(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if ("severity" in error) {
    return typeof code === "string" && SESSION_STATES.test(code) ? error.message : undefined;
  }
  if (typeof code === "string" && NETWORK_CODES[code] !== undefined) return NETWORK_CODES[code];
  if (error instanceof AggregateError) return connectionProblem(error.errors[0]);
  for (const [pattern, problem] of CLIENT_MESSAGES) {
    if (pattern.test(error.message)) return problem;
  }
  return undefined;
}

/** Replaces every occurrence of `secret` in `text`, so no message ever shows a password. */
export function scrub(text: string, secret: string | undefined): string {
  return secret === undefined || secret === "" ? text : text.replaceAll(secret, "***");
}
