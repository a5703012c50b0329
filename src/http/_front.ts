/**
 * An HTTP server whose connections must send their request headers within a bounded time:
 * `Deno.serve` has no such limit, so a client that dribbles its headers a byte at a time holds
 * a connection for ever. A front on the TCP port reads each connection's head with a
 * deadline, then passes the connection on, byte for byte, to a `Deno.serve` on a Unix socket
 * in a private temp folder. Each connection carries one request (the head it passes on says
 * `Connection: close`), so every request's head is read under the deadline.
 *
 * @module
 */
import { concatBytes, writeAll } from "../io/mod.ts";

/** Options of {@linkcode serveHttp}. */
export interface ServeHttpOptions {
  /** The interface to listen on. @default "127.0.0.1" */
  hostname?: string | undefined;
  /** The port; 0 is any free one. */
  port: number;
  /**
   * Milliseconds a connection has to send its request line and headers, from when it is
   * taken; past it the connection gets a 408 and is closed. @default 10_000
   */
  headersTimeoutMs?: number | undefined;
  /** The largest request head taken, in bytes; a larger one gets a 431. @default 65536 */
  maxHeadBytes?: number | undefined;
  /** Called once it listens, before any request is taken. */
  onListen?: ((addr: Deno.NetAddr) => void) | undefined;
}

/** A server started by {@linkcode serveHttp}. */
export interface ServedHttp {
  /** The address it listens on (the port chosen when 0 was asked). */
  addr: Deno.NetAddr;
  /** Stops taking connections, then waits for the requests in flight to be answered. */
  shutdown(): Promise<void>;
  /** Settles when the server has stopped. */
  finished: Promise<void>;
  /** Removes the socket's private folder at once: for a process that exits without a shutdown. */
  removeSocketSync(): void;
}

