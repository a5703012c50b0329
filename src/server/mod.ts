/**
 * The server's routes: `POST /api/agent/stream` runs a turn and streams its events as
 * Server-Sent Events, approvals are answered over HTTP, and the session browser lists the
 * sessions and shows each as a live page. Request handlers only: they take a `Request` and
 * return a `Response`; `cli/serve.ts` puts them on a port.
 *
 * @module
 */
export type { SseComment, SseEvent } from "../http/mod.ts";
export * from "./_agent_route.ts";
export * from "./_browser_route.ts";
export * from "./_handler.ts";
export * from "./_session_events.ts";
