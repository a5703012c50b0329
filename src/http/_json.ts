/**
 * JSON over HTTP: responses, request bodies, and the one error type that carries an HTTP
 * status, turned into a response in one place.
 *
 * @module
 */
import { ERROR_OUTCOMES, type ErrorKind, TurnlogError } from "../errors/mod.ts";
import { concatBytes } from "../io/mod.ts";

/** A JSON response. */
export function jsonResponse(status: number, body: unknown, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...Object.fromEntries(new Headers(headers)) },
  });
}

/**
 * A request that cannot be answered as asked: what went wrong (its `kind`) and what to tell
 * the client. Its status is the one the error table gives the kind
 * (`ERROR_OUTCOMES[kind].httpStatus`), so every error answers under the same mapping.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorResponse, HttpError } from "./mod.ts";
 * const error = new HttpError("too_large", "The body is larger than this server takes");
 * assert.equal(error.status, 413);
 * assert.equal(errorResponse(error).status, 413);
 * ```
 */
export class HttpError extends TurnlogError {
  /** An error of `kind` (one the request caused: 4xx; the server's: 5xx). */
  constructor(kind: ErrorKind, message: string, options?: ErrorOptions) {
    super(kind, message, options);
    this.name = "HttpError";
  }

  /** The HTTP status: the error table's for the kind. */
  get status(): number {
    return ERROR_OUTCOMES[this.kind].httpStatus;
  }

  /** The JSON body of the response: `{ "error": message }`. */
  toBody(): unknown {
    return { error: this.message };
  }
}

/**
 * The response for anything a handler threw, under the status the error table gives its kind:
 * an {@linkcode HttpError}'s own body; another turnlog error's message (a session not found is
 * 404, one in use 409); anything else, or an `internal` turnlog error, is made into an
 * `HttpError` by `internal` (the message of an unexpected error is not for clients).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ERROR_OUTCOMES, type ErrorKind, TurnlogError } from "../errors/mod.ts";
 * import { errorResponse } from "./mod.ts";
 * const busy = errorResponse(new TurnlogError("in_use", "Session is in use"));
 * assert.equal(busy.status, 409);
 * assert.deepEqual(await busy.json(), { error: "Session is in use" });
 * const bug = errorResponse(new TypeError("x is undefined"));
 * assert.equal(bug.status, 500);
 * assert.deepEqual(await bug.json(), { error: "Internal server error" });
 * ```
 */
export function errorResponse(
  error: unknown,
  internal: (error: unknown) => HttpError = () =>
    new HttpError("internal", "Internal server error"),
): Response {
  const known = error instanceof HttpError
    ? error
    : error instanceof TurnlogError && error.kind !== "internal"
    ? new HttpError(error.kind, error.message, { cause: error })
    : internal(error);
  return jsonResponse(known.status, known.toBody());
}

/** Options of {@linkcode readJsonBody}. */
export interface ReadBodyOptions {
  /** What a body that is not JSON is told (400). */
  message?: string;
  /** The largest body read, in bytes; a larger one is refused with 413 (default: no limit). */
  maxBytes?: number;
}

/** A request's body as text, refused (413) past `maxBytes` without reading the rest. */
async function bodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  const tooLarge = () =>
    new HttpError(
      "too_large",
      `The request body is larger than this server takes (${maxBytes} bytes)`,
    );
  if (declared > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body ?? []) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  return new TextDecoder().decode(concatBytes(chunks, size));
}

/**
 * A request's body parsed as JSON.
 *
 * @throws {HttpError} 413 when the body is larger than `maxBytes`; 400 with `message` when it
 * is not JSON
 */
export async function readJsonBody(
  request: Request,
  options: ReadBodyOptions = {},
): Promise<unknown> {
  const text = await bodyText(request, options.maxBytes ?? Number.POSITIVE_INFINITY);
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError("usage", options.message ?? "The body is not valid JSON");
  }
}

/**
 * A path segment with its `%`-escapes decoded.
 *
 * @throws {HttpError} 400 for a malformed escape (`%zz`, a lone `%`)
 */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError("usage", `Malformed %-escape in the path: ${JSON.stringify(segment)}`);
  }
}
