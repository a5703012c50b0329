import { countIo } from "../testing/io_counter.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { RUN_BASE, tempDir } from "./_helpers.ts";
import { InvalidSessionIdError, newId } from "../src/record/mod.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import {
  AmbiguousSessionError,
  createSession,
  findSession,
  listSessions,
  resolveSessionsRoot,
  SessionInUseError,
  SessionNotFoundError,
  SESSIONS_DIR_ENV,
  SessionWriter,
} from "../src/store/mod.ts";

const NEW = {
  cwd: RUN_BASE.cwd,
  modelProvider: RUN_BASE.modelProvider,
  model: RUN_BASE.model,
  wireApi: RUN_BASE.wireApi,
  policy: { approval: "ask-changes" },
} as const;

async function sessionAt(root: string, iso: string, firstMessage?: string): Promise<string> {
  const { writer, meta } = await createSession(root, { ...NEW, id: newId(new Date(iso)) });
  if (firstMessage !== undefined) {
    await writer.append([
      makeRecord("turn_context", {
        runId: meta.id,
        model: "scripted",
        wireApi: "responses",
        policy: NEW.policy,
        resumed: false,
      }),
      responseItemRecord({ type: "message", role: "system", content: "sys" }),
      responseItemRecord({ type: "message", role: "user", content: firstMessage }),
    ]);
  }
  writer.close();
  return meta.id;
}

Deno.test("a session file lands under <root>/YYYY/MM/DD/<time>-<id>.jsonl with session_meta first", async () => {
  await using dir = await tempDir();
  const id = newId(new Date("2026-11-30T02:48:20.123Z"));
  const { writer, location, meta } = await createSession(dir.path, { ...NEW, id });
  writer.close();
  assertEquals(location.path, `${dir.path}/2026/11/30/2026-11-30T02-48-20-123Z-${id}.jsonl`);
  assertEquals(location.createdAt, "2026-11-30T02:48:20.123Z");
  const [line] = (await Deno.readTextFile(location.path)).split("\n");
  assertEquals(JSON.parse(line!), {
    timestamp: "2026-11-30T02:48:20.123Z",
    type: "session_meta",
    payload: { version: 1, id, createdAt: "2026-11-30T02:48:20.123Z", ...NEW },
  });
  assertEquals(meta.id, id);
});

Deno.test("a session is found by full id or unique prefix, from file names alone", async () => {
  await using dir = await tempDir();
  const a = await sessionAt(dir.path, "2026-01-02T10:00:00Z");
  const b = await sessionAt(dir.path, "2026-11-30T10:00:00Z");
  // An empty file with a valid name is still found: lookup never opens a file.
  const c = newId(new Date("2025-06-01T00:00:00Z"));
  await Deno.mkdir(`${dir.path}/2025/06/01`, { recursive: true });
  await Deno.writeTextFile(`${dir.path}/2025/06/01/2025-06-01T00-00-00-000Z-${c}.jsonl`, "");

  using io = countIo();
  assertEquals((await findSession(dir.path, a)).id, a);
  assertEquals((await findSession(dir.path, b.slice(0, 8))).id, b);
  assertEquals((await findSession(dir.path, c.toUpperCase())).id, c);
  await assertRejects(() => findSession(dir.path, newId()), SessionNotFoundError);
  const counts = io.take();
  assertEquals([counts.filesOpened, counts.bytesRead], [0, 0]);
  // Each lookup lists the root and only the year, month and day folders its id's time can
  // be in (a prefix can span two of each).
  assert(counts.dirsListed <= 4 * 5, `listed ${counts.dirsListed} folders`);
});

Deno.test("an ambiguous prefix is an error listing the candidates", async () => {
  await using dir = await tempDir();
  const a = await sessionAt(dir.path, "2026-11-30T10:00:00.000Z");
  const b = await sessionAt(dir.path, "2026-11-30T10:00:00.001Z");
  const prefix = a.slice(0, 8);
  assertEquals(b.slice(0, 8), prefix);
  const error = await assertRejects(() => findSession(dir.path, prefix), AmbiguousSessionError);
  assertMatch(
    error.message,
    new RegExp(`^Ambiguous session id "${prefix}": it matches 2 sessions:`),
  );
  assert(error.message.includes(a) && error.message.includes(b));
  assertEquals(error.candidates.map((c) => c.id).sort(), [a, b].sort());
});

Deno.test("a path-like id is rejected before it comes near a path", async () => {
  await using dir = await tempDir();
  for (const bad of ["../x", "/etc", "", "a/b", "..", "x.jsonl", "a b", "-rf"]) {
    const error = await assertRejects(() => findSession(dir.path, bad), InvalidSessionIdError);
    assertMatch(error.message, /^Invalid session id /);
  }
});

Deno.test("the lock refuses a second writer with 'session is in use'", async () => {
  await using dir = await tempDir();
  const { writer, location } = await createSession(dir.path, NEW);
  const error = await assertRejects(() => SessionWriter.open(location.path), SessionInUseError);
  assertEquals(error.message, `Session is in use: another run holds the lock on ${location.path}`);
  writer.close();
  const second = await SessionWriter.open(location.path);
  second.close();
});

Deno.test("listing is newest first, with the first user message as preview", async () => {
  await using dir = await tempDir();
  await sessionAt(dir.path, "2026-01-01T00:00:00Z", "oldest");
  await sessionAt(dir.path, "2026-11-30T09:00:00Z", "newest\n  with   lines");
  await sessionAt(dir.path, "2026-03-01T00:00:00Z");
  const listed = await listSessions(dir.path);
  assertEquals(listed.sessions.map((s) => s.firstUserMessage), [
    "newest with lines",
    null,
    "oldest",
  ]);
  assertEquals((await listSessions(dir.path, { limit: 1 })).sessions.length, 1);
});

Deno.test("the sessions root: an explicit one, else TURNLOG_SESSIONS_DIR, else ./sessions", () => {
  const saved = Deno.env.get(SESSIONS_DIR_ENV);
  try {
    Deno.env.delete(SESSIONS_DIR_ENV);
    assertEquals(resolveSessionsRoot(), "sessions");
    Deno.env.set(SESSIONS_DIR_ENV, "/tmp/elsewhere");
    assertEquals(resolveSessionsRoot(), "/tmp/elsewhere");
    assertEquals(resolveSessionsRoot("/flag"), "/flag");
  } finally {
    if (saved === undefined) Deno.env.delete(SESSIONS_DIR_ENV);
    else Deno.env.set(SESSIONS_DIR_ENV, saved);
  }
});

Deno.test("appends are whole lines after a complete record that lacked its newline", async () => {
  await using dir = await tempDir();
  const { writer, location } = await createSession(dir.path, NEW);
  writer.close();
  const text = await Deno.readTextFile(location.path);
  await Deno.writeTextFile(location.path, text.trimEnd()); // a valid record, newline lost
  const again = await SessionWriter.open(location.path);
  await again.append([responseItemRecord({ type: "message", role: "user", content: "hi" })]);
  again.close();
  const lines = (await Deno.readTextFile(location.path)).trimEnd().split("\n");
  assertEquals(lines.length, 2);
  assertEquals(lines[0], text.trimEnd());
});
