/**
 * Who serve answers. Every request must name a Host serve serves (a loopback name, or one it
 * was given), which a page whose name rebinds to 127.0.0.1 cannot; a request that changes
 * state must also come from serve's own origin and carry JSON, which a page on another origin
 * cannot send without a preflight serve never grants.
 *
 * @module
 */

/** Which Hosts serve answers. */
export interface AccessOptions {
  /**
   * The port serve listens on: a loopback Host must carry it. Absent: a loopback name on any
   * port (a handler that does not know its port).
   */
  port?: number | undefined;
  /**
   * Host names served besides the loopback ones (`serve --allow-host`): `name` on any port,
   * or `name:port` on that port only.
   */
  allowedHosts?: readonly string[] | undefined;
}

/** The names a loopback Host may have. */
export const LOOPBACK_NAMES: readonly string[] = ["127.0.0.1", "localhost", "[::1]"];

/** A Host header's value as a name and a port. */
export interface HostName {
  /** The name or address, lower case (an IPv6 address in brackets). */
  hostname: string;
  /** The port; "" when the value names none (the scheme's default). */
  port: string;
}

/** `value` as a Host (a name, an optional port, nothing else), or undefined. */
export function parseHost(value: string): HostName | undefined {
  if (value === "" || /[\s/?#@\\]/.test(value)) return undefined;
  try {
    const url = new URL(`http://${value}`);
    return { hostname: url.hostname, port: url.port };
  } catch {
    return undefined;
  }
}

function served(host: HostName, options: AccessOptions): boolean {
  const port = options.port === undefined || Number(host.port || 80) === options.port;
  if (LOOPBACK_NAMES.includes(host.hostname) && port) return true;
  return (options.allowedHosts ?? []).some((allowed) => {
    const name = parseHost(allowed);
    if (name === undefined || name.hostname !== host.hostname) return false;
    return !allowed.includes(":", allowed.lastIndexOf("]") + 1) || name.port === host.port;
  });
}

function hostRefusal(host: string, options: AccessOptions): string {
  const port = options.port === undefined ? "" : ` on port ${options.port}`;
  return `Host ${JSON.stringify(host)} is not served here: serve answers ` +
    `${LOOPBACK_NAMES.join(", ")}${port} and the names given with --allow-host`;
}

/** The Host the request names: its `Host` header, else its URL's (a request built in code). */
function hostOf(request: Request): string {
  return request.headers.get("host") ?? new URL(request.url).host;
}

const SAFE_METHODS = ["GET", "HEAD"];

/** Why a request that changes state is refused, or undefined. */
function originRefusal(request: Request, host: string): string | undefined {
  const because = "serve takes requests that change state only from its own origin";
  const site = request.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin") {
    return `Sec-Fetch-Site is ${JSON.stringify(site)}: ${because}`;
  }
  const origin = request.headers.get("origin");
  if (origin !== null) {
    const own = ownOrigin(origin, host);
    if (own !== true) return `Origin ${JSON.stringify(origin)} is not ${own}: ${because}`;
  }
  const type = request.headers.get("content-type");
  const media = type === null ? undefined : type.split(";")[0]!.trim().toLowerCase();
  if (media !== "application/json") {
    const got = type === null ? "No Content-Type" : `Content-Type ${JSON.stringify(type)}`;
    return `${got}: serve takes requests that change state only as application/json`;
  }
  return undefined;
}

/** True when `origin` is the origin of `host` (http, or https behind a proxy); else that one. */
function ownOrigin(origin: string, host: string): true | string {
  const mine = `http://${host}`;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return mine;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return mine;
  // The same host under the origin's scheme (whose default port the URL leaves out).
  return url.origin === new URL(`${url.protocol}//${host}`).origin ? true : mine;
}

/**
 * Why serve refuses `request` (one line, answered with 403), or undefined when it may go on.
 *
 * - Its Host (the `Host` header and the URL's) must be served: a loopback name
 *   ({@linkcode LOOPBACK_NAMES}) with serve's port, or one of `allowedHosts`.
 * - A request that is not GET or HEAD must, when it says where it comes from, come from
 *   serve's own origin: `Sec-Fetch-Site`, when sent, is `same-origin`, and `Origin`, when
 *   sent, is `http://<Host>` (or `https://<Host>` behind a TLS proxy). And its
 *   `Content-Type` must be `application/json`. A request with neither header comes from a
 *   client that is not a browser (curl, a program) and is taken with JSON: a browser sends
 *   `Origin` with every cross-origin POST, and no page can send JSON to another origin
 *   without a preflight.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { accessRefusal } from "./mod.ts";
 * const post = (headers: Record<string, string>) =>
 *   new Request("http://127.0.0.1:8787/api/agent/stream", { method: "POST", headers, body: "{}" });
 * assert.equal(accessRefusal(post({ "content-type": "application/json" }), { port: 8787 }), undefined);
 * assert.match(
 *   accessRefusal(post({ "content-type": "text/plain" }), { port: 8787 })!,
 *   /^Content-Type "text\/plain": /,
 * );
 * ```
 */
export function accessRefusal(request: Request, options: AccessOptions = {}): string | undefined {
  const host = hostOf(request);
  for (const named of new Set([host, new URL(request.url).host])) {
    const parsed = parseHost(named);
    if (parsed === undefined || !served(parsed, options)) return hostRefusal(named, options);
  }
  if (SAFE_METHODS.includes(request.method)) return undefined;
  return originRefusal(request, host);
}
