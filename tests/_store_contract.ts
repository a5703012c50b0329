/**
 * The contract every session store keeps, as tests any backend runs: exact records back in
 * append order, find by id or prefix, listing, one writer at a time, the last checkpoint and
 * reading from it. A backend's test file calls {@linkcode storeContract} with a way to open an
 * empty store.
 *
 * @module
 */
import { assert, assertEquals, assertRejects, assertStrictEquals } from "./_assert.ts";
import { assistant, call, finished, itemRecords, output, user } from "./_helpers.ts";
import {
  chatter,
  contents,
  disposable,
  firstTurnRecords,
  metaAt,
  metaRecord,
  readAll,
  sessionAt,
  sessionWithCheckpoint,
  turnContext,
} from "./_store_fixtures.ts";
import {
  InvalidSessionIdError,
  makeRecord,
  newId,
  type ResponseItem,
  responseItemRecord,
  type SessionRecord,
} from "../src/record/mod.ts";
import { replayRecord, SessionReplay } from "../src/history/mod.ts";
import { join } from "node:path";
import { tempDir } from "./_helpers.ts";
import {
  AmbiguousSessionError,
  exportSession,
  ImportError,
  importTurnlogFile,
  SessionExistsError,
  SessionInUseError,
  type SessionLocation,
  SessionNotFoundError,
  type SessionStore,
} from "../src/store/mod.ts";

/** `replay` holds what a forward replay of `records` holds. */
function assertReplays(replay: SessionReplay, records: readonly SessionRecord[]): void {
  const forward = new SessionReplay();
  for (const record of records) forward.pushRecord(record);
  assertEquals(replay.history, forward.history);
  assertEquals(replay.first?.record, forward.first?.record);
  assertEquals(replay.meta, forward.meta);
  assertEquals(replay.lastTurn, forward.lastTurn);
  assertStrictEquals(replay.turns, forward.turns);
  assertStrictEquals(replay.records, forward.records);
  assertEquals(replay.problems, []);
}

/** An empty store to test, and what the tests need around it. */
export interface OpenedStore extends AsyncDisposable {
  store: SessionStore;
  /** A second store on the same storage, as another process would open it. */
  second(): SessionStore;
  /** Starts a process holding the session's lock; its `kill()` crashes it (SIGKILL). */
  holdLockInChild(location: SessionLocation): Promise<{ kill(): Promise<void> }>;
}

/** A backend under test. */
export interface StoreBackend {
  /** Shown after each test name: `(postgres)`, `(files)`. */
  label: string;
  /** True when the backend cannot run here (its test file says why). */
  ignore: boolean;
  /**
   * True when the position of the last checkpoint carries its record number (a database's
   * sequence number); a file's backward search finds the checkpoint's byte, not its line.
   */
  checkpointLines: boolean;
  /** Opens an empty store. */
  open(): Promise<OpenedStore>;
}

const inUse = (location: SessionLocation) =>
  `Session is in use: another run holds the lock on ${location.path}`;

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

/** Registers one test of the contract for a backend. */
type Register = (name: string, fn: (opened: OpenedStore) => Promise<void>) => void;

/** Registers the contract's tests for `backend`. */
export function storeContract(backend: StoreBackend): void {
  const test: Register = (name, fn) =>
    Deno.test({
      name: `${name} (${backend.label})`,
      ignore: backend.ignore,
      fn: async () => {
        await using opened = await backend.open();
        await fn(opened);
      },
    });

  recordTests(test);
  findTests(test);
  listTests(test);
  checkpointTests(test, backend);
  lockTests(test);
  moveTests(test);
}

