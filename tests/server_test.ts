import { RunEventSchema } from "../src/runtime/schemas.ts";
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { waitFor } from "../testing/wait.ts";
import { eventOf, fileRecords, harness, labels } from "./_runtime_helpers.ts";
import { ApprovalRegistry } from "../src/runtime/mod.ts";
import type { RunEvent } from "../src/runtime/mod.ts";
import { createAgentHandler, formatSseEvent } from "../src/server/mod.ts";
import { createCompactor } from "../src/runtime/mod.ts";

/** Serves the agent routes over real HTTP on a free loopback port. */
async function serve(
  files: Record<string, string> = {},
  timeoutMs = 60_000,
  compactThreshold?: number,
) {
  const h = await harness(files);
  const approvals = new ApprovalRegistry({ timeoutMs });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    createAgentHandler({
      connection: h.connection,
      sessionsDir: h.sessionsDir,
      workspace: h.workspace,
      approvals,
      compactor: compactThreshold === undefined
        ? undefined
        : createCompactor({ threshold: compactThreshold }),
    }),
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    h,
    base,
    approvals,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await h[Symbol.asyncDispose]();
    },
  };
}

/** Reads an SSE response event by event, checking that `event:` matches the data's type. */
async function* sseEvents(response: Response): AsyncGenerator<RunEvent> {
  const decoder = new TextDecoderStream();
  let buffered = "";
  for await (const chunk of response.body!.pipeThrough(decoder)) {
    buffered += chunk;
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const name = /^event: (.+)$/m.exec(block)?.[1];
      const data = /^data: (.+)$/m.exec(block)?.[1];
      const event = RunEventSchema.parse(JSON.parse(data!));
      assertEquals(name, event.type);
      yield event;
    }
  }
}

async function collect(response: Response): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of sseEvents(response)) events.push(event);
  return events;
}

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

