import { join } from "node:path";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { parsePage, texts } from "./_html_helpers.ts";
import { harness } from "./_runtime_helpers.ts";
import type { Policy } from "../src/record/mod.ts";
import { APPROVAL_TOKEN_HEADER, createServerHandler } from "../src/server/mod.ts";

const PORT = 8787;
const OWN = `http://127.0.0.1:${PORT}`;
const CHANGE = "serve takes requests that change state only from its own origin";
const AS_JSON = "serve takes requests that change state only as application/json";
const NOT_SERVED =
  `is not served here: serve answers 127.0.0.1, localhost, [::1] on port ${PORT} ` +
  "and the names given with --allow-host";

/** A handler on port 8787 over a fresh harness, with a `write x.txt` turn to post. */
async function served(policy: Policy["approval"] = "auto", allowedHosts?: string[]) {
  const h = await harness();
  const handler = createServerHandler({
    connection: h.connection,
    sessionsDir: h.sessionsDir,
    workspace: h.workspace,
    policy: { approval: policy },
    port: PORT,
    allowedHosts,
  });
  const send = (path: string, init: RequestInit & { url?: string } = {}) =>
    handler(new Request(`${init.url ?? OWN}${path}`, init));
  const stream = (headers: Record<string, string>, url?: string) =>
    send("/api/agent/stream", {
      method: "POST",
      headers,
      body: JSON.stringify({ message: "write x.txt with 'yes'" }),
      ...(url ? { url } : {}),
    });
  /** True when nothing was written: no session, no file in the workspace. */
  const untouched = async () => {
    const made = await Deno.stat(h.sessionsDir).then(() => true, () => false);
    const written = await Deno.stat(join(h.workspace, "x.txt")).then(() => true, () => false);
    return !made && !written;
  };
  return {
    h,
    handler,
    send,
    stream,
    untouched,
    [Symbol.asyncDispose]: () => h[Symbol.asyncDispose](),
  };
}

async function refusal(response: Response): Promise<[number, string]> {
  return [response.status, (await response.json()).error];
}

Deno.test("createServerHandler() refuses a POST from another origin, or not as JSON, with 403 and one line", async () => {
  await using s = await served("auto");
  const json = { "content-type": "application/json" };
  const cases: [Record<string, string>, string][] = [
    [
      { ...json, origin: "http://127.0.0.1:9999" },
      `Origin "http://127.0.0.1:9999" is not ${OWN}: ${CHANGE}`,
    ],
    [{ ...json, origin: "null" }, `Origin "null" is not ${OWN}: ${CHANGE}`],
    [
      { ...json, origin: "http://localhost:8787" },
      `Origin "http://localhost:8787" is not ${OWN}: ${CHANGE}`,
    ],
    [{ ...json, "sec-fetch-site": "cross-site" }, `Sec-Fetch-Site is "cross-site": ${CHANGE}`],
    [
      { ...json, "sec-fetch-site": "same-site", origin: OWN },
      `Sec-Fetch-Site is "same-site": ${CHANGE}`,
    ],
    [{ "content-type": "text/plain" }, `Content-Type "text/plain": ${AS_JSON}`],
    [
      { "content-type": "text/plain;charset=UTF-8", origin: OWN, "sec-fetch-site": "same-origin" },
      `Content-Type "text/plain;charset=UTF-8": ${AS_JSON}`,
    ],
    [
      { "content-type": "application/x-www-form-urlencoded" },
      `Content-Type "application/x-www-form-urlencoded": ${AS_JSON}`,
    ],
    [
      { "content-type": "multipart/form-data; boundary=x" },
      `Content-Type "multipart/form-data; boundary=x": ${AS_JSON}`,
    ],
    [{}, `No Content-Type: ${AS_JSON}`],
  ];
  for (const [headers, message] of cases) {
    // A body without a type of its own, so that the request carries only `headers`.
    const response = await s.send("/api/agent/stream", {
      method: "POST",
      headers,
      body: new TextEncoder().encode(JSON.stringify({ message: "write x.txt with 'yes'" })),
    });
    assertEquals(await refusal(response), [403, message], JSON.stringify(headers));
  }
  assert(await s.untouched(), "no turn ran");
});

Deno.test("createServerHandler() answers only the Hosts it serves: others are 403 with one line", async () => {
  await using s = await served("auto");
  const json = { "content-type": "application/json" };
  for (
    const host of [
      "attacker.example:8787",
      "127.0.0.1:9999",
      "localhost",
      "127.0.0.2:8787",
      "a@127.0.0.1:8787",
    ]
  ) {
    const page = await s.send("/", { headers: { host } });
    assertStrictEquals(page.status, 403, host);
    const html = parsePage(await page.text());
    assertEquals(texts(html, ".message"), [`Host ${JSON.stringify(host)} ${NOT_SERVED}`], host);
    const posted = await s.stream({ ...json, host, origin: `http://${host}` });
    assertEquals(await refusal(posted), [403, `Host ${JSON.stringify(host)} ${NOT_SERVED}`], host);
  }
  // A request whose target names another host than its Host header (absolute form).
  const absolute = await s.stream(json, "http://attacker.example:8787");
  assertEquals(await refusal(absolute), [403, `Host "attacker.example:8787" ${NOT_SERVED}`]);
  assert(await s.untouched(), "no turn ran");
  for (const host of ["127.0.0.1:8787", "localhost:8787", "[::1]:8787", "LOCALHOST:8787"]) {
    const page = await s.send("/", { headers: { host } });
    assertStrictEquals(page.status, 200, host);
    await page.body?.cancel();
  }
});

