/**
 * Two instances, one conversation: two `serve` processes on different ports over one
 * PostgreSQL database, as a team runs them behind a load balancer. Skipped (and said so) when
 * the PostgreSQL server binaries are not installed.
 *
 * @module
 */
import { join } from "node:path";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { fileCluster } from "./_postgres_helpers.ts";
import { tempDir } from "./_helpers.ts";
import { RunEventSchema } from "../src/runtime/schemas.ts";
import type { RunEvent, RunEventOf } from "../src/runtime/mod.ts";
import type { ResponseItem, SessionRecord } from "../src/record/mod.ts";
import { PostgresStore } from "../src/store/postgres/mod.ts";
import { createServerHandler } from "../src/server/mod.ts";
import { resumeCommand } from "../cli/_commands.ts";
import { startServe } from "../testing/serve_process.ts";
import { eventOf, harness } from "./_runtime_helpers.ts";
import { attributes, parsePage, texts } from "./_html_helpers.ts";
import { waitFor } from "../testing/wait.ts";

const cluster = await fileCluster("serve_postgres_test.ts");

/** A turn's events, as the route streams them (`event:` checked against the data's type). */
async function* turnEvents(base: string, body: unknown): AsyncGenerator<RunEvent> {
  const response = await fetch(`${base}/api/agent/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assertStrictEquals(response.status, 200);
  let buffered = "";
  for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = /^data: (.+)$/m.exec(block)?.[1];
      if (data === undefined) continue;
      const event = RunEventSchema.parse(JSON.parse(data));
      assertStrictEquals(/^event: (.+)$/m.exec(block)?.[1], event.type);
      yield event;
    }
  }
}

const turn = (base: string, body: unknown) => Array.fromAsync(turnEvents(base, body));

function only<T extends RunEvent["type"]>(events: RunEvent[], type: T): RunEventOf<T> {
  const found = events.filter((e): e is RunEventOf<T> => e.type === type);
  assertStrictEquals(found.length, 1, `${type} in ${events.map((e) => e.type).join(", ")}`);
  return found[0]!;
}

/** The response items of a session's records, in order. */
function items(records: SessionRecord[]): ResponseItem[] {
  return records.flatMap((r) =>
    r.type === "response_item" && r.payload.type !== "compaction_checkpoint" ? [r.payload] : []
  );
}

Deno.test({
  name: "serve: two instances over one database carry one conversation, one turn at a time",
  ignore: cluster === undefined,
  fn: async () => {
    const url = await cluster!.createDatabase();
    await using dir = await tempDir();
    await Deno.writeTextFile(join(dir.path, "notes.txt"), "remember the milk\n");
    const args = ["--store", url, "--model", "scripted", "--workspace", dir.path];
    const first = await startServe(args);
    await using second = await startServe(args);
    await using _first = first;
    assert(first.base !== second.base);

    // A turn on the first instance, the next one on the second: it sees the first turn.
    const one = await turn(first.base, { message: "read notes.txt" });
    const sessionId = only(one, "run_started").sessionId;
    assert(only(one, "run_succeeded").answer.includes("remember the milk"));
    const two = await turn(second.base, { message: "what did I ask?", sessionId });
    assertStrictEquals(only(two, "run_started").resumed, true);
    assertStrictEquals(
      only(two, "run_succeeded").answer,
      "Before this message you asked me 1 thing:\n1. read notes.txt",
    );

    // A slow tool on the first instance holds the session: the second refuses a turn on it.
    // (Read by hand: leaving a `for await` would cancel the request, and so the turn.)
    const slow = turnEvents(first.base, { message: "run a slow task for 30 seconds", sessionId });
    let requested: RunEventOf<"tool_requested"> | undefined;
    while (requested === undefined) {
      const { value, done } = await slow.next();
      assert(!done, "the slow turn ended before its tool started");
      if (value.type === "tool_requested") requested = value;
    }
    assertStrictEquals(requested?.name, "slow_task");
    const refused = await turn(second.base, { message: "hello", sessionId });
    const failed = only(refused, "run_failed");
    assertEquals([refused.length, failed.errorKind], [1, "in_use"]);
    const database = new URL(url).pathname.slice(1);
    assertStrictEquals(
      failed.error,
      `Session is in use: another run holds the lock on postgres://postgres@127.0.0.1:${
        cluster!.port
      }/${database}#${sessionId}`,
    );

    // The first instance dies in the middle of the tool; the second resumes the session, with
    // the synthesized output for the interrupted call (the dead writer's lock goes with its
    // connection, which the server sees closed a moment later).
    await first.kill();
    const three = await waitFor("the dead instance's lock to be released", async () => {
      const events = await turn(second.base, { message: "what did I ask?", sessionId });
      const start = events[0];
      return start?.type === "run_failed" && start.errorKind === "in_use" ? undefined : events;
    });
    const repaired = only(three, "session_repaired");
    assertEquals([repaired.synthesized, repaired.callIds], [1, [requested!.callId]]);
    assertStrictEquals(
      only(three, "run_succeeded").answer,
      "Before this message you asked me 3 things:\n1. read notes.txt\n2. what did I ask?\n" +
        "3. run a slow task for 30 seconds",
    );

    // The stored records: the call the first instance committed, then the second instance's
    // turn with the synthesized output before its user message, each output after its call.
    await using store = new PostgresStore(url);
    const records: SessionRecord[] = [];
    for await (const entry of store.read(await store.find(sessionId))) {
      assert(entry.record, entry.problem?.message);
      records.push(entry.record);
    }
    const finished = records.filter((r) => r.type === "run_finished").map((r) => r.payload);
    assertEquals(finished.map((f) => f.outcome), ["succeeded", "succeeded", "succeeded"]);
    const turns = records.filter((r) => r.type === "turn_context").map((r) => r.payload.resumed);
    assertEquals(turns, [false, true, true, true]);
    const tail = items(records.slice(records.findLastIndex((r) => r.type === "turn_context")));
    const synthesized = tail[0];
    assert(synthesized?.type === "function_call_output", JSON.stringify(synthesized));
    assertEquals(
      [synthesized.callId, synthesized.toolName, synthesized.synthesized],
      [requested!.callId, "slow_task", true],
    );
    assertEquals(tail[1], { type: "message", role: "user", content: "what did I ask?" });
    const calls = items(records).filter((i) => i.type === "function_call").map((i) => i.callId);
    const outputs = items(records).filter((i) => i.type === "function_call_output");
    assertEquals(outputs.map((o) => o.callId), calls);
  },
});

