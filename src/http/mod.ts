/**
 * HTTP building blocks: Server-Sent Events, JSON responses and bodies, and the error that
 * carries a status. The server's routes and the embedded model both stand on them.
 *
 * @module
 */
export * from "./_sse.ts";
export * from "./_json.ts";
