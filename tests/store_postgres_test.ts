import { assert, assertEquals, assertRejects, assertStrictEquals } from "./_assert.ts";
import { assistant, call, finished, itemRecords, output, user } from "./_helpers.ts";
import {
  disposable,
  fileCluster,
  firstTurnRecords,
  freshStore,
  metaAt,
  readAll,
  sessionAt,
  turnContext,
} from "./_postgres_helpers.ts";
import { withSql } from "../testing/postgres.ts";
import { InvalidSessionIdError, newId } from "../src/record/_ids.ts";
import {
  makeRecord,
  type ResponseItem,
  responseItemRecord,
  type SessionRecord,
} from "../src/record/_schemas.ts";
import { replayRecord } from "../src/history/_replay.ts";
import { AmbiguousSessionError, SessionNotFoundError } from "../src/store/_store.ts";
import { SessionExistsError } from "../src/store/postgres/mod.ts";

const cluster = await fileCluster("store_postgres_test.ts");
const ignore = cluster === undefined;

Deno.test({
  name: "PostgresStore.create() stores session_meta first and returns the session locked",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const meta = metaAt("2026-11-30T02:48:20.123Z");
    const { location, writer } = await store.create(meta);
    await writer.close();
    assertEquals(location, {
      id: meta.id,
      createdAt: "2026-11-30T02:48:20.123Z",
      path: `postgres://127.0.0.1:${cluster!.port}/${
        new URL(store.url).pathname.slice(1)
      }#${meta.id}`,
    });
    assert(!store.name.includes(cluster!.password), store.name);
    assertEquals(await readAll(store, location), [
      { timestamp: "2026-11-30T02:48:20.123Z", type: "session_meta", payload: meta },
    ]);
    await assertRejects(
      () => store.create(meta),
      SessionExistsError,
      `Session already exists: ${meta.id} in ${store.name}`,
    );
  },
});

/** Records whose text is hard to keep exact: escapes, non-ASCII, a lone surrogate, NUL. */
function trickyRecords(runId: string): SessionRecord[] {
  return [
    turnContext(runId),
    ...itemRecords([
      user('quotes " and \\ backslashes, tabs\t, newlines\n\r\n, NUL \u0000, é ü 日本 🎉'),
      call("c1", "write_file", '{"path":"a.txt","text":"{\\"nested\\": [1, 2]}"}'),
      output("c1", "write_file", "lone surrogate \ud800 and U+2028 \u2028 kept"),
      {
        type: "function_call_output",
        callId: "c2",
        toolName: "slow_task",
        output: "x".repeat(200_000),
        isError: true,
        synthesized: true,
      },
      assistant(""),
    ]),
    makeRecord("run_finished", {
      runId,
      outcome: "failed",
      error: "boom",
      rounds: 2,
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    }),
  ];
}

Deno.test({
  name: "PostgresStore.read() gives back every record exactly as appended, in append order",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const meta = metaAt("2026-11-30T10:00:00Z");
    const { location, writer } = await store.create(meta);
    const first = trickyRecords(meta.id);
    // A payload whose keys are not in schema order: the stored text keeps the order written.
    const reordered = {
      type: "response_item",
      payload: { content: "keys out of order", role: "user", type: "message" },
      timestamp: "2026-11-30T10:00:01.000Z",
    } as unknown as SessionRecord;
    await writer.append(first);
    const last = finished(meta.id, 3);
    await writer.append([reordered]);
    await writer.append([last]);
    assertStrictEquals(writer.appendedRecords, 1 + first.length + 2);
    await writer.close();

    const written = [
      makeRecord("session_meta", meta, new Date(meta.createdAt)),
      ...first,
      reordered,
      last,
    ];
    const entries = [];
    for await (const entry of store.read(location)) entries.push(entry);
    assertEquals(entries.map((e) => e.text), written.map((r) => JSON.stringify(r)));
    assertEquals(entries.map((e) => e.line), written.map((_, i) => i + 1));
    assertEquals(entries.map((e) => e.problem), written.map(() => undefined));
    const parsed = entries.map((e) => e.record);
    assertEquals(parsed.map((r) => JSON.stringify(r)), [
      ...written.slice(0, -2).map((r) => JSON.stringify(r)),
      JSON.stringify(responseItemRecord(user("keys out of order"), new Date(reordered.timestamp))),
      JSON.stringify(last),
    ]);
    // From a position: that record and the ones after it.
    const tail = [];
    for await (const entry of store.read(location, { line: 8, offset: 8 })) tail.push(entry.text);
    assertEquals(tail, written.slice(7).map((r) => JSON.stringify(r)));
  },
});

