/**
 * JSON over HTTP: responses, request bodies, and the one error type that carries an HTTP
 * status, turned into a response in one place.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";

/** A JSON response. */
export function jsonResponse(status: number, body: unknown, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...Object.fromEntries(new Headers(headers)) },
  });
}

/** A request that cannot be answered as asked: its status and what to tell the client. */
export class HttpError extends TurnlogError {
  /** The HTTP status. */
  readonly status: number;
  /** An error with `status` (4xx: the request's fault; 5xx: the server's). */
  constructor(status: number, message: string, options?: ErrorOptions) {
    super(status >= 500 ? "internal" : "usage", message, options);
    this.name = "HttpError";
    this.status = status;
  }

  /** The JSON body of the response: `{ "error": message }`. */
  toBody(): unknown {
    return { error: this.message };
  }
}

/**
 * The response for anything a handler threw: an {@linkcode HttpError}'s own status and body,
 * else a 500 made by `internal` (the message of an unexpected error is not for clients).
 */
export function errorResponse(
  error: unknown,
  internal: (error: unknown) => HttpError = () => new HttpError(500, "Internal server error"),
): Response {
  const known = error instanceof HttpError ? error : internal(error);
  return jsonResponse(known.status, known.toBody());
}

/**
 * A request's body parsed as JSON.
 *
 * @throws {HttpError} 400 with `message` when the body is not JSON
 */
export async function readJsonBody(
  request: Request,
  message = "The body is not valid JSON",
): Promise<unknown> {
  try {
    return JSON.parse(await request.text());
  } catch {
    throw new HttpError(400, message);
  }
}
