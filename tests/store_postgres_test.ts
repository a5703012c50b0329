import { assert, assertEquals, assertRejects, assertStrictEquals } from "./_assert.ts";
import { fileCluster, freshStore } from "./_postgres_helpers.ts";
import {
  firstTurnRecords,
  metaAt,
  metaRecord,
  sessionAt,
  sessionWithCheckpoint,
} from "./_store_fixtures.ts";
import { withSql } from "../testing/postgres.ts";
import { InvalidStoreError, openStore, SessionExistsError } from "../src/store/mod.ts";
import { PostgresStore } from "../src/store/postgres/mod.ts";

const cluster = await fileCluster("store_postgres_test.ts");
const ignore = cluster === undefined;

Deno.test({
  name: "PostgresStore names the database by a URL without its password",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const database = new URL(store.url).pathname.slice(1);
    assertStrictEquals(store.name, `postgres://postgres@127.0.0.1:${cluster!.port}/${database}`);
    assert(store.url.includes(cluster!.password));
    const meta = metaAt("2026-11-30T02:48:20.123Z");
    const { location, writer } = await store.create(metaRecord(meta));
    await writer.close();
    assertEquals(location, {
      id: meta.id,
      createdAt: "2026-11-30T02:48:20.123Z",
      path: `${store.name}#${meta.id}`,
    });
    await assertRejects(
      () => store.create(metaRecord(meta)),
      SessionExistsError,
      `Session already exists: ${meta.id} in ${store.name}`,
    );
    assertStrictEquals(
      new PostgresStore("postgresql://u:p%40ss@db.internal/turnlog?password=x&sslmode=require")
        .name,
      "postgres://u@db.internal:5432/turnlog",
    );
  },
});

Deno.test({
  name: "PostgresStore keeps each record's JSON text as appended, its type in a column of its own",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const meta = metaAt("2026-11-30T10:00:00Z");
    const { location, writer } = await store.create(metaRecord(meta));
    const records = firstTurnRecords(meta.id, "hello");
    await writer.append(records);
    await writer.close();
    const rows = await withSql(
      store.url,
      async (sql) =>
        (await sql.query<{ seq: string; type: string; record: string }>(
          "SELECT seq, type, record FROM turnlog_records WHERE session_id = $1 ORDER BY seq",
          [location.id],
        )).rows,
    );
    const written = [metaRecord(meta), ...records];
    assertEquals(
      rows,
      written.map((r, i) => ({ seq: String(i + 1), type: r.type, record: JSON.stringify(r) })),
    );
  },
});

Deno.test({
  name:
    "PostgresStore.lastCheckpoint() and read() from it fetch only the checkpoint and later rows",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const { location } = await sessionWithCheckpoint(store, { before: 2500, after: 40 });
    const before = store.recordRowsRead;
    const found = await store.lastCheckpoint(location);
    assertEquals(found?.position, { line: 2505, offset: 2505 });
    let count = 0;
    for await (const _ of store.read(location, found!.position)) count++;
    assertStrictEquals(count, 41);
    assertStrictEquals(store.recordRowsRead - before, 1 + 41);
    await store.lastTurnContextBefore(location, found!.position);
    assertStrictEquals(store.recordRowsRead - before, 1 + 41 + 1);
  },
});

Deno.test({
  name:
    "PostgresStore: finding by prefix, reading from a position and the last turn_context use indexes",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const { id } = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    // Generic plans, as for the store's parameterized statements, with sequential scans off
    // so that a small table still shows which index can serve the statement.
    const plans = await withSql(store.url, async (sql) => {
      await sql.query("SET enable_seqscan = off");
      await sql.query("SET plan_cache_mode = force_generic_plan");
      await sql.query(
        "PREPARE find(text, text) AS SELECT id FROM turnlog_sessions WHERE id >= $1 AND id < $2",
      );
      await sql.query(`PREPARE tail(text, bigint, bigint) AS SELECT record FROM turnlog_records
        WHERE session_id = $1 AND seq >= $2 AND seq < $2 + $3 ORDER BY seq`);
      await sql.query(`PREPARE turn(text, bigint) AS SELECT record FROM turnlog_records
        WHERE session_id = $1 AND type = 'turn_context' AND seq < $2 ORDER BY seq DESC LIMIT 1`);
      const plan = async (execute: string) =>
        (await sql.query(`EXPLAIN EXECUTE ${execute}`)).rows
          .map((row) => Object.values(row)[0]).join("\n");
      return {
        find: await plan(`find('${id.slice(0, 8)}', '${id.slice(0, 8)}~')`),
        tail: await plan(`tail('${id}', 3, 1000)`),
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
  name:
    "PostgresStore.list() reads no record: the counts and the first message are kept per session",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    await sessionWithCheckpoint(store, { before: 50, after: 5 });
    const before = store.recordRowsRead;
    const { sessions } = await store.list();
    assertEquals(sessions.map((s) => [s.records, s.turns, s.firstUserMessage]), [
      [1 + 3 + 50 + 1 + 5, 1, "hello"],
    ]);
    assertStrictEquals(store.recordRowsRead, before);
  },
});

Deno.test("openStore() refuses a URL it cannot open, in one line without the password", async () => {
  await assertRejects(
    () => openStore("mysql://app:hunter2@db/turnlog"),
    InvalidStoreError,
    'Unknown store "mysql://...": give a postgres:// URL or a sessions folder',
  );
  const error = await assertRejects(
    () => openStore("postgres://app:hunter2@db:port/turnlog"),
    InvalidStoreError,
  );
  assertStrictEquals(
    error.message,
    'Not a PostgreSQL URL: expected postgres://user:password@host:port/database, got "postgres://app:***@db:port/turnlog"',
  );
});
