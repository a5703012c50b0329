/**
 * A live page's refresh reads what was appended, not the session (issue 39): a turnlog
 * session followed as it grows gives the report a whole read gives, reads O(appended) bytes
 * per change, and starts again from the first byte on anything but an append.
 *
 * @module
 */
import { assert, assertEquals } from "./_assert.ts";
import { call, itemRecords, output, tempDir, user } from "./_helpers.ts";
import { SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { inspectSession, SessionFollower } from "../src/inspect/mod.ts";
import { makeRecord, type SessionRecord } from "../src/record/mod.ts";
import { createSessionBrowserHandler, SessionWatchers } from "../src/server/mod.ts";
import { createSession } from "../src/store/mod.ts";
import { GEMINI_SESSION_ID, geminiToolSession } from "../testing/formats/gemini_builder.ts";
import { countIo } from "../testing/io_counter.ts";
import { fatTime, msTime, ownTimesOnly, rewriteUnseen, wholeSecondNow } from "./_racy.ts";

const INIT = {
  cwd: "/w",
  modelProvider: "embedded",
  model: "scripted",
  wireApi: "responses",
  policy: { approval: "auto" },
} as const;

const turnContext = (runId: string): SessionRecord =>
  makeRecord("turn_context", {
    runId,
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
    resumed: false,
  });

const linesOf = (records: SessionRecord[]) =>
  records.map((record) => JSON.stringify(record) + "\n").join("");

/** A turn of a prompt, a call and its output, and an answer `size` characters long. */
function turn(n: number, size = 200): SessionRecord[] {
  return [
    turnContext(`run-${n}`),
    ...itemRecords([
      user(`Question ${n}`),
      call(`c${n}`),
      output(`c${n}`),
      { type: "message", role: "assistant", content: `Answer ${n} ${"x".repeat(size)}` },
    ]),
  ];
}

/** A turnlog session of `turns` turns in a store at `root`; its path. */
async function sessionOf(root: string, turns: number, size = 200): Promise<string> {
  const { writer, location } = await createSession(root, INIT);
  writer.close();
  const records: SessionRecord[] = [];
  for (let n = 1; n <= turns; n++) records.push(...turn(n, size));
  await Deno.writeTextFile(location.path, linesOf(records), { append: true });
  return location.path;
}

const append = (path: string, records: SessionRecord[]) =>
  Deno.writeTextFile(path, linesOf(records), { append: true });

/** The follower's report and a whole read's, as JSON (the same when the follower is right). */
async function bothReports(path: string, follower: SessionFollower) {
  const whole = await inspectSession(path, SESSION_PAGE_INSPECTION);
  return { followed: JSON.stringify(follower.report()), whole: JSON.stringify(whole) };
}

Deno.test("SessionFollower.update() reads only the appended bytes and reports what a whole read does", async () => {
  await using dir = await tempDir();
  const path = await sessionOf(dir.path, 300);
  const follower = (await SessionFollower.open(path, SESSION_PAGE_INSPECTION))!;
  assertEquals((await follower.update()).whole, true);
  const appends: SessionRecord[][] = [
    // A call whose output comes in the next append: an orphan now, answered then.
    [turnContext("run-a"), ...itemRecords([user("Read it"), call("late")])],
    itemRecords([output("late"), output("never-called")]),
    turn(301, 5000),
    // A checkpoint: the history starts again, the dropped output is in it no more.
    [makeRecord("response_item", {
      type: "compaction_checkpoint",
      version: 1,
      reason: "manual",
      tokensBefore: 10,
      removedItemCount: 3,
      keptItemCount: 0,
      replacementHistory: [],
    })],
  ];
  for (const records of appends) {
    const size = (await Deno.stat(path)).size;
    await append(path, records);
    const appended = (await Deno.stat(path)).size - size;
    using io = countIo();
    const read = await follower.update();
    const counts = io.take();
    assertEquals(read.whole, false);
    assert(size > 100_000, `a large session (${size} bytes)`);
    assert(
      counts.bytesRead < 2 * appended + 256,
      `read ${counts.bytesRead} bytes for ${appended} appended to ${size}`,
    );
    const { followed, whole } = await bothReports(path, follower);
    assertEquals(followed, whole);
    if (records === appends[1]) {
      assertEquals(follower.report().orphanCalls, []);
      assertEquals(follower.report().orphanOutputs.map((o) => o.callId), ["never-called"]);
    }
  }
  const report = follower.report();
  assertEquals(report.orphanCalls, []);
  assertEquals(report.orphanOutputs, []);
  assertEquals(report.checkpoints.length, 1);
  // Nothing changed: nothing read.
  using io = countIo();
  assertEquals(await follower.update(), { whole: false, bytes: 0 });
  assertEquals(io.take().bytesRead, 0);
});

Deno.test("SessionFollower.update() reads the file whole again when it is not an append", async () => {
  await using dir = await tempDir();
  const path = await sessionOf(dir.path, 20);
  const follower = (await SessionFollower.open(path, SESSION_PAGE_INSPECTION))!;
  await follower.update();
  const text = await Deno.readTextFile(path);
  // The last line read changed in place and the size grew: not an append. (A change further
  // back, in place and with the file growing, is not seen: see docs/serving.md.)
  const last = text.lastIndexOf("\n", text.length - 2) + 1;
  const changed = text.slice(0, last) + linesOf(itemRecords([user("Question XX")])) +
    linesOf(turn(21));
  using file = await Deno.open(path, { write: true });
  await file.write(new TextEncoder().encode(changed));
  let read = await follower.update();
  assertEquals(read.whole, true);
  let reports = await bothReports(path, follower);
  assertEquals(reports.followed, reports.whole);
  assert(reports.followed.includes("Question XX") && !reports.followed.includes("Answer 20"));
  // The file shrank (its last turns were cut).
  await file.truncate(text.lastIndexOf("\n", text.indexOf('"runId":"run-5"')) + 1);
  await Deno.writeTextFile(path, linesOf(turn(5)).replace("Question 5", "Question five"), {
    append: true,
  });
  read = await follower.update();
  assertEquals(read.whole, true);
  reports = await bothReports(path, follower);
  assertEquals(reports.followed, reports.whole);
  assertEquals(follower.report().turns.length, 5);
  // Replaced by another file under the same name (an atomic rewrite).
  const other = `${path}.new`;
  await Deno.writeTextFile(other, (await Deno.readTextFile(path)).replace("five", "FIVE"));
  await Deno.rename(other, path);
  assertEquals((await follower.update()).whole, true);
  assert(JSON.stringify(follower.report()).includes("Question FIVE"));
});

/**
 * Follows the session at `path`, lets `rewrite` change "Question 1" to "Question X" in place,
 * and checks the next update reads it whole again, as a whole read gives it.
 */
async function assertReadWholeAfter(path: string, rewrite: () => Promise<void>): Promise<void> {
  const follower = (await SessionFollower.open(path, SESSION_PAGE_INSPECTION))!;
  await follower.update();
  await rewrite();
  assertEquals((await follower.update()).whole, true);
  const reports = await bothReports(path, follower);
  assertEquals(reports.followed, reports.whole);
  assert(reports.followed.includes("Question X"));
}

Deno.test("SessionFollower.update() reads whole again a file rewritten in place at the same size further back than its last bytes", async () => {
  await using dir = await tempDir();
  const path = await sessionOf(dir.path, 3);
  await assertReadWholeAfter(path, async () => {
    const text = await Deno.readTextFile(path);
    const after = text.replace("Question 1", "Question X");
    assert(after !== text && after.length === text.length);
    await Deno.writeTextFile(path, after);
  });
});

Deno.test("SessionFollower.update() reads whole again a file it read in the tick of its last write on a file system of seconds, rewritten since in place at the same size and time", async () => {
  using _seconds = ownTimesOnly();
  await using dir = await tempDir();
  const path = await sessionOf(dir.path, 3);
  const second = await fatTime(path);
  await assertReadWholeAfter(path, () => rewriteUnseen(path, "Question 1", "Question X", second));
});

Deno.test("SessionFollower.update() of a session whose time was of ms takes a whole second after an append as one write in 1,000, not a file system of seconds: the update after reads nothing", async () => {
  await using dir = await tempDir();
  // The file's own times alone: not what its device showed.
  using _own = ownTimesOnly();
  const path = await sessionOf(dir.path, 3);
  await msTime(path);
  const follower = (await SessionFollower.open(path, SESSION_PAGE_INSPECTION))!;
  await follower.update();
  await append(path, turn(4));
  await wholeSecondNow(path);
  assertEquals((await follower.update()).whole, false);
  // Before, the whole second was taken as a file system of seconds: this update read the
  // file whole again, for doubt alone (the cause of a flaky count of reads).
  assertEquals(await follower.update(), { whole: false, bytes: 0 });
  const { followed, whole } = await bothReports(path, follower);
  assertEquals(followed, whole);
  assert(followed.includes("Question 4"));
});

Deno.test("SessionFollower.report() of a file whose last line is torn is a whole read's; the following goes on after it", async () => {
  await using dir = await tempDir();
  const path = await sessionOf(dir.path, 5);
  const follower = (await SessionFollower.open(path, SESSION_PAGE_INSPECTION))!;
  await follower.update();
  const line = linesOf(turn(6));
  await Deno.writeTextFile(path, line.slice(0, 40), { append: true });
  await follower.update();
  let reports = await bothReports(path, follower);
  assertEquals(reports.followed, reports.whole);
  assertEquals(follower.report().problems.length, 1);
  await Deno.writeTextFile(path, line.slice(40), { append: true });
  assertEquals((await follower.update()).whole, false);
  reports = await bothReports(path, follower);
  assertEquals(reports.followed, reports.whole);
  assertEquals(follower.report().problems, []);
  assertEquals(follower.report().turns.length, 6);
});

Deno.test("SessionFollower.update() of a format without a follower reads the file whole once per change", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/session-2026-02-23T12-00-${GEMINI_SESSION_ID.slice(0, 8)}.jsonl`;
  await Deno.writeTextFile(path, geminiToolSession().text());
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  const size = (await Deno.stat(path)).size;
  assertEquals(await follower.update(), { whole: true, bytes: size });
  // Unchanged: nothing read, however many pages ask.
  assertEquals(await follower.update(), { whole: false, bytes: 0 });
  const { followed, whole } = await bothReports(path, follower);
  assertEquals(followed, whole);
  assertEquals(follower.report().session.format, "gemini");
});

/** The `data-turn` numbers of a page. */
const turnsOf = (html: string) => [...html.matchAll(/data-turn="(\d+)"/g)].map((m) => m[1]);

Deno.test("SessionFollower.update() of a format without a follower reads again a file it read in the tick of its last write on a file system of seconds, rewritten in place at the same size and time", async () => {
  using _seconds = ownTimesOnly();
  await using dir = await tempDir();
  const path = `${dir.path}/session-2026-02-23T12-00-${GEMINI_SESSION_ID.slice(0, 8)}.jsonl`;
  const text = geminiToolSession().text();
  await Deno.writeTextFile(path, text);
  const second = await fatTime(path);
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  await follower.update();
  await rewriteUnseen(path, "What do", "WHAT DO", second);
  assertEquals((await follower.update()).whole, true);
  const { followed, whole } = await bothReports(path, follower);
  assertEquals(followed, whole);
  assert(followed.includes("WHAT DO"));
});

Deno.test("createSessionBrowserHandler() a live page's refresh of a growing turnlog session reads what was appended, once for two pages; a probe answers meanwhile", async () => {
  await using dir = await tempDir();
  const path = await sessionOf(dir.path, 400, 2000);
  const stopping = new AbortController();
  const watchers = new SessionWatchers({ pollMs: 10_000 });
  const handler = createSessionBrowserHandler({
    sessionsDir: dir.path,
    watchers,
    signal: stopping.signal,
  });
  const get = (url: string) => handler(new Request(`http://127.0.0.1${url}`));
  const { id: sessionId } = (await inspectSession(path)).session;
  assert(sessionId !== null);
  const page = `/sessions/${sessionId}`;
  // Two live pages: each has its events open, then refreshes from its last turn.
  const events = await Promise.all([get(`${page}/events`), get(`${page}/events`)]);
  // Each stream's first event comes once the watcher has counted the file (its one whole
  // read): the reads counted below are the appends' only, however late that read ran.
  const streams = events.map((response) => response.body!.getReader());
  try {
    for (const stream of streams) {
      const first = new TextDecoder().decode((await stream.read()).value);
      assert(first.includes("event: changed"), first);
    }
    const first = await Promise.all([get(`${page}?from=400`), get(`${page}?from=400`)]);
    for (const response of first) assertEquals(turnsOf(await response.text()), ["400"]);
    for (let n = 401; n <= 404; n++) {
      const size = (await Deno.stat(path)).size;
      await append(path, turn(n, 2000));
      const appended = (await Deno.stat(path)).size - size;
      using io = countIo();
      const pages = [get(`${page}?from=${n - 1}`), get(`${page}?from=${n - 1}`)];
      const probe = await get("/favicon.ico");
      assertEquals(probe.status, 204);
      const bodies = await Promise.all(pages.map(async (p) => await (await p).text()));
      const counts = io.take();
      for (const body of bodies) {
        assertEquals(turnsOf(body), [`${n - 1}`, `${n}`]);
        assert(body.includes(`Question ${n}`));
        assert(body.includes(`data-size-bytes="${size + appended}"`));
      }
      const ofFile = counts.reads.filter((r) => r.path === path);
      const bytes = ofFile.reduce((sum, r) => sum + r.end - r.start, 0);
      assert(size > 800_000, `a large session (${size} bytes)`);
      assert(bytes < 2 * appended + 256, `read ${bytes} bytes of ${size} for ${appended} appended`);
    }
  } finally {
    for (const stream of streams) await stream.cancel();
    stopping.abort();
  }
});