/** The contract: create and read back. */
function recordTests(test: Register): void {
  test("SessionStore.create() stores session_meta first and returns the session locked", async ({ store, second }) => {
    const meta = metaAt("2026-11-30T02:48:20.123Z");
    const { location, writer } = await store.create(metaRecord(meta));
    assertEquals([location.id, location.createdAt], [meta.id, "2026-11-30T02:48:20.123Z"]);
    assert(location.path.includes(meta.id), location.path);
    await assertRejects(() => second().lock(location), SessionInUseError, inUse(location));
    assertStrictEquals(writer.path, location.path);
    await writer.close();
    assertEquals(await readAll(store, location), [
      { timestamp: "2026-11-30T02:48:20.123Z", type: "session_meta", payload: meta },
    ]);
    await assertRejects(
      () => store.create(metaRecord(meta)),
      SessionExistsError,
      `Session already exists: ${meta.id} in ${store.name}`,
    );
    assertEquals(await store.newest(), location);
  });

  test("SessionStore.read() gives back every record exactly as appended, in append order", async ({ store }) => {
    const meta = metaAt("2026-11-30T10:00:00Z");
    const { location, writer } = await store.create(metaRecord(meta));
    const tricky = trickyRecords(meta.id);
    // Keys out of schema order: the stored text keeps the order written.
    const reordered = {
      type: "response_item",
      payload: { content: "keys out of order", role: "user", type: "message" },
      timestamp: "2026-11-30T10:00:01.000Z",
    } as unknown as SessionRecord;
    const last = finished(meta.id, 3);
    await writer.append(tricky);
    await writer.append([reordered]);
    await writer.append([last]);
    assertStrictEquals(writer.appendedRecords, 1 + tricky.length + 2);
    await writer.close();
    const written = [metaRecord(meta), ...tricky, reordered, last];
    const entries = [];
    for await (const entry of store.read(location)) entries.push(entry);
    assertEquals(entries.map((e) => e.text), written.map((r) => JSON.stringify(r)));
    assertEquals(await store.head(location), entries[0]);
    const encoder = new TextEncoder();
    assertEquals(await store.size(location), {
      records: written.length,
      sizeBytes: written.reduce((n, r) => n + encoder.encode(JSON.stringify(r)).length + 1, 0),
    });
    assertEquals(entries.map((e) => e.line), written.map((_, i) => i + 1));
    assertEquals(entries.map((e) => e.problem), written.map(() => undefined));
    assertEquals(entries.map((e) => JSON.stringify(e.record)), [
      ...written.slice(0, -2).map((r) => JSON.stringify(r)),
      JSON.stringify(responseItemRecord(user("keys out of order"), new Date(reordered.timestamp))),
      JSON.stringify(last),
    ]);
    // From a record's position: that record and the ones after it.
    const eighth = entries[7]!;
    const tail = [];
    for await (const e of store.read(location, { line: eighth.line, offset: eighth.start })) {
      tail.push(e.text);
    }
    assertEquals(tail, written.slice(7).map((r) => JSON.stringify(r)));
  });
}

/** The contract: find by id or prefix, the shortest prefix. */
function findTests(test: Register): void {
  test("SessionStore.find() finds a session by full id or unique prefix, any case", async ({ store }) => {
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
  });

  test("SessionStore.find() rejects an ambiguous prefix, listing every candidate newest first", async ({ store }) => {
    const a = await sessionAt(store, "2026-11-30T10:00:00.000Z");
    const b = await sessionAt(store, "2026-11-30T10:00:00.001Z");
    const prefix = a.id.slice(0, 8);
    const error = await assertRejects(() => store.find(prefix), AmbiguousSessionError);
    assert(error instanceof AmbiguousSessionError);
    assertEquals(
      error.message,
      `Ambiguous session id "${prefix}": it matches 2 sessions:\n` +
        `  ${b.id}  2026-11-30T10:00:00.001Z\n  ${a.id}  2026-11-30T10:00:00.000Z`,
    );
    assertEquals(error.candidates, [b, a]);
  });

  test("SessionStore.shortestUniquePrefix() is the shortest prefix that finds only that session", async ({ store }) => {
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
  });
}

/** The contract: the listing. */
function listTests(test: Register): void {
  test("SessionStore.list() lists newest first with the first user message, counts and forks", async ({ store }) => {
    const old = await sessionAt(store, "2025-06-01T00:00:00Z", "first\n  question   here");
    const empty = await sessionAt(store, "2026-01-01T00:00:00Z");
    const meta = metaAt("2026-11-30T10:00:00Z");
    const { location: busy, writer } = await store.create(metaRecord(meta));
    await writer.append(firstTurnRecords(meta.id, "x".repeat(600)));
    await writer.append([turnContext("run-2", true), responseItemRecord(user("second"))]);
    await writer.close();
    const forkMeta = {
      ...metaAt("2026-11-30T11:00:00Z"),
      forkedFrom: { sessionId: busy.id, turn: null },
    };
    const { location: fork, writer: forkWriter } = await store.create(metaRecord(forkMeta));
    await forkWriter.close();
    const listing = await store.list();
    assertEquals([listing.format, listing.version, listing.root], [
      "turnlog-sessions",
      1,
      store.name,
    ]);
    assertStrictEquals(listing.more, false);
    const { sessions } = listing;
    assertEquals(sessions.map((s) => s.id), [fork.id, busy.id, empty.id, old.id]);
    assertEquals(sessions.map((s) => s.path), [fork.path, busy.path, empty.path, old.path]);
    assertEquals(sessions.map((s) => s.created), [
      fork.createdAt,
      busy.createdAt,
      empty.createdAt,
      old.createdAt,
    ]);
    assertEquals(sessions.map((s) => s.firstUserMessage), [
      null,
      `${"x".repeat(499)}…`,
      null,
      "first question here",
    ]);
    assertEquals(sessions.map((s) => s.forkedFrom), [busy.id, null, null, null]);
    assertEquals(sessions.map((s) => [s.records, s.turns]), [[1, 0], [6, 2], [1, 0], [4, 1]]);
    for (const listed of sessions) {
      assertEquals(await store.find(listed.shortId), await store.find(listed.id));
      assertStrictEquals(listed.shortId, await store.shortestUniquePrefix(listed.id));
    }
    const encoder = new TextEncoder();
    const bytes = (await readAll(store, busy)).reduce(
      (n, r) => n + encoder.encode(JSON.stringify(r)).length + 1,
      0,
    );
    assertStrictEquals(sessions[1]!.sizeBytes, bytes);
    const page = await store.list({ limit: 2 });
    assertEquals(page.sessions.map((s) => s.id), [fork.id, busy.id]);
    assertStrictEquals(page.more, true);
  });
}