Deno.test({
  name: "createServerHandler() over a PostgreSQL store lists, shows and watches its sessions",
  ignore: cluster === undefined,
  fn: async () => {
    const url = await cluster!.createDatabase();
    await using store = new PostgresStore(url);
    await using h = await harness({ "a.txt": "alpha" });
    const first = eventOf(await h.turn("read a.txt", { store }), "run_started");
    const second = eventOf(await h.turn("list the files", { store }), "run_started");
    const handler = createServerHandler({
      connection: h.connection,
      store,
      workspace: h.workspace,
      commandFor: resumeCommand,
      pollMs: 20,
    });
    const get = (path: string) => handler(new Request(`http://127.0.0.1:8787${path}`));
    const list = parsePage(await (await get("/")).text());
    assertEquals(attributes(list, ".sessions li", "data-session-id"), [
      second.sessionId,
      first.sessionId,
    ]);
    assertEquals(texts(list, ".sessions .prompt"), ["list the files", "read a.txt"]);
    // The search box searches the database too, and leaves the store open.
    const found = parsePage(await (await get("/search?q=%22read+a.txt%22")).text());
    assertEquals(attributes(found, "#results li[data-session-id]", "data-session-id"), [
      first.sessionId,
    ]);
    assertEquals(texts(found, "#results mark"), ["read a.txt"]);
    const prefix = await store.shortestUniquePrefix(first.sessionId);
    const moved = await get(`/sessions/${prefix}`);
    assertEquals([moved.status, moved.headers.get("location")], [
      302,
      `/sessions/${first.sessionId}`,
    ]);
    const page = await (await get(`/sessions/${first.sessionId}`)).text();
    assert(page.includes(`--store ${store.name} --session ${prefix}`), page);
    const events = await get(`/sessions/${first.sessionId}/events`);
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    // The events' frames, read as they come; all of them within 10 seconds.
    const deadline = Date.now() + 10_000;
    let buffered = "";
    const frame = async (): Promise<{ records: number; sizeBytes: number }> => {
      while (!buffered.includes("\n\n")) {
        assert(Date.now() < deadline, `No event in time; read: ${buffered}`);
        const { value, done } = await reader.read();
        assert(!done, "The events ended");
        buffered += value;
      }
      const end = buffered.indexOf("\n\n");
      const text = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = /^data: (.+)$/m.exec(text)?.[1];
      return data === undefined ? await frame() : JSON.parse(data);
    };
    const location = await store.find(first.sessionId);
    assertEquals(await frame(), await store.size(location));
    // A turn appended through the agent route shows up as changes, the last one its end.
    await postTurn(handler, first.sessionId);
    const after = await store.size(location);
    let seen = await frame();
    while (seen.records < after.records) seen = await frame();
    assertEquals(seen, after);
    await reader.cancel();
  },
});

/** A turn posted to the handler, read to its end. */
async function postTurn(handler: (request: Request) => Promise<Response>, sessionId: string) {
  const response = await handler(
    new Request("http://127.0.0.1:8787/api/agent/stream", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: "what did I ask?", sessionId }),
    }),
  );
  await response.text();
}