Deno.test("SSE: a turn streams its events, and a second request continues the session", async () => {
  await using s = await serve({ "a.txt": "a" });
  const first = await post(`${s.base}/api/agent/stream`, { message: "list the files" });
  assertEquals(first.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const events = await collect(first);
  assertEquals(events[0]!.type, "run_started");
  assertEquals(events.at(-1)!.type, "run_succeeded");
  assertEquals(eventOf(events, "tool_finished").output, "a.txt");
  const { sessionId, sessionPath } = eventOf(events, "run_started");
  const before = (await fileRecords(sessionPath)).length;

  const second = await collect(
    await post(`${s.base}/api/agent/stream`, { message: "hello again", sessionId }),
  );
  const started = eventOf(second, "run_started");
  assertEquals([started.sessionId, started.resumed, started.recordCountBefore], [
    sessionId,
    true,
    before,
  ]);
  assertEquals(eventOf(second, "model_requested").messageCount, 6);
  assertEquals((await fileRecords(sessionPath)).length, before + 4);
});

Deno.test("SSE: an unknown sessionId streams one run_failed event and creates nothing", async () => {
  await using s = await serve();
  const response = await post(`${s.base}/api/agent/stream`, {
    message: "hello",
    sessionId: "01a2ffffffff",
  });
  assertEquals(response.status, 200);
  const events = await collect(response);
  assertEquals(events, [{
    type: "run_failed",
    kind: "session",
    errorKind: "not_found",
    error: `Session not found: no session with id or prefix "01a2ffffffff" in ${s.h.sessionsDir}`,
  }]);
  let created = true;
  await Deno.stat(s.h.sessionsDir).catch(() => created = false);
  assert(!created, "no sessions folder was created");
});

Deno.test("SSE: an approval is answered over HTTP (approve, then deny)", async () => {
  await using s = await serve();
  for (const decision of ["approve", "deny"] as const) {
    const response = await post(`${s.base}/api/agent/stream`, {
      message: `write ${decision}.txt with 'yes'`,
    });
    const events: RunEvent[] = [];
    for await (const event of sseEvents(response)) {
      events.push(event);
      if (event.type === "approval_requested") {
        const answer = await post(
          `${s.base}/api/agent/approvals/${event.runId}/${event.callId}`,
          { decision },
        );
        assertEquals(await answer.json(), { ok: true, approved: decision === "approve" });
      }
    }
    const resolved = eventOf(events, "approval_resolved");
    assertEquals(resolved.approved, decision === "approve");
    const finished = eventOf(events, "tool_finished");
    const written = join(s.h.workspace, `${decision}.txt`);
    if (decision === "approve") {
      assertEquals(finished.output, "Wrote 3 bytes to approve.txt (created)");
      assertEquals(await Deno.readTextFile(written), "yes");
    } else {
      assertEquals(finished.isError, true);
      assertEquals(
        finished.output,
        "Approval denied: denied through the approval route. The user did not allow this write_file call; do not retry it. Continue without it, or tell the user what you wanted to do.",
      );
    }
    assertEquals(events.at(-1)!.type, "run_succeeded");
  }
});

Deno.test("SSE: an unanswered approval times out as a denial", async () => {
  await using s = await serve({}, 20);
  const events = await collect(
    await post(`${s.base}/api/agent/stream`, { message: "write late.txt with 'x'" }),
  );
  const resolved = eventOf(events, "approval_resolved");
  assertEquals([resolved.approved, resolved.reason], [false, "no decision within 20 ms"]);
  assertEquals(s.approvals.pending(), []);
});

Deno.test("approval route and bad requests answer with clear JSON errors", async () => {
  await using s = await serve();
  const unknown = await post(`${s.base}/api/agent/approvals/r1/c1`, { decision: "approve" });
  assertEquals(unknown.status, 404);
  assertEquals(await unknown.json(), { error: "No approval is pending for run r1, call c1" });
  const badDecision = await post(`${s.base}/api/agent/approvals/r1/c1`, { decision: "maybe" });
  assertEquals(badDecision.status, 400);
  await badDecision.body?.cancel();
  const notJson = await post(`${s.base}/api/agent/stream`, "{");
  assertEquals([notJson.status, await notJson.json()], [400, {
    error: "The body is not valid JSON",
  }]);
  const noMessage = await post(`${s.base}/api/agent/stream`, { sessionId: "x" });
  assertEquals(noMessage.status, 400);
  await noMessage.body?.cancel();
  const wrongMethod = await fetch(`${s.base}/api/agent/stream`);
  assertEquals(wrongMethod.status, 405);
  await wrongMethod.body?.cancel();
});

Deno.test("a client that disconnects cancels its run, which still records its end", async () => {
  await using s = await serve();
  const response = await post(`${s.base}/api/agent/stream`, {
    message: "run a slow task for 60 seconds",
  });
  let path = "";
  const reader = sseEvents(response);
  for await (const event of reader) {
    if (event.type === "run_started") path = event.sessionPath;
    if (event.type === "tool_requested") break;
  }
  const records = await waitFor("the cancelled run to write run_finished", async () => {
    const records = await fileRecords(path);
    return records.at(-1)?.type === "run_finished" && records;
  });
  assertEquals(labels(records).slice(-3), ["call:slow_task", "output:slow_task", "run_finished"]);
  const last = records.at(-1)!;
  assert(last.type === "run_finished");
  assertEquals(last.payload.outcome, "cancelled");
});

Deno.test("formatSseEvent writes event and data lines", () => {
  assertEquals(
    formatSseEvent({ type: "assistant_delta", text: "a\nb" }),
    'event: assistant_delta\ndata: {"type":"assistant_delta","text":"a\\nb"}\n\n',
  );
});

Deno.test("SSE: a session over the compaction threshold compacts, and the event is streamed", async () => {
  await using s = await serve({ "big.txt": "a line of text\n".repeat(300) }, 60_000, 1500);
  const first = await collect(
    await post(`${s.base}/api/agent/stream`, { message: "read big.txt" }),
  );
  // The turn in flight is never compacted away: a one-turn session has nothing to remove.
  assertEquals(first.some((event) => event.type === "history_compacted"), false);
  const sessionId = eventOf(first, "run_started").sessionId;
  const second = await collect(
    await post(`${s.base}/api/agent/stream`, { message: "read big.txt again", sessionId }),
  );
  const compacted = eventOf(second, "history_compacted");
  assertEquals(compacted.when, "after_round");
  const path = eventOf(first, "run_started").sessionPath;
  assert(labels(await fileRecords(path)).includes("compaction_checkpoint"));
});
