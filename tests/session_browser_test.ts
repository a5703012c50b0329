import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { attributes, parsePage, texts } from "./_html_helpers.ts";
import { eventOf, harness } from "./_runtime_helpers.ts";
import { countIo } from "../testing/io_counter.ts";
import { pageHeaders } from "../src/html/mod.ts";
import { createServerHandler, createSessionBrowserHandler } from "../src/server/mod.ts";
import { statKey } from "../src/_tick.ts";

const ORIGIN = "http://127.0.0.1:8787";

function get(
  handler: (request: Request) => Promise<Response>,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  return handler(new Request(`${ORIGIN}${path}`, init));
}

function headersOf(response: Response): Record<string, string> {
  return Object.fromEntries(response.headers);
}

/** Reads a Server-Sent Events body frame by frame, each read bounded by a deadline. */
function frames(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async next(timeoutMs = 5000): Promise<string> {
      while (!buffered.includes("\n\n")) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`No SSE frame in ${timeoutMs} ms`)), timeoutMs);
        });
        try {
          const { value, done } = await Promise.race([reader.read(), timeout]);
          if (done) return "(end)";
          buffered += value;
        } finally {
          clearTimeout(timer);
        }
      }
      const end = buffered.indexOf("\n\n");
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      return frame;
    },
    cancel: () => reader.cancel(),
  };
}

/** The number of non-empty lines of a file. */
async function lineCount(path: string): Promise<number> {
  return (await Deno.readTextFile(path)).split("\n").filter((line) => line !== "").length;
}

/** Two sessions made by the runtime on the embedded model; the second has two turns. */
async function twoSessions() {
  const h = await harness({ "a.txt": "<script>window.__pwned=1</script>" });
  const first = eventOf(await h.turn("read a.txt"), "run_started");
  const second = eventOf(await h.turn("list the files"), "run_started");
  await h.turn("what did I ask?", { sessionId: second.sessionId });
  return { h, first, second };
}

Deno.test("createSessionBrowserHandler() GET / lists the sessions newest first under the page headers", async () => {
  const { h, first, second } = await twoSessions();
  await using _ = h;
  const handler = createSessionBrowserHandler({ sessionsDir: h.sessionsDir });
  const response = await get(handler, "/");
  assertStrictEquals(response.status, 200);
  // Its search box submits to its own origin: form-action 'self', still no script.
  assertEquals(headersOf(response), pageHeaders({ form: true }));
  const page = parsePage(await response.text());
  assertEquals(attributes(page, ".sessions li", "data-session-id"), [
    second.sessionId,
    first.sessionId,
  ]);
  assertEquals(attributes(page, ".sessions li a", "href"), [
    `/sessions/${second.sessionId}`,
    `/sessions/${first.sessionId}`,
  ]);
  assertEquals(texts(page, ".sessions .prompt"), ["list the files", "read a.txt"]);
});

Deno.test("createSessionBrowserHandler() GET /sessions/<id> is the live page; a prefix redirects to it", async () => {
  const { h, second } = await twoSessions();
  await using _ = h;
  const handler = createSessionBrowserHandler({
    sessionsDir: h.sessionsDir,
    commandFor: (point) => `resume --session ${point.prefix}`,
  });
  const id = second.sessionId;
  const response = await get(handler, `/sessions/${id}`);
  assertStrictEquals(response.status, 200);
  assertEquals(headersOf(response), pageHeaders({ live: true }));
  const page = parsePage(await response.text());
  assertEquals(attributes(page, "[data-turn]", "data-turn"), ["1", "2"]);
  assertEquals(attributes(page, "script", "data-events"), [`/sessions/${id}/events`, null]);
  assertEquals(attributes(page, "script", "data-url"), [null, `/sessions/${id}/export`]);
  assertEquals(attributes(page, "#session .kicker a", "href"), ["/"]);
  assertMatch(texts(page, "footer pre")[0]!, /^resume --session [0-9a-f-]{8,}$/);

  for (const alias of [id.slice(0, 13), id.toUpperCase()]) {
    const redirect = await get(handler, `/sessions/${alias}`);
    assertStrictEquals(redirect.status, 302, alias);
    assertStrictEquals(redirect.headers.get("location"), `/sessions/${id}`);
  }
});

