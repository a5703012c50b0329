import { assert, assertEquals, assertRejects, assertStrictEquals } from "./_assert.ts";
import { fileCluster, freshStore } from "./_postgres_helpers.ts";
import { chatter, contents, disposable, readAll, sessionAt } from "./_store_fixtures.ts";
import { withSql } from "../testing/postgres.ts";
import { SessionInUseError, type SessionLocation } from "../src/store/mod.ts";
import {
  PostgresStore,
  SessionLockLostError,
  SessionStoreUnreachableError,
  SessionStoreVersionError,
} from "../src/store/postgres/mod.ts";

const cluster = await fileCluster("store_postgres_lock_test.ts");
const ignore = cluster === undefined;

const inUse = (location: SessionLocation) =>
  `Session is in use: another run holds the lock on ${location.path}`;

/** Terminates every writer connection of the database, waiting until they are gone. */
async function terminateWriters(url: string): Promise<number> {
  return await withSql(url, async (sql) => {
    const { rowCount } = await sql.query(
      `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
      WHERE application_name = 'turnlog writer' AND datname = current_database()`,
    );
    return rowCount ?? 0;
  });
}

/** Retries `attempt` until it resolves, for at most `ms` milliseconds. */
async function eventually<T>(attempt: () => Promise<T>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

Deno.test({
  name: "PostgresStore.lock() is free again once the holder's connection is terminated",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    await using other = new PostgresStore(store.url);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    const first = await store.lock(location);
    await first.append(chatter("first"));
    assertStrictEquals(await terminateWriters(store.url), 1);
    await using second = disposable(await other.lock(location));
    await second.append(chatter("second"));
    const error = await assertRejects(() => first.append(chatter("late")), SessionLockLostError);
    assertStrictEquals(
      error.message,
      `Session lock lost: the connection that held the lock on ${location.path} was closed and another run holds it now; resume the session to continue`,
    );
    assertEquals(contents(await readAll(store, location)).slice(4), [
      "first 0",
      "first 1",
      "second 0",
      "second 1",
    ]);
  },
});

Deno.test({
  name: "PostgresSessionWriter.append() stops for good when another run wrote while it was cut off",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    const first = await store.lock(location);
    await terminateWriters(store.url);
    const second = await store.lock(location);
    await second.append(chatter("second"));
    await second.close();
    await assertRejects(
      () => first.append(chatter("late")),
      SessionLockLostError,
      "was closed and the session changed meanwhile (6 records, this run expected 4)",
    );
    assertStrictEquals((await readAll(store, location)).length, 6);
    // Nothing is held any more: a new run locks at once.
    await (await store.lock(location)).close();
  },
});

Deno.test({
  name:
    "PostgresSessionWriter.append() takes its lock back after its connection was cut, if nobody wrote",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    await using writer = disposable(await store.lock(location));
    await writer.append(chatter("before"));
    await terminateWriters(store.url);
    await writer.append(chatter("after"));
    await assertRejects(() => store.lock(location), SessionInUseError, inUse(location));
    const records = await readAll(store, location);
    assertEquals(contents(records).slice(4), [
      "before 0",
      "before 1",
      "after 0",
      "after 1",
    ]);
  },
});

Deno.test({
  name: "PostgresStore says in one line that it cannot reach a server, without the password",
  ignore,
  fn: async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const { port } = listener.addr as Deno.NetAddr;
    listener.close();
    await using store = new PostgresStore(`postgres://app:hunter2@127.0.0.1:${port}/turnlog`);
    assertStrictEquals(store.name, `postgres://app@127.0.0.1:${port}/turnlog`);
    const error = await assertRejects(() => store.find("0199"), SessionStoreUnreachableError);
    assertStrictEquals(
      error.message,
      `Could not reach the session store at postgres://app@127.0.0.1:${port}/turnlog: connection refused (is the server running?)`,
    );
    assert(!`${error.message}${error.stack}`.includes("hunter2"));
  },
});

Deno.test({
  name:
    "PostgresSessionWriter.append() fails clearly while the server is down and goes on after a restart",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    await using writer = disposable(await store.lock(location));
    await writer.append(chatter("before"));
    await cluster!.stopServer();
    try {
      const error = await assertRejects(
        () => writer.append(chatter("lost")),
        SessionStoreUnreachableError,
      );
      assertStrictEquals(
        error.message,
        `Could not reach the session store at ${store.name}: connection refused (is the server running?)`,
      );
      assert(!error.message.includes(cluster!.password));
      await assertRejects(() => store.find(location.id), SessionStoreUnreachableError);
    } finally {
      await cluster!.startServer();
    }
    await writer.append(chatter("after"));
    assertEquals(await store.find(location.id), location);
    const records = await readAll(store, location);
    assertEquals(contents(records).slice(4), [
      "before 0",
      "before 1",
      "after 0",
      "after 1",
    ]);
  },
});

Deno.test({
  name: "PostgresSessionWriter.append() is all or nothing when its connection is cut mid-append",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    await using writer = disposable(await store.lock(location));
    const big = chatter("big", 30_000);
    let settled = false;
    const appending = writer.append(big).finally(() => settled = true);
    // Cut the connection while the server runs the append statement.
    const cut = await eventually(() =>
      withSql(store.url, async (sql) => {
        if (settled) return false;
        const { rowCount } = await sql.query(
          `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
          WHERE application_name = 'turnlog writer' AND datname = current_database()
            AND state = 'active' AND query LIKE '%WITH guard AS%'`,
        );
        if (rowCount !== 1) throw new Error("The append is not running yet");
        return true;
      })
    );
    assert(cut, "The append ended before it could be cut");
    // The statement was rolled back; the writer took its lock back and appended once.
    await appending;
    const records = await readAll(store, location);
    assertStrictEquals(records.length, 4 + big.length);
    assertEquals(records.slice(4).map((r) => r.payload), big.map((r) => r.payload));
  },
});

Deno.test({
  name:
    "PostgresStore makes its tables once, even when several stores open a fresh database at once",
  ignore,
  fn: async () => {
    const url = await cluster!.createDatabase();
    const stores = Array.from({ length: 5 }, () => new PostgresStore(url));
    try {
      const listings = await Promise.all(stores.map((store) => store.list()));
      assertEquals(listings.map((l) => [l.sessions, l.more]), stores.map(() => [[], false]));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    await using again = new PostgresStore(url);
    await sessionAt(again, "2026-11-30T10:00:00Z", "hello");
    const applied = await withSql(
      url,
      (sql) => sql.query("SELECT version, name FROM turnlog_migrations"),
    );
    assertEquals(applied.rows, [
      { version: 1, name: "sessions and records" },
      { version: 2, name: "the session a fork came from" },
      { version: 3, name: "record text compressed with lz4" },
    ]);
  },
});

Deno.test({
  name: "PostgresStore refuses a database whose tables a newer turnlog made",
  ignore,
  fn: async () => {
    await using store = await freshStore(cluster!);
    await store.list();
    await withSql(store.url, (sql) => sql.query("INSERT INTO turnlog_migrations VALUES (99, 'x')"));
    await using newer = new PostgresStore(store.url);
    await assertRejects(
      () => newer.list(),
      SessionStoreVersionError,
      `Session store too new: ${store.name} has schema version 99, this turnlog knows up to 3`,
    );
  },
});