Deno.test("createServerHandler() takes a POST from its own origin, and from a client that names none, as JSON", async () => {
  const cases: Record<string, string>[] = [
    { "content-type": "application/json", origin: OWN, "sec-fetch-site": "same-origin" },
    { "content-type": "application/json; charset=utf-8", origin: OWN },
    { "content-type": "application/json", "sec-fetch-site": "same-origin" },
    { "content-type": "Application/JSON" },
  ];
  for (const headers of cases) {
    await using s = await served("auto");
    const response = await s.stream(headers);
    assertStrictEquals(response.status, 200, JSON.stringify(headers));
    const text = await response.text();
    assert(text.includes("event: run_succeeded"), text);
    assertEquals(await Deno.readTextFile(join(s.h.workspace, "x.txt")), "yes");
  }
});

Deno.test("createServerHandler() serves the names given with allowedHosts, by name or name:port", async () => {
  await using s = await served("auto", [
    "turnlog.example.com",
    "box.lan:9000",
    "127.0.0.1:9000",
  ]);
  const json = { "content-type": "application/json" };
  const ok = [
    ["turnlog.example.com", "https://turnlog.example.com"],
    ["turnlog.example.com:8443", "http://turnlog.example.com:8443"],
    ["box.lan:9000", "http://box.lan:9000"],
    // An SSH tunnel from another local port.
    ["127.0.0.1:9000", "http://127.0.0.1:9000"],
  ];
  for (const [host, origin] of ok) {
    const page = await s.send("/", { headers: { host: host! } });
    assertStrictEquals(page.status, 200, host);
    await page.body?.cancel();
    const posted = await s.stream({ ...json, host: host!, origin: origin! });
    assertStrictEquals(posted.status, 200, host);
    assert((await posted.text()).includes("event: run_succeeded"), host);
  }
  const wrongPort = await s.send("/", { headers: { host: "box.lan:9001" } });
  assertStrictEquals(wrongPort.status, 403);
  await wrongPort.body?.cancel();
  // Served, but the page posting is on another of the served names: another origin.
  const crossName = await s.stream({
    ...json,
    host: "box.lan:9000",
    origin: "https://turnlog.example.com",
  });
  assertEquals(await refusal(crossName), [
    403,
    `Origin "https://turnlog.example.com" is not http://box.lan:9000: ${CHANGE}`,
  ]);
});

/** Posts a write under `policy` and reads the stream up to its approval request. */
async function pendingApproval(s: Awaited<ReturnType<typeof served>>) {
  const response = await s.stream({ "content-type": "application/json" });
  const token = response.headers.get(APPROVAL_TOKEN_HEADER)!;
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/event: approval_requested\ndata: (.+)\n/.test(text)) {
    const { value, done } = await reader.read();
    assert(!done, text);
    text += value;
  }
  const event = JSON.parse(/event: approval_requested\ndata: (.+)\n/.exec(text)![1]!);
  const rest = async () => {
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += next.value;
    return text;
  };
  return { token, path: `/api/agent/approvals/${event.runId}/${event.callId}`, rest };
}

Deno.test("createServerHandler() takes an approval only with the token of the run's stream", async () => {
  for (const policy of ["ask-changes", "ask-all"] as const) {
    await using s = await served(policy);
    const first = await pendingApproval(s);
    assert(/^[0-9a-f]{64}$/.test(first.token), first.token);
    const approve = (headers: Record<string, string>) =>
      s.send(first.path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ decision: "approve" }),
      });
    assertEquals(await refusal(await approve({})), [
      403,
      `An approval needs the ${APPROVAL_TOKEN_HEADER} header the run's stream came with`,
    ]);
    const runId = first.path.split("/")[4];
    assertEquals(await refusal(await approve({ [APPROVAL_TOKEN_HEADER]: "0".repeat(64) })), [
      403,
      `The ${APPROVAL_TOKEN_HEADER} is not the one of run ${runId}`,
    ]);
    // Another client's run has a token of its own, which does not answer this run's call.
    const second = await pendingApproval(s);
    assert(second.token !== first.token);
    assertStrictEquals((await approve({ [APPROVAL_TOKEN_HEADER]: second.token })).status, 403);
    // With the token, but from another origin: still refused.
    const cross = await approve({
      [APPROVAL_TOKEN_HEADER]: first.token,
      origin: "http://127.0.0.1:9999",
    });
    assertStrictEquals(cross.status, 403);
    await cross.body?.cancel();
    assertEquals(
      await Deno.stat(join(s.h.workspace, "x.txt")).then(() => true, () => false),
      false,
    );
    const taken = await approve({ [APPROVAL_TOKEN_HEADER]: first.token, origin: OWN });
    assertEquals([taken.status, await taken.json()], [200, { ok: true, approved: true }]);
    assert((await first.rest()).includes("event: run_succeeded"));
    assertEquals(await Deno.readTextFile(join(s.h.workspace, "x.txt")), "yes");
    const late = await approve({ [APPROVAL_TOKEN_HEADER]: first.token });
    assertStrictEquals(late.status, 404);
    await late.body?.cancel();
    // The second run's approval times out with the registry's default; deny it to end it.
    const deny = await s.send(second.path, {
      method: "POST",
      headers: { "content-type": "application/json", [APPROVAL_TOKEN_HEADER]: second.token },
      body: JSON.stringify({ decision: "deny" }),
    });
    assertStrictEquals(deny.status, 200);
    await deny.body?.cancel();
    await second.rest();
  }
});