Deno.test("createSessionBrowserHandler() answers 404, 400, 300, 405 with pages, and 204 for the favicon", async () => {
  const { h, first, second } = await twoSessions();
  await using _ = h;
  const handler = createSessionBrowserHandler({ sessionsDir: h.sessionsDir });
  const cases: [string, number, string, string][] = [
    [
      "/sessions/01a2ffffffff",
      404,
      "No such session",
      'No session with id or prefix "01a2ffffffff" here',
    ],
    [
      "/sessions/01a2ffffffff/events",
      404,
      "No such session",
      'No session with id or prefix "01a2ffffffff" here',
    ],
    [
      "/sessions/%3Cscript%3Ealert(1)%3C%2Fscript%3E",
      400,
      "Not a session id",
      `Invalid session id "<script>alert(1)</script>": an id is letters, digits, '-' and '_' only (at most 100)`,
    ],
    ["/sessions/%zz", 400, "Not a session id", 'Invalid session id "%zz": bad escapes'],
    ["/nothing/here", 404, "Not found", "Nothing is served at /nothing/here"],
  ];
  for (const [path, status, title, message] of cases) {
    const response = await get(handler, path);
    assertStrictEquals(response.status, status, path);
    assertEquals(headersOf(response), pageHeaders(), path);
    const html = await response.text();
    assert(!html.includes("<script>"), `${path}: no markup from the URL`);
    const page = parsePage(html);
    assertEquals([texts(page, "h1")[0], texts(page, ".message")[0]], [title, message], path);
  }

  // Both ids start with the same millisecond's digits only when made in the same one; the
  // common prefix of the two always matches both.
  let common = 0;
  while (first.sessionId[common] === second.sessionId[common]) common++;
  const ambiguous = await get(handler, `/sessions/${first.sessionId.slice(0, common)}`);
  assertStrictEquals(ambiguous.status, 300);
  const links = attributes(parsePage(await ambiguous.text()), ".links a", "href");
  assertEquals(links, [`/sessions/${second.sessionId}`, `/sessions/${first.sessionId}`, "/"]);

  const post = await get(handler, "/", {
    method: "POST",
    headers: { "content-type": "application/json" },
  });
  assertStrictEquals(post.status, 405);
  assertStrictEquals(post.headers.get("allow"), "GET, HEAD");
  await post.body?.cancel();
  const favicon = await get(handler, "/favicon.ico");
  assertEquals([favicon.status, favicon.body], [204, null]);
});

/** Counts `Deno.stat` calls on `path` while installed: how often a watcher looks. */
function countLooks(path: string): Disposable & { looks: number } {
  const stat = Deno.stat;
  const counter = {
    looks: 0,
    [Symbol.dispose]() {
      Deno.stat = stat;
    },
  };
  Deno.stat = (target) => {
    if (String(target) === path) counter.looks++;
    return stat(target);
  };
  return counter;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("createSessionBrowserHandler() events: the file as it is, changed after an append, reading only the new bytes", async () => {
  const { h, second } = await twoSessions();
  await using _ = h;
  const pollMs = 20;
  const handler = createSessionBrowserHandler({ sessionsDir: h.sessionsDir, pollMs });
  const path = second.sessionPath;
  const data = async () => {
    const info = await Deno.stat(path);
    return { records: await lineCount(path), sizeBytes: info.size, stamp: statKey(info) };
  };
  using watch = countLooks(path);
  const response = await get(handler, `/sessions/${second.sessionId.slice(0, 13)}/events`);
  assertStrictEquals(response.status, 200);
  assertStrictEquals(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const events = frames(response);
  const before = await data();
  assertStrictEquals(
    await events.next(),
    `retry: 2000\nevent: changed\ndata: ${JSON.stringify(before)}`,
  );

  await h.turn("list the files again", { sessionId: second.sessionId });
  const after = await data();
  // A run appends in several writes: events follow until one shows the whole file.
  let last = "";
  while (last !== `event: changed\ndata: ${JSON.stringify(after)}`) {
    last = await events.next();
    assertMatch(
      last,
      /^event: changed\ndata: \{"records":\d+,"sizeBytes":\d+,"stamp":"\d+:\d+:\d+"\}$/,
    );
  }
  {
    // One more line: the watcher reads that line, not the file again.
    using io = countIo();
    const line = '{"type":"not_a_record"}\n';
    await Deno.writeTextFile(path, line, { append: true });
    const { stamp } = await data();
    const grown = { records: after.records + 1, sizeBytes: after.sizeBytes + line.length, stamp };
    assertStrictEquals(await events.next(), `event: changed\ndata: ${JSON.stringify(grown)}`);
    assertStrictEquals(io.lowestRead(path), after.sizeBytes);
  }

  // The client goes away: the watcher stops looking at the file.
  await events.cancel();
  await pause(pollMs * 3);
  const looks = watch.looks;
  await pause(pollMs * 5);
  assertStrictEquals(watch.looks, looks);
});

Deno.test("createSessionBrowserHandler() events: a ping when quiet, and the end when the server stops", async () => {
  const { h, first } = await twoSessions();
  await using _ = h;
  const stopping = new AbortController();
  const handler = createSessionBrowserHandler({
    sessionsDir: h.sessionsDir,
    pollMs: 10,
    pingMs: 30,
    signal: stopping.signal,
  });
  const events = frames(await get(handler, `/sessions/${first.sessionId}/events`));
  assertMatch(await events.next(), /^retry: 2000\nevent: changed\n/);
  assertStrictEquals(await events.next(), ": ping");
  stopping.abort();
  let frame = await events.next();
  while (frame === ": ping") frame = await events.next();
  assertStrictEquals(frame, "(end)");
});

Deno.test("createServerHandler() serves the agent route and the browser on one handler", async () => {
  await using h = await harness({ "a.txt": "a" });
  const handler = createServerHandler({
    connection: h.connection,
    sessionsDir: h.sessionsDir,
    workspace: h.workspace,
  });
  const stream = await get(handler, "/api/agent/stream", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "list the files" }),
  });
  const text = await stream.text();
  const id = /"sessionId":"([^"]+)"/.exec(text)?.[1];
  assert(id !== undefined, text);
  const page = parsePage(await (await get(handler, `/sessions/${id}`)).text());
  assertEquals(attributes(page, "[data-turn]", "data-turn"), ["1"]);
  const unknown = await get(handler, "/api/nothing");
  assertStrictEquals(unknown.status, 404);
  assertStrictEquals(unknown.headers.get("content-type"), "application/json");
  await unknown.body?.cancel();
});
