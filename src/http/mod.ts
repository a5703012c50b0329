/**
 * HTTP building blocks: Server-Sent Events, JSON responses and bodies, the error that carries
 * a status, and a server whose connections must send their headers in time. The server's
 * routes and the embedded model both stand on them.
 *
 * @module
 */
export * from "./_sse.ts";
export * from "./_json.ts";
export * from "./_front.ts";
