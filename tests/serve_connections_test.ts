import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { RUN_BASE, tempDir } from "./_helpers.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";
import { startServe } from "../testing/serve_process.ts";
import { escapeHtml } from "../src/html/mod.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `serve` on the scripted model with its sessions in `dir`, and `args`. */
function serveIn(dir: string, args: string[]) {
  return startServe(["--model", "scripted", "--sessions-dir", dir, ...args]);
}

/** What a raw connection to `port` read until the server closed it. */
async function readToEnd(conn: Deno.Conn): Promise<string> {
  const buffer = new Uint8Array(4096);
  let text = "";
  while (true) {
    const read = await conn.read(buffer).catch(() => null);
    if (read === null) return text;
    text += decoder.decode(buffer.subarray(0, read));
  }
}

/** A raw request to `port`: `parts` written one after another, then the whole answer. */
async function rawRequest(port: number, parts: string[], pauseMs = 0): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    for (const part of parts) {
      await conn.write(encoder.encode(part));
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return await readToEnd(conn);
  } finally {
    conn.close();
  }
}

Deno.test("serve --headers-timeout closes a connection that dribbles its headers, with a 408", async () => {
  await using dir = await tempDir();
  await using serve = await serveIn(dir.path, ["--headers-timeout", "2"]);
  const port = Number(new URL(serve.base).port);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(encoder.encode(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`));
  // One header line every 100 ms, for up to a minute; serve must end it long before.
  let sent = 0;
  const dribble = (async () => {
    for (; sent < 600; sent++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const wrote = await conn.write(encoder.encode(`X-Slow-${sent}: a\r\n`)).catch(() => 0);
      if (wrote === 0) return;
    }
  })();
  const answer = await readToEnd(conn);
  conn.close();
  await dribble;
  assert(sent < 600, "serve closed the connection before the client stopped");
  assertEquals(answer.split("\r\n")[0], "HTTP/1.1 408 Request Timeout");
  assertStrictEquals(answer.split("\r\n\r\n")[1], "The request headers took over 2 s\n");

  // A request whose head comes in pieces, within the time, is answered.
  const pieces = await rawRequest(port, [
    "GET /favicon.ico HTTP/1.1\r\n",
    `Host: 127.0.0.1:${port}\r\n`,
    "\r\n",
  ], 20);
  assertEquals(pieces.split("\r\n")[0], "HTTP/1.1 204 No Content");
});

Deno.test("serve keeps answering while 500 connections hold half a head, and closes them all", async () => {
  await using dir = await tempDir();
  await using serve = await serveIn(dir.path, ["--headers-timeout", "3"]);
  const port = Number(new URL(serve.base).port);
  const held: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 500; i++) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      await conn.write(encoder.encode(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-`));
      held.push(conn);
    }
    const list = await fetch(`${serve.base}/`);
    assertStrictEquals(list.status, 200);
    await list.body?.cancel();
    const firstLines = await Promise.all(held.map(async (conn) => {
      return (await readToEnd(conn)).split("\r\n")[0];
    }));
    assertEquals([...new Set(firstLines)], ["HTTP/1.1 408 Request Timeout"]);
  } finally {
    for (const conn of held) {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    }
  }
});

