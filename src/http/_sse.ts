/**
 * Server-Sent Events: one writer for every stream turnlog serves (the agent route and the
 * embedded model's answers).
 *
 * @module
 */

/** One server-sent event: an optional `event:` name and `id:`, and its data. */
export interface SseEvent {
  /** The event name (no newline). */
  event?: string | undefined;
  /** The event id (no newline). */
  id?: string | undefined;
  /** The data; a newline in it becomes a second `data:` line, as the format wants. */
  data: string;
}

/**
 * One event in the wire format: `event:`, `id:` and `data:` lines, then a blank line.
 *
 * @throws {RangeError} when the event name or id holds a newline, which would end the field
 *
 * @example
 * ```ts
 * import { assertEquals } from "node:assert/strict";
 * import { formatSse } from "./_sse.ts";
 * assertEquals(formatSse({ event: "ping", data: "a\nb" }), "event: ping\ndata: a\ndata: b\n\n");
 * ```
 */
export function formatSse(event: SseEvent): string {
  for (const field of ["event", "id"] as const) {
    if (/[\r\n]/.test(event[field] ?? "")) {
      throw new RangeError(
        `An SSE ${field} cannot hold a newline: ${JSON.stringify(event[field])}`,
      );
    }
  }
  const head = (event.event === undefined ? "" : `event: ${event.event}\n`) +
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
  events: Iterable<SseEvent> | AsyncIterable<SseEvent>,
  options: SseOptions = {},
): Response {
  const encoder = new TextEncoder();
  const iterator = Symbol.asyncIterator in events
    ? events[Symbol.asyncIterator]()
    : (events as Iterable<SseEvent>)[Symbol.iterator]();
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
