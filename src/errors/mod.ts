/**
 * turnlog's errors: one base class whose `kind` says what went wrong, and one table that maps
 * each kind to a command's exit code, a run's failure kind and an HTTP response's status.
 *
 * @module
 */

/** What went wrong, as commands and runs tell errors apart. */
export type ErrorKind =
  /** The command line cannot be run as given. */
  | "usage"
  /** An id that is not a plain id, or no session (or file) by that name. */
  | "not_found"
  /** An id prefix that matches several sessions. */
  | "ambiguous"
  /** Another run holds the session's lock. */
  | "in_use"
  /** The session file cannot be used as it is. */
  | "session_file"
  /** The workspace folder is missing or unusable. */
  | "workspace"
  /** The model request failed or its answer broke off. */
  | "model"
  /** The session store cannot be reached or used (a database down, restarted, too new). */
  | "store"
  /** The run or the tool was cancelled. */
  | "cancelled"
  /** Anything else: a bug, or the machine (disk full, permissions). */
  | "internal"
  /** A request without the credentials the server asks for (HTTP 401). */
  | "unauthenticated"
  /** A request the server refuses to whoever sends it (a foreign Host or Origin, a run's token). */
  | "forbidden"
  /** A request with a method the route does not answer. */
  | "method_not_allowed"
  /** A request larger than the server takes. */
  | "too_large";

/** Every error kind, in the order {@linkcode ErrorKind} lists them. */
export const ERROR_KINDS = [
  "usage",
  "not_found",
  "ambiguous",
  "in_use",
  "session_file",
  "workspace",
  "model",
  "store",
  "cancelled",
  "internal",
  "unauthenticated",
  "forbidden",
  "method_not_allowed",
  "too_large",
] as const satisfies readonly ErrorKind[];

/** Why a run failed, as its `run_failed` event says. */
export type RunFailureKind = "session" | "workspace" | "model" | "internal";

/** Every run failure kind, in the order the events schema lists them. */
export const RUN_FAILURE_KINDS = [
  "session",
  "workspace",
  "model",
  "internal",
] as const satisfies readonly RunFailureKind[];

/** How one kind of error ends a command, a run and an HTTP request. */
export interface ErrorOutcome {
  /** The process exit code of a command that ends with it. */
  exitCode: number;
  /** The `kind` of the `run_failed` event of a run that ends with it. */
  failure: RunFailureKind;
  /** The status of an HTTP response that answers a request with it. */
  httpStatus: number;
}

/**
 * The one table from error kinds to exit codes, run failure kinds and HTTP statuses. Exit
 * codes: 0 done, 1 a failure to retry or look into (the run failed, the session is in use, the
 * store cannot be reached, problems found), 2 a command that cannot work as given (usage,
 * unknown or ambiguous session, an unusable file or workspace), 130 cancelled. HTTP: 4xx the
 * request's fault (300: an ambiguous prefix, answered with the choices), 5xx the server's or
 * what it stands on (502 the model, 503 the store); 499 a request cancelled before its answer.
 * The last four kinds are refusals only a request meets (401, 403, 405, 413); a command that
 * met one would have been given something it cannot work with (2). Every HTTP response of an
 * error takes its status from here (`src/http/`'s `errorResponse` and `HttpError`).
 */
export const ERROR_OUTCOMES: Readonly<Record<ErrorKind, ErrorOutcome>> = {
  usage: { exitCode: 2, failure: "internal", httpStatus: 400 },
  not_found: { exitCode: 2, failure: "session", httpStatus: 404 },
  ambiguous: { exitCode: 2, failure: "session", httpStatus: 300 },
  in_use: { exitCode: 1, failure: "session", httpStatus: 409 },
  session_file: { exitCode: 2, failure: "session", httpStatus: 422 },
  workspace: { exitCode: 2, failure: "workspace", httpStatus: 422 },
  model: { exitCode: 1, failure: "model", httpStatus: 502 },
  store: { exitCode: 1, failure: "session", httpStatus: 503 },
  cancelled: { exitCode: 130, failure: "internal", httpStatus: 499 },
  internal: { exitCode: 1, failure: "internal", httpStatus: 500 },
  unauthenticated: { exitCode: 2, failure: "internal", httpStatus: 401 },
  forbidden: { exitCode: 2, failure: "internal", httpStatus: 403 },
  method_not_allowed: { exitCode: 2, failure: "internal", httpStatus: 405 },
  too_large: { exitCode: 2, failure: "internal", httpStatus: 413 },
};

/**
 * The base of every turnlog error: a message for a person (a capital first, no trailing
 * period, naming the thing) and the `kind` the table maps.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { outcomeOf, TurnlogError } from "./mod.ts";
 * const error = new TurnlogError("in_use", "Session is in use");
 * assert.deepEqual(outcomeOf(error), { exitCode: 1, failure: "session", httpStatus: 409 });
 * ```
 */