Deno.test({
  name: "PostgresStore.find() finds a session by full id or unique prefix, any case",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const a = await sessionAt(store, "2026-01-02T10:00:00Z");
    const b = await sessionAt(store, "2026-11-30T10:00:00Z");
    assertEquals(await store.find(a.id), a);
    assertEquals(await store.find(b.id.slice(0, 8)), b);
    assertEquals(await store.find(b.id.toUpperCase()), b);
    const missing = newId();
    await assertRejects(
      () => store.find(missing),
      SessionNotFoundError,
      `Session not found: no session with id or prefix "${missing}" in ${store.name}`,
    );
    await assertRejects(() => store.find("../etc"), InvalidSessionIdError, "Invalid session id");
  },
});

Deno.test({
  name: "PostgresStore.find() rejects an ambiguous prefix, listing every candidate newest first",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const a = await sessionAt(store, "2026-11-30T10:00:00.000Z");
    const b = await sessionAt(store, "2026-11-30T10:00:00.001Z");
    const prefix = a.id.slice(0, 8);
    const error = await assertRejects(() => store.find(prefix), AmbiguousSessionError);
    assertEquals(
      error.message,
      `Ambiguous session id "${prefix}": it matches 2 sessions:\n` +
        `  ${b.id}  2026-11-30T10:00:00.001Z\n  ${a.id}  2026-11-30T10:00:00.000Z`,
    );
    assertEquals(error.candidates, [b, a]);
  },
});

Deno.test({
  name: "PostgresStore.shortestUniquePrefix() is the shortest prefix that finds only that session",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const a = await sessionAt(store, "2026-11-30T10:00:00.000Z");
    const b = await sessionAt(store, "2026-11-30T10:00:00.001Z");
    const lone = await sessionAt(store, "2025-01-01T00:00:00Z");
    assertStrictEquals(await store.shortestUniquePrefix(lone.id), lone.id.slice(0, 8));
    assertStrictEquals(await store.shortestUniquePrefix(lone.id, 4), lone.id.slice(0, 4));
    for (const location of [a, b]) {
      const prefix = await store.shortestUniquePrefix(location.id);
      assertEquals(await store.find(prefix), location);
      assert(!prefix.endsWith("-"), prefix);
      const shorter = prefix.slice(0, -1).replace(/-$/, "");
      if (shorter.length >= 8) {
        await assertRejects(() => store.find(shorter), AmbiguousSessionError);
      }
    }
  },
});

Deno.test({
  name: "PostgresStore.list() lists newest first with a one-line preview and the counts",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const old = await sessionAt(store, "2025-06-01T00:00:00Z", "first\n  question   here");
    const empty = await sessionAt(store, "2026-01-01T00:00:00Z");
    const meta = metaAt("2026-11-30T10:00:00Z");
    const { location: busy, writer } = await store.create(meta);
    await writer.append(firstTurnRecords(meta.id, "x".repeat(300)));
    await writer.append([turnContext("run-2", true), responseItemRecord(user("second"))]);
    await writer.close();

    const { sessions, more } = await store.list();
    assertStrictEquals(more, false);
    assertEquals(sessions.map((s) => s.id), [busy.id, empty.id, old.id]);
    assertEquals(sessions.map((s) => s.preview), [
      `${"x".repeat(79)}…`,
      undefined,
      "first question here",
    ]);
    assertEquals(sessions.map((s) => [s.recordCount, s.turnCount]), [[6, 2], [1, 0], [4, 1]]);
    const records = await readAll(store, busy);
    const bytes = records.reduce(
      (n, r) => n + new TextEncoder().encode(JSON.stringify(r)).length + 1,
      0,
    );
    assertStrictEquals(sessions[0]!.sizeBytes, bytes);

    const page = await store.list({ limit: 2 });
    assertEquals(page.sessions.map((s) => s.id), [busy.id, empty.id]);
    assertStrictEquals(page.more, true);
  },
});

/** A session with `before` records of chatter, a checkpoint, then `after` more records. */
async function sessionWithCheckpoint(
  store: Awaited<ReturnType<typeof freshStore>>,
  sizes: { before: number; after: number },
) {
  const meta = metaAt("2026-11-30T10:00:00Z");
  const { location, writer } = await store.create(meta);
  const chatter = (n: number, tag: string) =>
    itemRecords(Array.from({ length: n }, (_, i) => assistant(`${tag} ${i}`)));
  await writer.append([...firstTurnRecords("run-1", "hello"), ...chatter(sizes.before, "old")]);
  const kept: ResponseItem[] = [{ type: "message", role: "system", content: "sys" }];
  const checkpoint = responseItemRecord({
    type: "compaction_checkpoint",
    version: 1,
    reason: "test",
    tokensBefore: 1000,
    removedItemCount: sizes.before + 1,
    keptItemCount: 1,
    recordsBefore: writer.appendedRecords,
    replacementHistory: [...kept, { type: "compaction_summary", content: "summary" }],
  });
  await writer.append([checkpoint, ...chatter(sizes.after, "new")]);
  await writer.close();
  return { location, checkpointLine: 1 + 3 + sizes.before + 1, checkpoint };
}