Deno.test("serve answers only its Hosts, and takes a POST only from its own origin, on its socket", async () => {
  await using dir = await tempDir();
  await using serve = await serveIn(dir.path, ["--allow-host", "turnlog.example.com"]);
  const port = Number(new URL(serve.base).port);
  const get = (host: string) =>
    rawRequest(port, [`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`]);
  assertEquals((await get("attacker.example:" + port)).split("\r\n")[0], "HTTP/1.1 403 Forbidden");
  assertEquals((await get(`127.0.0.1:${port}`)).split("\r\n")[0], "HTTP/1.1 200 OK");
  assertEquals((await get("turnlog.example.com")).split("\r\n")[0], "HTTP/1.1 200 OK");
  // An HTTP/1.0 client that names no Host is a loopback one (it reached the loopback port).
  assertEquals(
    (await rawRequest(port, ["GET /favicon.ico HTTP/1.0\r\n\r\n"])).split("\r\n")[0],
    "HTTP/1.0 204 No Content",
  );
  // What is not one HTTP/1 request head is answered in one line, and the connection closed.
  const h2 = await rawRequest(port, ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"]);
  assertEquals(h2.split("\r\n")[0], "HTTP/1.1 400 Bad Request");
  assertEquals(h2.split("\r\n\r\n")[1], "Not an HTTP/1 request\n");
  const huge = await rawRequest(port, [
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`,
  ]);
  assertEquals(huge.split("\r\n")[0], "HTTP/1.1 431 Request Header Fields Too Large");
  const body = JSON.stringify({ message: "list the files" });
  const form = await rawRequest(port, [
    `POST /api/agent/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Origin: http://127.0.0.1:1\r\nContent-Type: text/plain\r\n` +
    `Content-Length: ${body.length}\r\n\r\n${body}`,
  ]);
  assertEquals(form.split("\r\n")[0], "HTTP/1.1 403 Forbidden");
  assertEquals(
    JSON.parse(form.split("\r\n\r\n")[1]!).error,
    `Origin "http://127.0.0.1:1" is not http://127.0.0.1:${port}: ` +
      "serve takes requests that change state only from its own origin",
  );
  let entries = 0;
  for await (const _ of Deno.readDir(dir.path)) entries++;
  assertStrictEquals(entries, 0, "no session was started");
});

Deno.test("serve refuses a bad --allow-host or --headers-timeout in one line, exit 2", async () => {
  const serve = new URL("../cli/serve.ts", import.meta.url).pathname;
  const config = new URL("../deno.json", import.meta.url).pathname;
  for (
    const [flag, value, message] of [
      ["--allow-host", "a/b", 'Invalid --allow-host "a/b": expected a host name or address'],
      ["--headers-timeout", "0", 'Invalid --headers-timeout "0": expected a whole number above 0'],
    ]
  ) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", `--config=${config}`, "-q", "-P=serve", serve, flag!, value!],
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = decoder.decode(output.stderr);
    assertStrictEquals(output.code, 2, stderr);
    assert(stderr.startsWith(`turnlog serve: ${message}`), stderr);
    assertStrictEquals(stderr.trimEnd().split("\n").length, 2, stderr);
  }
});

Deno.test("serve refuses a Host no URL can hold with the documented 403 line, never a 500 or a stack", async () => {
  await using dir = await tempDir();
  await using serve = await startServe(
    ["--model", "scripted", "--sessions-dir", dir.path],
    { collectStderr: true },
  );
  const port = Number(new URL(serve.base).port);
  const refusal = (host: string) =>
    `Host ${
      JSON.stringify(host)
    } is not served here: serve answers 127.0.0.1, localhost, [::1] on port ${port} and the names given with --allow-host`;
  for (const host of ["", `127.0.0.1:${port}.`, "a b", "[::1", `localhost:${port}0000`, "a/b"]) {
    for (const path of ["/api/agent/stream", "/sessions/01a2"]) {
      const answer = await rawRequest(port, [`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`]);
      const [head, body] = answer.split("\r\n\r\n") as [string, string];
      assertEquals(head.split("\r\n")[0], "HTTP/1.1 403 Forbidden", `${host} ${path}`);
      if (path.startsWith("/api/")) assertEquals(JSON.parse(body).error, refusal(host));
      else assert(body.includes(escapeHtml(refusal(host))), `${host}: ${body}`);
    }
  }
  // The served names still are.
  const ok = await rawRequest(port, [`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`]);
  assertEquals(ok.split("\r\n")[0], "HTTP/1.1 200 OK");
  assertEquals(serve.stderr(), "");
});

Deno.test("serve answers the page of a session it cannot read with a 403 that says so, never a 500 or a stack", async () => {
  await using dir = await tempDir();
  const run = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "hello" });
  run.writer.close();
  const file = run.location.path;
  await using serve = await startServe(
    ["--model", "scripted", "--sessions-dir", dir.path],
    { collectStderr: true, denoFlags: [`--deny-read=${file}`] },
  );
  const page = await fetch(`${serve.base}/sessions/${run.sessionId}`);
  assertEquals(page.status, 403);
  const text = await page.text();
  assert(text.includes("Cannot read this session"), text);
  assert(
    text.includes(`serve cannot read the file of session ${run.sessionId}: permission denied`),
    text,
  );
  const events = await fetch(`${serve.base}/sessions/${run.sessionId}/events`);
  assertEquals(events.status, 403);
  await events.body?.cancel();
  // The list holds up, and says which file it could not read.
  const list = await fetch(`${serve.base}/`);
  assertEquals(list.status, 200);
  await list.body?.cancel();
  assertEquals(serve.stderr(), "");
});
