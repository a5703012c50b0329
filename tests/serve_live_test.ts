/**
 * Live pages share one watcher per session (issue 39): a session growing under two live
 * pages is read once per change, each page gets each change once, and serve answers other
 * requests meanwhile.
 *
 * @module
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { claudeCodeAdapter } from "../src/formats/claude_code/mod.ts";
import { createSessionBrowserHandler, SessionWatchers } from "../src/server/mod.ts";
import { statKey } from "../src/_tick.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { waitFor } from "../testing/wait.ts";
import { fatTime, ownTimesOnly, rewriteUnseen } from "./_racy.ts";

/** The `changed` events of an SSE body, as they come. */
class ChangedEvents {
  readonly sizes: number[] = [];
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  readonly done: Promise<void>;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.pipeThrough(new TextDecoderStream()).getReader();
    this.done = this.#read();
  }

  async #read(): Promise<void> {
    while (true) {
      const { value, done } = await this.#reader.read().catch(() => ({ value: "", done: true }));
      if (done) return;
      this.#buffer += value;
      let end: number;
      while ((end = this.#buffer.indexOf("\n\n")) !== -1) {
        const event = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        if (!event.split("\n").includes("event: changed")) continue;
        const data = event.split("\n").find((line) => line.startsWith("data: "))!;
        this.sizes.push(JSON.parse(data.slice("data: ".length)).sizeBytes);
      }
    }
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
    await this.done;
  }
}

Deno.test("createSessionBrowserHandler() live pages on one growing session share one read; each gets each change once; a probe answers meanwhile", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const path = join(project, `${CLAUDE_SESSION_ID}.jsonl`);
  const b = new ClaudeTranscriptBuilder();
  b.user("Count to five");
  await Deno.writeTextFile(path, b.lines.join("\n") + "\n");
  const watchers = new SessionWatchers({ pollMs: 40 });
  const stopping = new AbortController();
  const handler = createSessionBrowserHandler({
    sessionsDir: join(dir.path, "sessions"),
    homes: [{ adapter: claudeCodeAdapter, root: join(dir.path, "projects") }],
    watchers,
    signal: stopping.signal,
  });
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const events = `${origin}/sessions/${CLAUDE_SESSION_ID}/events`;
  const pages = await Promise.all([fetch(events), fetch(events)]);
  const streams = pages.map((page) => new ChangedEvents(page.body!));
  try {
    const sizes = [(await Deno.stat(path)).size];
    await waitFor(
      "the first event on both pages",
      () => streams.every((s) => s.sizes.length === 1),
      { timeoutMs: 5000 },
    );
    assertEquals(watchers.size, 1);
    for (let n = 1; n <= 5; n++) {
      // A new turn each time: a prompt and its answer.
      b.user(`And ${n}?`);
      b.assistant([{ text: `${n}` }], { stop: "end_turn" });
      await Deno.writeTextFile(path, b.lines.slice(-2).join("\n") + "\n", { append: true });
      sizes.push((await Deno.stat(path)).size);
      // Another request is answered while the session grows under its pages.
      const probe = await fetch(`${origin}/favicon.ico`);
      await probe.body?.cancel();
      assertEquals(probe.status, 204);
      await waitFor(
        "the change on both pages",
        () => streams.every((s) => s.sizes.at(-1) === sizes.at(-1)),
        {
          timeoutMs: 5000,
        },
      );
    }
    // Each page got the file as it was, then each change once; the file was read once a change.
    for (const stream of streams) assertEquals(stream.sizes, sizes);
    assertEquals(watchers.reads(path), sizes.length);
    // A page refreshing on a change reads the session once for both, and asks only for the
    // turns from its last one on: the rest it has.
    const page = (query: string) =>
      fetch(`${origin}/sessions/${CLAUDE_SESSION_ID}${query}`).then((r) => r.text());
    const [one, two, whole] = await Promise.all([page("?from=1"), page("?from=1"), page("")]);
    assertEquals(one, two);
    assert(one.includes(`data-size-bytes="${sizes.at(-1)}"`));
    const turnsOf = (html: string) => [...html.matchAll(/data-turn="(\d+)"/g)].map((m) => m[1]);
    assertEquals(turnsOf(whole), ["1", "2", "3", "4", "5", "6"]);
    assertEquals(turnsOf(one), turnsOf(whole));
    const rest = await page("?from=5");
    assertEquals(turnsOf(rest), ["5", "6"]);
    assert(rest.includes('id="session"') && rest.includes('id="charts"'), "the header is whole");
    assertEquals(turnsOf(await page("?from=7")), []);
  } finally {
    await Promise.all(streams.map((stream) => stream.close()));
    stopping.abort();
  }
  await waitFor("the watcher to stop", () => watchers.size === 0, { timeoutMs: 5000 });
});

/** A `changed` event's data for the file at `path` as it is now, of `records` records. */
function changeOf(path: string, records: number): string {
  const info = Deno.statSync(path);
  return JSON.stringify({ records, sizeBytes: info.size, stamp: statKey(info) });
}

Deno.test("SessionWatchers.changes() sends a rewrite in place at the same size with a new time: the records counted again", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "session.jsonl");
  await Deno.writeTextFile(path, '{"n":10}\n{"n":20}\n');
  const old = new Date(Date.now() - 60_000);
  await Deno.utime(path, old, old);
  const stop = new AbortController();
  const events = new SessionWatchers({ pollMs: 20 }).changes(path, { signal: stop.signal });
  try {
    assertEquals((await events.next()).value?.data, changeOf(path, 2));
    await Deno.writeTextFile(path, '{"n":1}\n{"n":2}\n{}');
    assertEquals(Deno.statSync(path).size, 18);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      events.next(),
      new Promise<"none">((resolve) => timer = setTimeout(() => resolve("none"), 1500)),
    ]);
    clearTimeout(timer);
    assertEquals(next === "none" ? next : next.value?.data, changeOf(path, 3));
  } finally {
    stop.abort();
    await events.return(undefined);
  }
});

Deno.test("SessionWatchers.changes() sends a rewrite in place at the same size and time made in the tick of its last look, on a file system of seconds", async () => {
  using _seconds = ownTimesOnly();
  await using dir = await tempDir();
  const path = join(dir.path, "session.jsonl");
  await Deno.writeTextFile(path, '{"n":10}\n{"n":20}\n');
  const second = await fatTime(path);
  const stop = new AbortController();
  const events = new SessionWatchers({ pollMs: 20 }).changes(path, { signal: stop.signal });
  try {
    const first = await events.next();
    assertEquals(first.value, {
      retry: 2000,
      event: "changed",
      data: changeOf(path, 2),
    });
    await rewriteUnseen(path, '{"n":10}\n{"n":20}\n', '{"n":1}\n{"n":2}\n{}', second);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = await Promise.race([
      events.next(),
      new Promise<"none">((resolve) => timer = setTimeout(() => resolve("none"), 1500)),
    ]);
    clearTimeout(timer);
    assertEquals(next === "none" ? next : next.value, {
      retry: undefined,
      event: "changed",
      data: changeOf(path, 3),
    });
  } finally {
    stop.abort();
    await events.return(undefined);
  }
});