/** The contract: the last checkpoint and reading from it. */
function checkpointTests(test: Register, backend: StoreBackend): void {
  test("SessionStore.lastCheckpoint() finds the last checkpoint; read() from it replays the same history", async ({ store }) => {
    const { location, checkpointLine, checkpoint } = await sessionWithCheckpoint(store, {
      before: 300,
      after: 40,
    });
    const found = await store.lastCheckpoint(location);
    assertEquals(found?.checkpoint, checkpoint.payload);
    assertStrictEquals(found?.position.line, backend.checkpointLines ? checkpointLine : 0);
    const fromCheckpoint: ResponseItem[] = [];
    let count = 0;
    for await (const entry of store.read(location, found!.position)) {
      if (count === 0) assertStrictEquals(entry.text, JSON.stringify(checkpoint));
      replayRecord(fromCheckpoint, entry.record!);
      count++;
    }
    assertStrictEquals(count, 41);
    const full: ResponseItem[] = [];
    for (const record of (await readAll(store, location)).slice(1)) replayRecord(full, record);
    assertEquals(fromCheckpoint, full);
    // No turn started after the checkpoint: the last turn_context before it.
    const turn = await store.lastTurnContextBefore(location, found!.position);
    assertEquals(turn, turnContext("run-1").payload);
    const plain = await sessionAt(store, "2026-11-30T11:00:00Z", "hello");
    assertStrictEquals(await store.lastCheckpoint(plain), undefined);
  });

  test("SessionStore.replayFromLastCheckpoint() replays the checkpoint and what follows it, else every record", async ({ store }) => {
    const { location, checkpoint } = await sessionWithCheckpoint(store, { before: 300, after: 40 });
    const all = await readAll(store, location);
    const tail = await store.replayFromLastCheckpoint(location);
    assertStrictEquals(tail.records, 41);
    assertEquals(tail.first?.record, checkpoint);
    assertEquals(tail.from?.checkpoint, checkpoint.payload);
    assertStrictEquals(tail.from?.start, (await store.lastCheckpoint(location))?.position.offset);
    assertStrictEquals(tail.recordCount, all.length);
    assertReplays(tail, all.slice(-41));
    const plain = await sessionAt(store, "2026-11-30T11:00:00Z", "hello");
    const whole = await store.replayFromLastCheckpoint(plain);
    assertStrictEquals(whole.from, undefined);
    assertReplays(whole, await readAll(store, plain));
  });
}

