/**
 * The server's routes: `POST /api/agent/stream` runs a turn and streams its events as
 * Server-Sent Events, approvals are answered over HTTP with the run's token, and the session
 * browser lists the sessions of the store and of other tools' homes (read-only), searches
 * them, and shows each as a live page. Every request must name a Host
 * serve serves; one that changes state must come from serve's own origin as JSON. The
 * handlers take a `Request` and return a `Response`; `serveHttp` puts one on a port with a
 * deadline for each connection's headers, as `cli/serve.ts` does.
 *
 * @module
 */
export type { ServedHttp, ServeHttpOptions, SseComment, SseEvent } from "../http/mod.ts";
export { serveHttp } from "../http/mod.ts";
export * from "./_access.ts";
export * from "./_agent_route.ts";
export * from "./_browser_route.ts";
export * from "./_export_route.ts";
export * from "./_handler.ts";
export * from "./_homes.ts";
export { browsePage, type CatalogOptions, catalogSourcesOf, WRITING_MS } from "./_catalog.ts";
export { queryTerms, SEARCH_PAGE_SESSIONS } from "./_search_route.ts";
export { APPROVAL_TOKEN_HEADER } from "./_run_tokens.ts";
export * from "./_session_events.ts";