const CRLF = new Uint8Array([13, 10]);
/** Request headers a connection passed on must not keep: it carries one request. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "proxy-connection"]);
const encoder = new TextEncoder();

/** A one-line answer for a connection whose head was not taken; the connection then closes. */
function refusal(status: string, message: string): Uint8Array {
  const body = `${message}\n`;
  return encoder.encode(
    `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${encoder.encode(body).length}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Where the head ends in `bytes` (just past its blank line), or -1. */
function headEnd(bytes: Uint8Array, from: number): number {
  for (let at = Math.max(0, from - 3); at < bytes.length; at++) {
    if (bytes[at] !== 10) continue;
    if (bytes[at + 1] === 10) return at + 2;
    if (bytes[at + 1] === 13 && bytes[at + 2] === 10) return at + 3;
  }
  return -1;
}

/** What a connection sent before its head ended: the head and the bytes after it. */
interface Head {
  head: Uint8Array;
  rest: Uint8Array;
}

/** Reads until the head's blank line; undefined when the connection ended first. */
async function readHead(
  conn: Deno.Conn,
  maxBytes: number,
): Promise<Head | "too large" | undefined> {
  let bytes: Uint8Array = new Uint8Array(0);
  const buffer = new Uint8Array(4096);
  while (true) {
    const read = await conn.read(buffer);
    if (read === null) return undefined;
    const grown = concatBytes([bytes, buffer.subarray(0, read)]);
    const end = headEnd(grown, bytes.length);
    bytes = grown;
    if (end !== -1) return { head: bytes.subarray(0, end), rest: bytes.subarray(end) };
    if (bytes.length > maxBytes) return "too large";
  }
}

/** The lines of a head, without their line ends (the blank line dropped). */
function headLines(head: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let at = head.indexOf(10); at !== -1; at = head.indexOf(10, start)) {
    const end = at > start && head[at - 1] === 13 ? at - 1 : at;
    if (end > start) lines.push(head.subarray(start, end));
    start = at + 1;
  }
  return lines;
}

/**
 * The head passed on: the request line and headers as sent, less the connection's own
 * headers, with `Connection: close`, and a `Host` when an HTTP/1.0 client sent none (as
 * `Deno.serve` names such a request's URL). Undefined when it is not an HTTP/1 request.
 */
function passedHead(head: Uint8Array, port: number): Uint8Array | undefined {
  const [requestLine, ...headers] = headLines(head);
  const line = new TextDecoder().decode(requestLine);
  if (!/^[A-Z]+ \S+ HTTP\/1\.[01]$/.test(line)) return undefined;
  const kept: Uint8Array[] = [requestLine!];
  let host = false;
  for (const header of headers) {
    const colon = header.indexOf(58);
    const name = new TextDecoder().decode(header.subarray(0, Math.max(0, colon))).trim()
      .toLowerCase();
    if (HOP_HEADERS.has(name)) continue;
    if (name === "host") host = true;
    kept.push(header);
  }
  if (!host) kept.push(encoder.encode(`Host: localhost:${port}`));
  kept.push(encoder.encode("Connection: close"), new Uint8Array(0), new Uint8Array(0));
  return concatBytes(kept.flatMap((part, index) => index === 0 ? [part] : [CRLF, part]));
}

/**
 * Copies `from` to `to` in pieces of up to `size` bytes until `from` ends or either side
 * fails. The buffers are small: a thousand idle live pages hold two each.
 */
async function pump(from: Deno.Conn, to: Deno.Conn, size: number): Promise<void> {
  const buffer = new Uint8Array(size);
  try {
    for (let read = await from.read(buffer); read !== null; read = await from.read(buffer)) {
      await writeAll(to, buffer.subarray(0, read));
    }
  } catch {
    // A side went away: the connection is over.
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed.
  }
}

/** The parts of a connection's life that depend on the server. */
interface Passing {
  port: number;
  socket: string;
  headersTimeoutMs: number;
  maxHeadBytes: number;
  /** The connections still sending their heads (closed when the server stops). */
  reading: Set<Deno.Conn>;
}

/** The connection's head, read under the deadline; undefined when it did not come in time. */
async function headInTime(conn: Deno.Conn, passing: Passing) {
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    const seconds = passing.headersTimeoutMs / 1000;
    conn.write(refusal("408 Request Timeout", `The request headers took over ${seconds} s`))
      .catch(() => {}).finally(() => closeQuietly(conn));
  }, passing.headersTimeoutMs);
  passing.reading.add(conn);
  try {
    const read = await readHead(conn, passing.maxHeadBytes);
    return late ? undefined : read;
  } catch {
    return undefined; // Closed by the deadline or the server's stop, or reset by the client.
  } finally {
    clearTimeout(timer);
    passing.reading.delete(conn);
  }
}

/** One client connection: its head read under the deadline, then passed on to the socket. */
async function passOn(conn: Deno.Conn, passing: Passing): Promise<void> {
  const read = await headInTime(conn, passing);
  if (read === undefined) return closeQuietly(conn);
  const head = read === "too large" ? undefined : passedHead(read.head, passing.port);
  if (head === undefined || read === "too large") {
    const answer = read === "too large"
      ? refusal("431 Request Header Fields Too Large", "The request headers are too large")
      : refusal("400 Bad Request", "Not an HTTP/1 request");
    await writeAll(conn, answer).catch(() => {});
    return closeQuietly(conn);
  }
  let inner: Deno.Conn;
  try {
    inner = await Deno.connect({ transport: "unix", path: passing.socket });
  } catch {
    return closeQuietly(conn); // The server is stopping.
  }
  try {
    await writeAll(inner, concatBytes([head, read.rest]));
    // One direction ending (the answer sent, or the client gone) ends the connection, as
    // `Deno.serve` ends one whose client stops sending.
    await Promise.race([pump(conn, inner, 4096), pump(inner, conn, 16_384)]);
  } catch {
    // A side went away.
  } finally {
    closeQuietly(conn);
    closeQuietly(inner);
  }
}

/** Where a request that is not under a Host a URL can hold is said to be: no name of serve's. */
const UNNAMED_HOST = "host.invalid";

/**
 * The path and query of a request `Deno.serve` took on the socket: its URL is
 * `http+unix://<Host header><path>`, or the socket's own (escaped) path for an empty Host.
 */
function targetOf(url: string, host: string | null): string {
  const rest = url.slice("http+unix://".length);
  if (host && rest.startsWith(host)) return rest.slice(host.length);
  const slash = rest.indexOf("/");
  return slash === -1 ? "/" : rest.slice(slash);
}

/**
 * A request as `Deno.serve` on TCP gives it: `http:` rather than the socket's `http+unix:`.
 * A Host that no URL can hold (empty, `127.0.0.1:8787.`, `a b`) names `host.invalid` in the
 * URL instead, its `Host` header unchanged, so the handler refuses it in its own words rather
 * than the URL failing with a stack and the socket's path.
 */
function asTcp(request: Request): Request {
  const scheme = "http+unix:";
  if (!request.url.startsWith(scheme)) return request;
  let url: URL;
  try {
    url = new URL(`http:${request.url.slice(scheme.length)}`);
    if (url.host !== request.headers.get("host")?.toLowerCase()) throw new TypeError("Host");
  } catch {
    url = new URL(targetOf(request.url, request.headers.get("host")), `http://${UNNAMED_HOST}`);
  }
  // Not `new Request(url, request)`: that reads `request.signal`, which Deno warns of.
  const { method, headers, body } = request;
  return new Request(url, {
    method,
    headers,
    body,
    ...(body === null ? {} : { duplex: "half" }),
  } as RequestInit);
}

/**
 * Serves `handler` on a TCP port, closing every connection that has not sent its request
 * head within `headersTimeoutMs` (a 408 first). What the handler sees is what `Deno.serve`
 * gives it, but each connection carries one request.
 *
 * @example
 * ```ts ignore
 * const server = await serveHttp({ port: 0, headersTimeoutMs: 5000 }, () => new Response("ok"));
 * await server.shutdown();
 * ```
 */
export async function serveHttp(
  options: ServeHttpOptions,
  handler: (request: Request) => Response | Promise<Response>,
): Promise<ServedHttp> {
  const folder = await Deno.makeTempDir({ prefix: "turnlog-serve-" });
  const socket = `${folder}/http.sock`;
  const inner = Deno.serve({ path: socket, onListen() {} }, (request) => handler(asTcp(request)));
  let listener: Deno.TcpListener;
  try {
    listener = Deno.listen({ hostname: options.hostname ?? "127.0.0.1", port: options.port });
  } catch (error) {
    await inner.shutdown();
    await Deno.remove(folder, { recursive: true });
    throw error;
  }
  const passing: Passing = {
    port: listener.addr.port,
    socket,
    headersTimeoutMs: options.headersTimeoutMs ?? 10_000,
    maxHeadBytes: options.maxHeadBytes ?? 65_536,
    reading: new Set(),
  };
  options.onListen?.(listener.addr);
  const accepting = (async () => {
    try {
      for await (const conn of listener) passOn(conn, passing);
    } catch {
      // The listener was closed.
    }
  })();
  let stopped: Promise<void> | undefined;
  const shutdown = () =>
    stopped ??= (async () => {
      listener.close();
      await accepting;
      for (const conn of passing.reading) closeQuietly(conn);
      await inner.shutdown();
      await Deno.remove(folder, { recursive: true }).catch(() => {});
    })();
  return {
    addr: listener.addr,
    shutdown,
    finished: inner.finished.then(() => stopped),
    removeSocketSync: () => Deno.removeSync(folder, { recursive: true }),
  };
}
