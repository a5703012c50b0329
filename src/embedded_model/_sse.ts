/**
 * Server-Sent Events as the OpenAI APIs send them, and the deterministic chunking of the
 * text and arguments a stream carries.
 *
 * @module
 */

/** One server-sent event: an optional `event:` name and its `data:` line. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** How many characters one text delta carries at most. */
export const TEXT_CHUNK = 24;
/** How many characters one arguments delta carries at most. */
export const ARGUMENTS_CHUNK = 16;

/**
 * Splits a text into the pieces a stream sends: at most `size` characters, broken after a
 * space when the window has one, so deltas look word-wise. Joined, the pieces are the text.
 */
export function chunkText(text: string, size: number): string[] {
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const space = rest.lastIndexOf(" ", size - 1);
    const end = space > 0 ? space + 1 : size;
    pieces.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

/**
 * An HTTP response streaming `events` as SSE, one event per pull, waiting `delayMs` between
 * events when it is above 0. A client that goes away stops the stream.
 */
export function sseResponse(events: readonly SseEvent[], delayMs: number): Response {
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const event = events[next++];
      if (event === undefined) {
        controller.close();
        return;
      }
      if (delayMs > 0 && next > 1) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const head = event.event === undefined ? "" : `event: ${event.event}\n`;
      controller.enqueue(encoder.encode(`${head}data: ${event.data}\n\n`));
    },
    cancel() {
      next = events.length;
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
    },
  });
}
