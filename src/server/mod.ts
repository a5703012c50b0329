/**
 * The server's routes: `POST /api/agent/stream` runs a turn and streams its events as
 * Server-Sent Events, and approvals are answered over HTTP. Request handlers only: they take
 * a `Request` and return a `Response`; `cli/serve.ts` puts them on a port.
 *
 * @module
 */
export * from "./_agent_route.ts";
