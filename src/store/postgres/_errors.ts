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
