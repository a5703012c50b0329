import { RunEventSchema } from "../src/runtime/schemas.ts";
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import {
  eventOf,
  fileRecords,
  harness,
  killedSession,
  labels,
  pairedCallCount,
  sentShape,
  sentUserMessages,
} from "./_runtime_helpers.ts";
import { deniedOutput, NO_TERMINAL_REASON, terminalApprover } from "../src/runtime/mod.ts";
import type { WireApi } from "../src/record/mod.ts";
import { isTerminalEvent } from "../src/runtime/mod.ts";
import { toChatMessages, toResponsesInput } from "../src/runtime/_wire.ts";
import { SUMMARY_PREFIX } from "../src/compaction/mod.ts";
import { startEmbeddedModel } from "../src/embedded_model/mod.ts";
import { connectModel, providerFor, usesEmbeddedModel } from "../src/runtime/mod.ts";
import { runTurn } from "../src/runtime/mod.ts";
import { SessionWriter } from "../src/store/mod.ts";

const WIRE_APIS: WireApi[] = ["responses", "chat"];

for (const wireApi of WIRE_APIS) {
  Deno.test(`${wireApi}: a fresh turn with a tool call appends exactly its records, in order`, async () => {
    await using h = await harness({ "notes.txt": "one\ntwo\n", "src/main.ts": "x" });
    const events = await h.turn("list the files", { wireApi });
    for (const event of events) RunEventSchema.parse(event);
    assertEquals(events.map((e) => e.type), [
      "run_started",
      "model_requested",
      "tool_requested",
      "tool_finished",
      "model_requested",
      ...events.filter((e) => e.type === "assistant_delta").map(() => "assistant_delta" as const),
      "assistant_message",
      "run_succeeded",
    ]);
    const started = eventOf(events, "run_started");
    assertEquals(started.sessionId, started.runId);
    assertEquals(started.resumed, false);
    assertEquals(started.wireApi, wireApi);
    assertEquals(eventOf(events, "tool_finished").output, "notes.txt\nsrc/");

    const records = await fileRecords(started.sessionPath);
    assertEquals(labels(records), [
      "session_meta",
      "turn_context",
      "system",
      "user",
      "call:list_dir",
      "output:list_dir",
      "assistant",
      "run_finished",
    ]);
    const meta = records[0]!;
    assert(meta.type === "session_meta");
    assertEquals(meta.payload.modelProvider, "embedded");
    assertEquals(meta.payload.wireApi, wireApi);
    const call = records[4]!.payload as { callId: string; arguments: string };
    const output = records[5]!.payload as { callId: string; output: string; isError: boolean };
    assertEquals(output.callId, call.callId);
    assertEquals([output.output, output.isError], ["notes.txt\nsrc/", false]);
    const finished = records[7]!;
    assert(finished.type === "run_finished");
    assertEquals([finished.payload.outcome, finished.payload.rounds], ["succeeded", 2]);
    const succeeded = eventOf(events, "run_succeeded");
    assertEquals(finished.payload.usage, succeeded.usage);
    assert(succeeded.usage.inputTokens > 0);
    // Two requests: the first without tool items, the second with the call and its output.
    assertEquals(h.sent.map(sentShape), [
      ["system", "user"],
      ["system", "user", "call", "output"],
    ]);
  });

  Deno.test(`${wireApi}: a resumed turn sends both turns' user messages and appends only new records`, async () => {
    await using h = await harness();
    const first = await h.turn("hello there", { wireApi });
    const sessionId = eventOf(first, "run_started").sessionId;
    const path = eventOf(first, "run_started").sessionPath;
    const before = (await fileRecords(path)).length;
    const second = await h.turn("and again", { sessionId });
    const started = eventOf(second, "run_started");
    assertEquals([started.sessionId, started.resumed], [sessionId, true]);
    assert(started.runId !== sessionId);
    assertEquals(started.recordCountBefore, before);
    // The seed's simple case: 2 messages, then the next turn's request holds both user messages.
    assertEquals(h.sent.map(sentShape), [
      ["system", "user"],
      ["system", "user", "assistant", "user"],
    ]);
    assertEquals(sentUserMessages(h.sent[1]), ["hello there", "and again"]);
    assertEquals(eventOf(second, "model_requested").messageCount, 4);
    const records = await fileRecords(path);
    assertEquals(labels(records.slice(before)), [
      "turn_context",
      "user",
      "assistant",
      "run_finished",
    ]);
    const turn = records[before]!;
    assert(turn.type === "turn_context");
    assertEquals([turn.payload.resumed, turn.payload.wireApi], [true, wireApi]);
  });

  Deno.test(`${wireApi}: a subprocess killed mid-tool is repaired once on resume`, async () => {
    await using h = await harness({ "a.txt": "a" });
    const { sessionId, sessionPath, killed } = await killedSession(h, { wireApi });
    assert(killed.killed, "the child was killed");
    assertEquals(killed.exitSignal, "SIGKILL");
    const afterKill = await fileRecords(sessionPath);
    assertEquals(labels(afterKill.slice(-3)), ["turn_context", "user", "call:slow_task"]);
    assertEquals((afterKill.at(-1)!.payload as { callId: string }).callId, killed.callId);

    h.sent.length = 0;
    const resumed = await h.turn("continue", { sessionId });
    const repaired = eventOf(resumed, "session_repaired");
    assertEquals([repaired.synthesized, repaired.callIds], [1, [killed.callId!]]);
    const records = await fileRecords(sessionPath);
    const added = records.slice(afterKill.length);
    assertEquals(labels(added), [
      "turn_context",
      "synthesized:slow_task",
      "user",
      "call:slow_task",
      "output:slow_task",
      "assistant",
      "run_finished",
    ]);
    const synthesized = added[1]!.payload as { callId: string; output: string; isError: boolean };
    assertEquals([synthesized.callId, synthesized.isError], [killed.callId, true]);
    assertMatch(synthesized.output, /^Error \[SESSION_RESUME_INTERRUPTED\]/);
    // The model re-issued the call under a new id, and it completed this time.
    assertEquals(eventOf(resumed, "tool_finished").output, "slow_task finished after 0.8 seconds");
    // Every request of the resumed turn had every call paired (the server also enforces it).
    assertEquals(h.sent.map(pairedCallCount), [2, 3]);
    assertEquals(sentUserMessages(h.sent[0]), [
      "list the files",
      "run a slow task for 0.8 seconds",
      "continue",
    ]);
    // The file grew by the new records only; nothing was copied.
    assertEquals(records.length, afterKill.length + 7);

    const again = await h.turn("thanks", { sessionId });
    assert(!again.some((e) => e.type === "session_repaired"), "nothing to repair");
    const final = await fileRecords(sessionPath);
    assertEquals(labels(final.slice(records.length)), [
      "turn_context",
      "user",
      "assistant",
      "run_finished",
    ]);
    assertEquals(labels(final).filter((l) => l.startsWith("synthesized")).length, 1);
  });

  Deno.test(`${wireApi}: without a terminal a change is denied and the model is told not to retry`, async () => {
    await using h = await harness();
    const events = await h.turn("write hello.txt with 'hi'", {
      wireApi,
      approver: terminalApprover({ isTerminal: () => false }),
    });
    assertEquals(
      events.map((e) => e.type).filter((t) => t.startsWith("approval") || t.startsWith("tool")),
      ["tool_requested", "approval_requested", "approval_resolved", "tool_finished"],
    );
    const resolved = eventOf(events, "approval_resolved");
    assertEquals([resolved.approved, resolved.reason], [false, NO_TERMINAL_REASON]);
    const records = await fileRecords(eventOf(events, "run_started").sessionPath);
    const output = records.find((r) =>
      r.type === "response_item" && r.payload.type === "function_call_output"
    )!.payload;
    assertEquals(output, {
      type: "function_call_output",
      callId: eventOf(events, "tool_requested").callId,
      toolName: "write_file",
      output:
        "Approval denied: no terminal to ask for approval. The user did not allow this write_file call; do not retry it. Continue without it, or tell the user what you wanted to do.",
      isError: true,
    });
    assertEquals(
      (output as { output: string }).output,
      deniedOutput("write_file", NO_TERMINAL_REASON),
    );
    assertEquals(eventOf(events, "run_succeeded").rounds, 2);
    assert(!(await exists(join(h.workspace, "hello.txt"))), "nothing was written");
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("an approved change runs; auto never asks", async () => {
  await using h = await harness();
  const approved = await h.turn("write a.txt with 'one'", {
    approver: { decide: () => Promise.resolve({ approved: true, reason: "test says yes" }) },
  });
  assertEquals(eventOf(approved, "tool_finished").output, "Wrote 3 bytes to a.txt (created)");
  assertEquals(await Deno.readTextFile(join(h.workspace, "a.txt")), "one");
  const auto = await h.turn("write a.txt with 'two'", { policy: { approval: "auto" } });
  assert(!auto.some((e) => e.type === "approval_requested"));
  assertEquals(await Deno.readTextFile(join(h.workspace, "a.txt")), "two");
});

Deno.test("ask-all asks even for reading; a resumed turn keeps the recorded policy", async () => {
  await using h = await harness({ "a.txt": "a" });
  const first = await h.turn("read a.txt", { policy: { approval: "ask-all" } });
  assertEquals(eventOf(first, "approval_resolved").approved, false);
  const sessionId = eventOf(first, "run_started").sessionId;
  const second = await h.turn("read a.txt", { sessionId });
  assertEquals(eventOf(second, "run_started").policy, { approval: "ask-all" });
  assert(second.some((e) => e.type === "approval_requested"));
  const third = await h.turn("read a.txt", { sessionId, policy: { approval: "auto" } });
  assertEquals(eventOf(third, "run_started").policy, { approval: "auto" });
  assertEquals(eventOf(third, "tool_finished").output, "a");
});

Deno.test("a path outside the workspace is refused with a tool error, not executed", async () => {
  await using h = await harness({ "inside.txt": "in" });
  const secret = join(h.workspace, "..", "secret.txt");
  await Deno.writeTextFile(secret, "TOP SECRET");
  const events = await h.turn("read ../secret.txt", { policy: { approval: "auto" } });
  const finished = eventOf(events, "tool_finished");
  assertEquals(finished.isError, true);
  assertEquals(
    finished.output,
    `Error: Path "../secret.txt" is outside the workspace ${h.workspace}; only paths inside it can be used`,
  );
  const records = await fileRecords(eventOf(events, "run_started").sessionPath);
  assert(!JSON.stringify(records).includes("TOP SECRET"), "the secret never reached the file");
  await Deno.remove(secret);
});

Deno.test("cancellation aborts the tool in flight and ends the run as cancelled", async () => {
  await using h = await harness();
  const controller = new AbortController();
  const events = [];
  for await (
    const event of runTurn({
      message: "run a slow task for 60 seconds",
      connection: h.connection,
      sessionsDir: h.sessionsDir,
      workspace: h.workspace,
      signal: controller.signal,
    })
  ) {
    events.push(event);
    if (event.type === "tool_requested") setTimeout(() => controller.abort(), 50);
  }
  assertEquals(events.filter(isTerminalEvent).map((e) => e.type), ["run_cancelled"]);
  const finished = eventOf(events, "tool_finished");
  assertEquals(finished.isError, true);
  assertMatch(finished.output, /^Cancelled: the run was cancelled (while|before)/);
  const path = eventOf(events, "run_started").sessionPath;
  const records = await fileRecords(path);
  assertEquals(labels(records).slice(-3), ["call:slow_task", "output:slow_task", "run_finished"]);
  const last = records.at(-1)!;
  assert(last.type === "run_finished");
  assertEquals(last.payload.outcome, "cancelled");
  // The file is paired: the next turn has nothing to repair.
  const next = await h.turn("hello", { sessionId: eventOf(events, "run_started").sessionId });
  assert(!next.some((e) => e.type === "session_repaired"));
});

Deno.test("an unknown session id fails as an event and creates nothing", async () => {
  await using h = await harness();
  const events = await h.turn("hello", { sessionId: "01a2ffff" });
  assertEquals(events.length, 1);
  const failed = eventOf(events, "run_failed");
  assertEquals(failed.kind, "session");
  assertEquals(
    failed.error,
    `Session not found: no session with id or prefix "01a2ffff" in ${h.sessionsDir}`,
  );
  assert(!(await exists(h.sessionsDir)), "no sessions folder was created");
  assertEquals(h.sent.length, 0);
});

Deno.test("a missing workspace fails before any session is created", async () => {
  await using h = await harness();
  const events = await h.turn("hello", { workspace: join(h.workspace, "nope") });
  assertEquals(events.map((e) => e.type), ["run_failed"]);
  assertEquals(eventOf(events, "run_failed").kind, "workspace");
  assert(!(await exists(h.sessionsDir)));
});

Deno.test("a model error becomes run_failed and is recorded in run_finished", async () => {
  await using h = await harness();
  const events = await h.turn("hello", { model: "no-such-model" });
  const failed = eventOf(events, "run_failed");
  assertEquals(failed.kind, "model");
  assertMatch(failed.error, /^The model request failed: 404 /);
  const records = await fileRecords(eventOf(events, "run_started").sessionPath);
  const last = records.at(-1)!;
  assert(last.type === "run_finished");
  assertEquals([last.payload.outcome, last.payload.error], ["failed", failed.error]);
});

Deno.test("the round limit ends the turn cleanly with its tool results saved", async () => {
  await using h = await harness({ "a.txt": "a" });
  const events = await h.turn("list the files", { maxRounds: 1 });
  const succeeded = eventOf(events, "run_succeeded");
  assertEquals([succeeded.rounds, succeeded.roundLimitReached], [1, true]);
  const records = await fileRecords(eventOf(events, "run_started").sessionPath);
  assertEquals(labels(records).slice(-3), ["call:list_dir", "output:list_dir", "run_finished"]);
  // Continuing lets the model answer from the saved results.
  const next = await h.turn("go on", { sessionId: succeeded.sessionId });
  assertEquals(eventOf(next, "run_succeeded").roundLimitReached, false);
});

Deno.test("the compaction step runs at the start of a resumed turn and after every round", async () => {
  await using h = await harness({ "a.txt": "a" });
  const seen: string[] = [];
  const compactor = (context: { when: string; history: readonly unknown[] }) => {
    seen.push(`${context.when}:${context.history.length}`);
    return Promise.resolve(undefined);
  };
  const first = await h.turn("list the files", { compactor });
  assertEquals(seen, ["after_round:4", "after_round:5"]);
  seen.length = 0;
  await h.turn("hello", { compactor, sessionId: eventOf(first, "run_started").sessionId });
  assertEquals(seen, ["turn_start:6", "after_round:7"]);
});

Deno.test("wire conversion: chat joins calls to the assistant message; summaries become user messages", () => {
  const history = [
    { type: "compaction_summary" as const, content: "earlier" },
    { type: "message" as const, role: "assistant" as const, content: "Let me look." },
    { type: "function_call" as const, callId: "c1", name: "list_dir", arguments: '{"path":"."}' },
    { type: "function_call" as const, callId: "c2", name: "read_file", arguments: '{"path":"a"}' },
    {
      type: "function_call_output" as const,
      callId: "c1",
      toolName: "list_dir",
      output: "a",
      isError: false,
    },
    {
      type: "function_call_output" as const,
      callId: "c2",
      toolName: "read_file",
      output: "x",
      isError: false,
    },
    { type: "function_call" as const, callId: "c3", name: "list_dir", arguments: "{}" },
  ];
  assertEquals(toChatMessages(history), [
    { role: "user", content: `${SUMMARY_PREFIX}earlier` },
    {
      role: "assistant",
      content: "Let me look.",
      tool_calls: [
        { id: "c1", type: "function", function: { name: "list_dir", arguments: '{"path":"."}' } },
        { id: "c2", type: "function", function: { name: "read_file", arguments: '{"path":"a"}' } },
      ],
    },
    { role: "tool", tool_call_id: "c1", content: "a" },
    { role: "tool", tool_call_id: "c2", content: "x" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c3", type: "function", function: { name: "list_dir", arguments: "{}" } }],
    },
  ]);
  assertEquals(toResponsesInput(history.slice(0, 3)), [
    { type: "message", role: "user", content: `${SUMMARY_PREFIX}earlier` },
    { type: "message", role: "assistant", content: "Let me look." },
    { type: "function_call", call_id: "c1", name: "list_dir", arguments: '{"path":"."}' },
  ]);
});

Deno.test("OPENAI_BASE_URL points the same code path at any compatible server", async () => {
  await using server = await startEmbeddedModel();
  const vars: Record<string, string> = {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: server.apiKey,
    OPENAI_MODEL: "scripted",
  };
  const env = { get: (name: string) => vars[name] };
  await using connection = await connectModel({ env });
  const host = new URL(server.baseURL).host;
  assertEquals([connection.embedded, connection.model, connection.modelProvider], [
    false,
    "scripted",
    host,
  ]);
  const sessionsDir = await Deno.makeTempDir();
  const events = [];
  for await (
    const event of runTurn({
      message: "hello",
      connection,
      sessionsDir,
      workspace: sessionsDir,
    })
  ) {
    events.push(event);
  }
  assertEquals(events.at(-1)!.type, "run_succeeded");
  const meta = (await fileRecords(eventOf(events, "run_started").sessionPath))[0]!;
  assert(meta.type === "session_meta");
  assertEquals(meta.payload.modelProvider, host);
  await Deno.remove(sessionsDir, { recursive: true });

  const none = { get: (_: string) => undefined };
  assertEquals(usesEmbeddedModel({ env: none }), true);
  assertEquals(
    usesEmbeddedModel({ env: { get: (n) => n === "OPENAI_API_KEY" ? "k" : undefined } }),
    false,
  );
  assertEquals(
    usesEmbeddedModel({
      model: "scripted",
      env: { get: (n) => n === "OPENAI_API_KEY" ? "k" : undefined },
    }),
    true,
  );
  assertEquals([providerFor(undefined), providerFor("https://api.openai.com/v1")], [
    "openai",
    "openai",
  ]);
  assertEquals(providerFor("http://localhost:11434/v1"), "localhost:11434");
});

Deno.test("a session held by another run fails as 'in use' and is left untouched", async () => {
  await using h = await harness();
  const first = await h.turn("hello");
  const { sessionId, sessionPath } = eventOf(first, "run_started");
  const before = await Deno.readTextFile(sessionPath);
  using _held = await SessionWriter.open(sessionPath);
  const events = await h.turn("again", { sessionId });
  assertEquals(events.map((e) => e.type), ["run_failed"]);
  const failed = eventOf(events, "run_failed");
  assertEquals([failed.kind, failed.error], [
    "session",
    `Session is in use: another run holds the lock on ${sessionPath}`,
  ]);
  assertEquals(await Deno.readTextFile(sessionPath), before);
});

for (const wireApi of WIRE_APIS) {
  Deno.test(`${wireApi}: a file whose two turns use one call id is sent with the repeat renamed, and the file keeps it`, async () => {
    await using h = await harness({ "notes.txt": "one\n", "a.md": "two\n" });
    const first = eventOf(await h.turn("read notes.txt", { wireApi }), "run_started");
    const sessionId = first.sessionId;
    await h.turn("read a.md", { sessionId, wireApi });
    const ids = (await fileRecords(first.sessionPath)).flatMap((r) =>
      r.type === "response_item" && r.payload.type === "function_call" ? [r.payload.callId] : []
    );
    assertEquals(ids.length, 2);
    // The second turn's call takes the first's id, as a model that numbers calls per turn does.
    const text = await Deno.readTextFile(first.sessionPath);
    await Deno.writeTextFile(first.sessionPath, text.replaceAll(ids[1]!, ids[0]!));
    const before = await Deno.readTextFile(first.sessionPath);
    h.sent.length = 0;
    const events = await h.turn("what did I ask?", { sessionId, wireApi });
    assertEquals(events.at(-1)?.type, "run_succeeded", JSON.stringify(events.at(-1)));
    const sent = wireApi === "responses"
      ? h.sent[0].input.filter((i: { type?: string }) => i.type === "function_call")
        .map((i: { call_id: string }) => i.call_id)
      : h.sent[0].messages.flatMap((m: { tool_calls?: { id: string }[] }) =>
        (m.tool_calls ?? []).map((c) => c.id)
      );
    assertEquals(sent, [ids[0], `${ids[0]}~2`]);
    assert((await Deno.readTextFile(first.sessionPath)).startsWith(before), "the file as it was");
  });
}
