/**
 * Everything `serve` answers on one port: the agent routes under `/api/`, the session
 * browser everywhere else.
 *
 * @module
 */
import { type AgentHandlerOptions, createAgentHandler } from "./_agent_route.ts";
import { createSessionBrowserHandler, type SessionBrowserOptions } from "./_browser_route.ts";

/** The options of both handlers; they share `sessionsDir` and `store`. */
export interface ServerHandlerOptions extends AgentHandlerOptions, SessionBrowserOptions {}

/**
 * The request handler of `serve`: `POST /api/agent/stream` and the approvals (see
 * {@linkcode createAgentHandler}), and the session browser's pages (see
 * {@linkcode createSessionBrowserHandler}).
 */
export function createServerHandler(
  options: ServerHandlerOptions,
): (request: Request) => Promise<Response> {
  const agent = createAgentHandler(options);
  const browser = createSessionBrowserHandler(options);
  return (request) => {
    const path = new URL(request.url).pathname;
    return path === "/api" || path.startsWith("/api/") ? agent(request) : browser(request);
  };
}