/** The contract: one writer at a time. */
function lockTests(test: Register): void {
  test("SessionStore.lock() refuses a second writer at once and is free again after close()", async ({ store, second }) => {
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    const other = second();
    const writer = await store.lock(location);
    await assertRejects(() => other.lock(location), SessionInUseError, inUse(location));
    await assertRejects(() => store.lock(location), SessionInUseError, inUse(location));
    await writer.append(chatter("first"));
    await writer.close();
    await using next = disposable(await other.lock(location));
    await next.append(chatter("second"));
    assertEquals(contents(await readAll(store, location)).slice(4), [
      "first 0",
      "first 1",
      "second 0",
      "second 1",
    ]);
    const id = newId();
    const unknown = { ...location, id, path: location.path.replace(location.id, id) };
    await assertRejects(() => store.lock(unknown), SessionNotFoundError, "Session not found");
  });

  test("SessionStore.lock() is free again once the process that held it is killed", async (opened) => {
    const { store } = opened;
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    const holder = await opened.holdLockInChild(location);
    try {
      await assertRejects(() => store.lock(location), SessionInUseError, inUse(location));
    } finally {
      await holder.kill();
    }
    // The lock goes with the process; the store may need a moment to see it gone.
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await (await store.lock(location)).close();
        break;
      } catch (error) {
        if (!(error instanceof SessionInUseError) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  });

  test("StoreWriter.append() calls made without waiting land whole, in call order", async ({ store }) => {
    const location = await sessionAt(store, "2026-11-30T10:00:00Z", "hello");
    await using writer = disposable(await store.lock(location));
    const batches = Array.from({ length: 20 }, (_, i) => chatter(`${i}`));
    await Promise.all(batches.map((batch) => writer.append(batch)));
    assertEquals(
      contents(await readAll(store, location)).slice(4),
      batches.flatMap((_, i) => [`${i} 0`, `${i} 1`]),
    );
    assertStrictEquals(writer.appendedRecords, 40);
  });
}

/** The contract: export and import. */
function moveTests(test: Register): void {
  test("exportSession() writes the stored records one a line; importTurnlogFile() brings a file in as it is", async ({ store }) => {
    await using dir = await tempDir();
    const meta = metaAt("2026-11-30T10:00:00Z");
    const { location, writer } = await store.create(metaRecord(meta));
    await writer.append(trickyRecords(meta.id));
    await writer.close();
    const exported = join(dir.path, "out.jsonl");
    const stored = [];
    for await (const entry of store.read(location)) stored.push(entry.text);
    const written = await exportSession(store, location, exported);
    assertEquals((await Deno.readTextFile(exported)).split("\n"), [...stored, ""]);
    assertEquals([written.path, written.records], [exported, stored.length]);
    await assertRejects(
      () => importTurnlogFile(store, exported),
      SessionExistsError,
      `Session already exists: ${meta.id} in ${store.name}`,
    );
    // A file written elsewhere, keys in an order of its own, comes in line for line.
    const other = metaAt("2026-11-30T12:00:00Z");
    const lines = [
      JSON.stringify(metaRecord(other)),
      JSON.stringify(turnContext(other.id)),
      '{"type":"response_item","timestamp":"2026-11-30T12:00:01.000Z","payload":{"content":"hi","role":"user","type":"message"}}',
      "",
      JSON.stringify(finished(other.id, 1)),
    ];
    const file = join(dir.path, "in.jsonl");
    await Deno.writeTextFile(file, lines.join("\n") + "\n");
    const imported = await importTurnlogFile(store, file);
    assertEquals(imported, { location: await store.find(other.id), records: 4 });
    const back = [];
    for await (const entry of store.read(imported.location)) back.push(entry.text);
    assertEquals(back, lines.filter((line) => line !== ""));
  });

  test("importTurnlogFile() keeps each line's bytes (\\u00e9, \\/, spaces), and export gives them back", async ({ store }) => {
    await using dir = await tempDir();
    const meta = metaAt("2026-11-30T13:00:00Z");
    const spaced = (line: string) => line.replaceAll('":', '": ').replaceAll(",", ", ");
    const lines = [
      spaced(JSON.stringify(metaRecord(meta))),
      spaced(JSON.stringify(turnContext(meta.id))),
      '{"type": "response_item", "timestamp": "2026-11-30T13:00:01.000Z", "payload": ' +
      '{"type": "message", "role": "user", "content": "caf\\u00e9 a\\/b \\u2028"}}',
      spaced(JSON.stringify(finished(meta.id, 2))),
    ];
    const file = join(dir.path, "in.jsonl");
    await Deno.writeTextFile(file, lines.join("\n") + "\n");
    const imported = await importTurnlogFile(store, file);
    const exported = join(dir.path, "out.jsonl");
    await exportSession(store, imported.location, exported);
    assertEquals(await Deno.readTextFile(exported), await Deno.readTextFile(file));
  });

  test("importTurnlogFile() refuses a file with a bad line and stores nothing", async ({ store }) => {
    await using dir = await tempDir();
    const meta = metaAt("2026-11-30T12:00:00Z");
    const file = join(dir.path, "bad.jsonl");
    await Deno.writeTextFile(file, `${JSON.stringify(metaRecord(meta))}\n{"type":"nope"\n`);
    await assertRejects(
      () => importTurnlogFile(store, file),
      ImportError,
      `${file}:2: `,
    );
    await assertRejects(() => store.find(meta.id), SessionNotFoundError);
  });
}
