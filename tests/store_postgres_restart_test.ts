/**
 * A database that stops or restarts during a run: the run says so clearly, and what it leaves
 * stored is whole, so the next turn resumes it. (A cluster of this file's own: it is stopped.)
 *
 * @module
 */
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { fileCluster } from "./_postgres_helpers.ts";
import { eventOf, harness } from "./_runtime_helpers.ts";
import type { Approver, RunEvent, RunEventOf } from "../src/runtime/mod.ts";
import type { SessionRecord } from "../src/record/mod.ts";
import { PostgresStore } from "../src/store/postgres/mod.ts";

const cluster = await fileCluster("store_postgres_restart_test.ts");
const ignore = cluster === undefined;

/** Approves every call after doing `meanwhile` (what happens to the database during the tool). */
function approvingAfter(meanwhile: () => Promise<void>): Approver {
  return {
    async decide() {
      await meanwhile();
      return { approved: true, reason: "approved by the test" };
    },
  };
}

function only<T extends RunEvent["type"]>(events: RunEvent[], type: T): RunEventOf<T> {
  const found = events.filter((e): e is RunEventOf<T> => e.type === type);
  assertStrictEquals(found.length, 1, `${type} in ${events.map((e) => e.type).join(", ")}`);
  return found[0]!;
}

async function stored(store: PostgresStore, id: string): Promise<SessionRecord[]> {
  const records: SessionRecord[] = [];
  for await (const entry of store.read(await store.find(id))) {
    assert(entry.record, entry.problem?.message);
    records.push(entry.record);
  }
  return records;
}

Deno.test({
  name:
    "runTurn() on PostgreSQL: a database that stops mid-turn fails the run in one line; the next turn resumes it",
  ignore,
  fn: async () => {
    await using store = new PostgresStore(await cluster!.createDatabase());
    await using h = await harness();
    const slow = "run a slow task for 0.01 seconds";
    const events = await h.turn(slow, {
      store,
      policy: { approval: "ask-all" },
      approver: approvingAfter(() => cluster!.stopServer()),
    });
    const sessionId = eventOf(events, "run_started").sessionId;
    const failed = only(events, "run_failed");
    try {
      assertEquals([failed.errorKind, failed.kind], ["store", "session"]);
      assertStrictEquals(
        failed.error,
        `Could not reach the session store at ${store.name}: connection refused (is the server running?)`,
      );
    } finally {
      await cluster!.startServer();
    }
    // Stored: the turn up to the call, whole; the output and the run's end never made it.
    const before = await stored(store, sessionId);
    assertEquals(before.map((r) => r.type === "response_item" ? r.payload.type : r.type), [
      "session_meta",
      "turn_context",
      "message",
      "message",
      "function_call",
    ]);
    const next = await h.turn("what did I ask?", { store, sessionId });
    const repaired = only(next, "session_repaired");
    assertStrictEquals(repaired.synthesized, 1);
    assert(only(next, "run_succeeded").answer.includes(`1. ${slow}`));
    const after = await stored(store, sessionId);
    assertEquals(after.slice(0, before.length), before);
    const output = after[before.length + 1];
    assert(
      output?.type === "response_item" && output.payload.type === "function_call_output" &&
        output.payload.synthesized === true,
      JSON.stringify(output),
    );
  },
});

Deno.test({
  name: "runTurn() on PostgreSQL: a restart between two appends does not stop the run",
  ignore,
  fn: async () => {
    await using store = new PostgresStore(await cluster!.createDatabase());
    await using h = await harness();
    const events = await h.turn("run a slow task for 0.01 seconds", {
      store,
      policy: { approval: "ask-all" },
      approver: approvingAfter(async () => {
        await cluster!.stopServer();
        await cluster!.startServer();
      }),
    });
    const done = only(events, "run_succeeded");
    const records = await stored(store, done.sessionId);
    assertStrictEquals(records.length, done.recordCount);
    assertEquals(records.at(-1)?.type, "run_finished");
    const kinds = records.flatMap((r) => r.type === "response_item" ? [r.payload.type] : []);
    assertEquals(kinds.filter((k) => k.startsWith("function_call")), [
      "function_call",
      "function_call_output",
    ]);
  },
});
