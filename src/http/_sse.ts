/**
 * Server-Sent Events: one writer for every stream turnlog serves (the agent route and the
 * embedded model's answers).
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";

/** One server-sent event: an optional `event:` name and `id:`, and its data. */
export interface SseEvent {
  /** The event name (no newline). */
  event?: string | undefined;
  /** The event id (no newline). */
  id?: string | undefined;
  /** How many milliseconds the client waits before it reconnects (`retry:`). */
  retry?: number | undefined;
  /** The data; a newline in it becomes a second `data:` line, as the format wants. */
  data: string;
}

/**
 * A comment line (`: <text>`), which every client ignores: a keep-alive that shows a dead
 * connection to the server, and a `retry:` when the stream sets one.
 */
export interface SseComment {
  /** The comment (no newline). */
  comment: string;
  /** How many milliseconds the client waits before it reconnects (`retry:`). */
  retry?: number | undefined;
}

/**
 * One event in the wire format: `retry:`, `event:`, `id:` and `data:` lines (or a `:`
 * comment), then a blank line.
 *
 * @throws {TurnlogError} (internal) when the event name, id or comment holds a newline, which would end
 * the field, or `retry` is not a whole number of milliseconds
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatSse } from "./mod.ts";
 * assert.deepEqual(formatSse({ event: "ping", data: "a\nb" }), "event: ping\ndata: a\ndata: b\n\n");
 * assert.deepEqual(formatSse({ comment: "ping" }), ": ping\n\n");
 * ```
 */
export function formatSse(event: SseEvent | SseComment): string {
  const named = "comment" in event
    ? { comment: event.comment }
    : { event: event.event, id: event.id };
  for (const [field, value] of Object.entries(named)) {
    if (/[\r\n]/.test(value ?? "")) {
      throw new TurnlogError(
        "internal",
        `An SSE ${field} cannot hold a newline: ${JSON.stringify(value)}`,
      );
    }
  }
  if (event.retry !== undefined && !(Number.isInteger(event.retry) && event.retry >= 0)) {
    throw new TurnlogError(
      "internal",
      `An SSE retry must be a whole number of milliseconds: ${event.retry}`,
    );
  }
  const retry = event.retry === undefined ? "" : `retry: ${event.retry}\n`;
  if ("comment" in event) return `${retry}: ${event.comment}\n\n`;
  const head = retry + (event.event === undefined ? "" : `event: ${event.event}\n`) +
    (event.id === undefined ? "" : `id: ${event.id}\n`);
  return `${head}${event.data.split(/\r?\n/).map((line) => `data: ${line}\n`).join("")}\n`;
}

/** Options of {@linkcode sseResponse}. */
export interface SseOptions {
  /** A pause before every event but the first, in milliseconds; default 0. */
  delayMs?: number;
  /** Called when the client goes away before the events end. */
  onCancel?: () => void | Promise<void>;
  /** More response headers. */
  headers?: Record<string, string>;
}

/**
 * An HTTP response that streams `events` as SSE, one event per pull (nothing runs ahead of
 * the client). A client that goes away stops the stream and calls `onCancel`.
 */
export function sseResponse(
  events: Iterable<SseEvent | SseComment> | AsyncIterable<SseEvent | SseComment>,
  options: SseOptions = {},
): Response {
  const encoder = new TextEncoder();
  const iterator = Symbol.asyncIterator in events
    ? events[Symbol.asyncIterator]()
    : (events as Iterable<SseEvent | SseComment>)[Symbol.iterator]();
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) return controller.close();
      if (!first && (options.delayMs ?? 0) > 0) {
        await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      }
      first = false;
      controller.enqueue(encoder.encode(formatSse(next.value)));
    },
    async cancel() {
      await options.onCancel?.();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
      ...options.headers,
    },
  });
}