Deno.test({
  name:
    "PostgresStore.lastCheckpoint() finds the checkpoint, and read() from it fetches only later rows",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const { location, checkpointLine, checkpoint } = await sessionWithCheckpoint(store, {
      before: 2500,
      after: 40,
    });
    const before = store.recordRowsRead;
    const found = await store.lastCheckpoint(location);
    assertEquals(found, {
      checkpoint: checkpoint.payload,
      position: { line: checkpointLine, offset: checkpointLine },
    });
    const fromCheckpoint: ResponseItem[] = [];
    let count = 0;
    for await (const entry of store.read(location, found!.position)) {
      replayRecord(fromCheckpoint, entry.record!);
      count++;
    }
    assertStrictEquals(count, 41);
    assertStrictEquals(store.recordRowsRead - before, 1 + 41);
    // The same history as replaying every record.
    const full: ResponseItem[] = [];
    for (const record of (await readAll(store, location)).slice(1)) replayRecord(full, record);
    assertEquals(fromCheckpoint, full);
    // No turn started after the checkpoint: the last turn_context before it, by its index.
    const turn = await store.lastRecordBefore(location, found!.position, "turn_context");
    assertEquals(turn?.payload, turnContext("run-1").payload);
    assertStrictEquals(
      await store.lastRecordBefore(location, { line: 2, offset: 2 }, "turn_context"),
      undefined,
    );
  },
});

Deno.test({
  name: "PostgresStore.lastCheckpoint() is undefined for a session without one",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    assertStrictEquals(await store.lastCheckpoint(location), undefined);
  },
});

Deno.test({
  name:
    "PostgresStore: finding by prefix, reading from a position and the last turn_context use indexes",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    const id = location.id;
    // Generic plans, as for the store's parameterized statements, with sequential scans off
    // so that a small table still shows which index can serve the statement.
    const plans = await withSql(store.url, async (sql) => {
      await sql.query("SET enable_seqscan = off");
      await sql.query("SET plan_cache_mode = force_generic_plan");
      await sql.query(
        "PREPARE find(text, text) AS SELECT id FROM turnlog_sessions WHERE id >= $1 AND id < $2",
      );
      await sql.query(`PREPARE tail(text, bigint) AS SELECT record FROM turnlog_records
        WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT 1000`);
      await sql.query(`PREPARE turn(text, bigint) AS SELECT record FROM turnlog_records
        WHERE session_id = $1 AND type = 'turn_context' AND seq < $2 ORDER BY seq DESC LIMIT 1`);
      const plan = async (execute: string) =>
        (await sql.query(`EXPLAIN EXECUTE ${execute}`)).rows
          .map((row) => Object.values(row)[0]).join("\n");
      return {
        find: await plan(`find('${id.slice(0, 8)}', '${id.slice(0, 8)}~')`),
        tail: await plan(`tail('${id}', 3)`),
        turn: await plan(`turn('${id}', 5)`),
      };
    });
    assert(plans.find.includes("turnlog_sessions_pkey"), plans.find);
    assert(plans.find.includes("Index Cond: ((id >= $1) AND (id < $2))"), plans.find);
    assert(plans.tail.includes("Index Scan using turnlog_records_pkey"), plans.tail);
    assert(!plans.tail.includes("Sort"), plans.tail);
    assert(plans.turn.includes("turnlog_records_turn_context"), plans.turn);
  },
});

Deno.test({
  name: "PostgresStore.lock() on a closed session's writer appends after what is there",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    await using writer = disposable(await store.lock(location));
    await writer.append([responseItemRecord(assistant("hi"))]);
    assertStrictEquals(writer.appendedRecords, 1);
    const records = await readAll(store, location);
    assertEquals(records.length, 5);
    assertEquals(records[4], responseItemRecord(assistant("hi"), new Date(records[4]!.timestamp)));
    await assertRejects(
      () => store.lock({ ...location, id: newId() }),
      SessionNotFoundError,
      "Session not found",
    );
  },
});

Deno.test({
  name: "StoreWriter.append() calls made without waiting land whole, in call order",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    await using writer = disposable(await store.lock(location));
    const batches = Array.from(
      { length: 20 },
      (_, i) => itemRecords([assistant(`${i}a`), assistant(`${i}b`)]),
    );
    await Promise.all(batches.map((batch) => writer.append(batch)));
    const contents = (await readAll(store, location)).slice(4).map((r) =>
      "content" in r.payload ? r.payload.content : ""
    );
    assertEquals(contents, batches.flatMap((_, i) => [`${i}a`, `${i}b`]));
    assertStrictEquals(writer.appendedRecords, 40);
  },
});
