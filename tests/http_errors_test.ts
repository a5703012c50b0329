// One mapping from errors to HTTP statuses: the error table's (src/errors/), read by HttpError,
// errorResponse and the session browser's pages alike.
import { assertEquals, assertStrictEquals } from "./_assert.ts";
import { harness } from "./_runtime_helpers.ts";
import { ERROR_KINDS, ERROR_OUTCOMES, TurnlogError } from "../src/errors/mod.ts";
import { errorResponse, HttpError } from "../src/http/mod.ts";
import { createServerHandler } from "../src/server/mod.ts";

Deno.test("HttpError's status is the error table's for every kind", () => {
  for (const kind of ERROR_KINDS) {
    const error = new HttpError(kind, "What went wrong");
    assertStrictEquals(error.kind, kind);
    assertStrictEquals(error.status, ERROR_OUTCOMES[kind].httpStatus, kind);
  }
  assertEquals(
    ["unauthenticated", "forbidden", "method_not_allowed", "too_large"].map((kind) =>
      new HttpError(kind as "forbidden", "x").status
    ),
    [401, 403, 405, 413],
  );
});

Deno.test("errorResponse() answers every turnlog error under its kind's status and keeps an internal one's message from the client", async () => {
  for (const kind of ERROR_KINDS) {
    const response = errorResponse(new TurnlogError(kind, `A ${kind} error`));
    assertStrictEquals(response.status, ERROR_OUTCOMES[kind].httpStatus, kind);
    const told = kind === "internal" ? "Internal server error" : `A ${kind} error`;
    assertEquals(await response.json(), { error: told }, kind);
  }
  const bug = errorResponse(new TypeError("secret is undefined"));
  assertEquals([bug.status, await bug.json()], [500, { error: "Internal server error" }]);
  const own = errorResponse(new Error("x"), () => new HttpError("model", "The model failed"));
  assertEquals([own.status, await own.json()], [502, { error: "The model failed" }]);
  const missing = errorResponse(new Deno.errors.NotFound("gone"));
  assertStrictEquals(missing.status, 500);
});

Deno.test("createServerHandler() answers the browser's and the agent route's errors under the table's statuses", async () => {
  await using h = await harness();
  const handler = createServerHandler({
    connection: h.connection,
    sessionsDir: h.sessionsDir,
    workspace: h.workspace,
    policy: { approval: "auto" },
    port: 8787,
  });
  const send = (path: string, init: RequestInit = {}) =>
    handler(new Request(`http://127.0.0.1:8787${path}`, init));
  const status = (kind: keyof typeof ERROR_OUTCOMES) => ERROR_OUTCOMES[kind].httpStatus;

  const unknown = await send("/sessions/0199aaaa");
  assertEquals([unknown.status, unknown.headers.get("content-type")?.split(";")[0]], [
    status("not_found"),
    "text/html",
  ]);
  await unknown.body?.cancel();
  const notAnId = await send("/sessions/..%2Fetc");
  assertStrictEquals(notAnId.status, status("usage"));
  await notAnId.body?.cancel();
  const json = { "content-type": "application/json" };
  const posted = await send("/", { method: "POST", headers: json, body: "{}" });
  assertEquals([posted.status, posted.headers.get("allow")], [
    status("method_not_allowed"),
    "GET, HEAD",
  ]);
  await posted.body?.cancel();
  const foreign = await send("/", { headers: { host: "attacker.example" } });
  assertStrictEquals(foreign.status, status("forbidden"));
  await foreign.body?.cancel();

  const got = await send("/api/agent/stream");
  assertEquals([got.status, await got.json()], [status("method_not_allowed"), {
    error: "Use POST",
  }]);
  const nowhere = await send("/api/agent/nowhere", { method: "POST", headers: json, body: "{}" });
  assertStrictEquals(nowhere.status, status("not_found"));
  await nowhere.body?.cancel();
});
