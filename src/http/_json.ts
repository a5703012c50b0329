/**
 * JSON over HTTP: responses, request bodies, and the one error type that carries an HTTP
 * status, turned into a response in one place.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { concatBytes } from "../io/mod.ts";

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
    new HttpError(413, `The request body is larger than this server takes (${maxBytes} bytes)`);
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
    throw new HttpError(400, options.message ?? "The body is not valid JSON");
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
    throw new HttpError(400, `Malformed %-escape in the path: ${JSON.stringify(segment)}`);
  }
}