export class TurnlogError extends Error {
  /** What went wrong. */
  readonly kind: ErrorKind;
  /** An error of `kind` with `message`. */
  constructor(kind: ErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TurnlogError";
    this.kind = kind;
  }
}

/**
 * The error kind of anything thrown: a turnlog error's own; `not_found` for a path that names
 * no file (missing, a symlink loop, a file where a folder should be); else `internal`.
 */
export function errorKind(error: unknown): ErrorKind {
  if (error instanceof TurnlogError) return error.kind;
  const noFile = error instanceof Deno.errors.NotFound ||
    error instanceof Deno.errors.FilesystemLoop || error instanceof Deno.errors.NotADirectory;
  return noFile ? "not_found" : "internal";
}

/** How anything thrown ends a command and a run, from {@linkcode ERROR_OUTCOMES}. */
export function outcomeOf(error: unknown): ErrorOutcome {
  return ERROR_OUTCOMES[errorKind(error)];
}

/** The system's "(os error 2): open '/x'" tail, which says the path in a programmer's way. */
const OS_ERROR = /^(.+?) \(os error \d+\)(?:: \w+ '(.*)')?$/s;

/**
 * The message of anything thrown, for a person: a system error says what and where
 * ("No such file or directory: /x") without the OS error number and call.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorMessage } from "./mod.ts";
 * const error = new Deno.errors.NotFound("No such file or directory (os error 2): open '/x.jsonl'");
 * assert.equal(errorMessage(error), "No such file or directory: /x.jsonl");
 * ```
 */
export function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const os = OS_ERROR.exec(message);
  if (!os) return message;
  return os[2] === undefined ? os[1]! : `${os[1]}: ${os[2]}`;
}

/** A session a prefix matches: its id, its file (or `<store>#<id>`) and its creation time. */
export interface SessionCandidate {
  /** The session id. */
  id: string;
  /** The session file's path; in a database store, `<store's name>#<id>`. */
  path: string;
  /** Creation time, ISO 8601. */
  createdAt: string;
}

/** No session has this id or id prefix. */
export class SessionNotFoundError extends TurnlogError {
  /** The id or prefix looked for. */
  readonly sessionId: string;
  /** An error naming the id and the root searched. */
  constructor(sessionId: string, root: string, options?: ErrorOptions) {
    super(
      "not_found",
      `Session not found: no session with id or prefix "${sessionId}" in ${root}`,
      options,
    );
    this.name = "SessionNotFoundError";
    this.sessionId = sessionId;
  }
}

/**
 * An id prefix that matches more than one session, or one session id that more than one file
 * holds (a session restored for another project beside its original): those are listed by path.
 */
export class AmbiguousSessionError extends TurnlogError {
  /** The sessions the prefix matches. */
  readonly candidates: SessionCandidate[];
  /** Every candidate has the same id: no more of it tells them apart, their paths do. */
  readonly sameId: boolean;
  /** An error listing the sessions the prefix matches. */
  constructor(prefix: string, candidates: SessionCandidate[], options?: ErrorOptions) {
    const sameId = candidates.every((c) => c.id === candidates[0]?.id);
    const listed = candidates.map((c) => `  ${sameId ? c.path : `${c.id}  ${c.createdAt}`}`)
      .join("\n");
    super(
      "ambiguous",
      sameId
        ? `Session ${candidates[0]?.id} is in ${candidates.length} files:\n${listed}`
        : `Ambiguous session id "${prefix}": it matches ${candidates.length} sessions:\n${listed}`,
      options,
    );
    this.name = "AmbiguousSessionError";
    this.candidates = candidates;
    this.sameId = sameId;
  }
}

/**
 * Neither HOME nor a variable of its own names the folder a command needs (a tool's home,
 * turnlog's data folder). Its `hint` is the line that says what to set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HomeUnsetError } from "./mod.ts";
 * const error = new HomeUnsetError("Claude Code's home", ["CLAUDE_CONFIG_DIR", "HOME"]);
 * assert.equal(
 *   error.message,
 *   "HOME is unset, so nothing names Claude Code's home (the current folder is not used " +
 *     "instead): set CLAUDE_CONFIG_DIR or HOME",
 * );
 * assert.equal(error.kind, "usage");
 * ```
 */
export class HomeUnsetError extends TurnlogError {
  /** The variables that name the folder, in the order they are read. */
  readonly variables: readonly string[];
  /** What to do, in one line. */
  readonly hint: string;
  /** An error for `what` (`Claude Code's home`), which `variables` name. */
  constructor(what: string, variables: readonly string[], options?: ErrorOptions) {
    const named = variables.length > 1
      ? `${variables.slice(0, -1).join(", ")} or ${variables.at(-1)}`
      : variables[0] ?? "HOME";
    super(
      "usage",
      `HOME is unset, so nothing names ${what} (the current folder is not used instead): set ${named}`,
      options,
    );
    this.name = "HomeUnsetError";
    this.variables = variables;
    this.hint = `Set ${named} (a cron job or a systemd unit may run without HOME).`;
  }
}
