/**
 * The HTTP face: the agent route that streams a turn's events as Server-Sent Events.
 *
 * @module
 */
export * from "./_agent_route.ts";
