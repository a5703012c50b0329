/**
 * Issue 39 point 8 at test size: a 20 MB Claude Code session its tool writes every 50 ms,
 * under two live pages. Each page gets exactly the turns that changed, the file is read for
 * what was appended (not whole, not once a page), the pages end equal to a fresh render, and
 * a probe is answered all along. After a rewind, a refresh holds the turns from the first one
 * that changed.
 *
 * @module
 */
import { join } from "node:path";
import { parseHTML } from "linkedom";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { claudeCodeAdapter } from "../src/formats/claude_code/mod.ts";
import { renderSessionPage, SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { createSessionBrowserHandler, SessionWatchers } from "../src/server/mod.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { claudeTranscriptLines } from "../testing/formats/scale.ts";
import { countIo } from "../testing/io_counter.ts";
import { waitFor } from "../testing/wait.ts";

/** An element, as far as the test uses one (Deno's type check has no DOM library). */
interface El {
  outerHTML: string;
  dataset: Record<string, string | undefined>;
  querySelectorAll(selector: string): El[];
  getElementById?(id: string): El | null;
  removeAttribute(name: string): void;
  remove(): void;
  appendChild(node: El): void;
  replaceWith(node: El): void;
}

/** The document of a page's HTML. */
const documentOf = (html: string) =>
  (parseHTML(html) as unknown as { document: LivePage["document"] }).document;

const turnsOf = (
  root: { querySelectorAll(s: string): El[] },
) => [...root.querySelectorAll("#turns > details[data-turn]")];

/** A turn as the page shows it, whatever the reader opened or folded. */
function shown(turn: El): string {
  turn.removeAttribute("open");
  return turn.outerHTML;
}

/**
 * A live page as the live script keeps it (src/html/_live.ts): on each `changed` event whose
 * size is not its own, it asks for the turns from its last one on, saying the revision it
 * was rendered from, and replaces its turns from the response's `data-from` on.
 */
class LivePage {
  document: { getElementById(id: string): El | null; querySelectorAll(s: string): El[] };
  /** Per refresh: the turn it asked from, the turn the answer replaced from, the turns sent. */
  readonly refreshes: { from: number; cut: number; turns: number[] }[] = [];
  #busy: Promise<void> = Promise.resolve();

  constructor(readonly url: string, html: string) {
    this.document = documentOf(html);
  }

  get sizeBytes(): number {
    return Number(this.document.getElementById("session")!.dataset.sizeBytes);
  }

  changed(sizeBytes: number): Promise<void> {
    this.#busy = this.#busy.then(() => sizeBytes === this.sizeBytes ? undefined : this.#refresh());
    return this.#busy;
  }

  async #refresh(): Promise<void> {
    const last = turnsOf(this.document).at(-1);
    const from = Number(last?.dataset.turn ?? 0);
    const seen = this.document.getElementById("session")!.dataset.revision!;
    const html = await (await fetch(`${this.url}?from=${from}&seen=${seen}`)).text();
    const next = documentOf(html);
    for (const id of ["session", "findings", "charts"]) {
      const now = this.document.getElementById(id), fresh = next.getElementById(id);
      if (now && fresh) now.replaceWith(fresh);
    }
    const turns = this.document.getElementById("turns")!;
    const fresh = next.getElementById("turns")!;
    const cut = Number(fresh.dataset.from ?? from);
    for (const turn of turnsOf(this.document)) if (Number(turn.dataset.turn) >= cut) turn.remove();
    const sent = turnsOf(next);
    for (const turn of sent) turns.appendChild(turn);
    this.refreshes.push({ from, cut, turns: sent.map((t) => Number(t.dataset.turn)) });
  }
}

/** The sizes of an SSE body's `changed` events, handed to `each` as they come. */
async function changes(body: ReadableStream<Uint8Array>, each: (size: number) => void) {
  let buffer = "";
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    buffer += text;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const event = buffer.slice(0, end).split("\n");
      buffer = buffer.slice(end + 2);
      const data = event.find((line) => line.startsWith("data: "));
      if (event.includes("event: changed") && data) each(JSON.parse(data.slice(6)).sizeBytes);
    }
  }
}

Deno.test("createSessionBrowserHandler() two live pages on a 20 MB Claude Code session growing every 50 ms get exactly the changed turns, read what was appended, and end as a fresh render; a probe answers all along", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const path = join(project, `${CLAUDE_SESSION_ID}.jsonl`);
  const lines = [...claudeTranscriptLines({ seed: 39, targetBytes: 20_500_000 })];
  const appends = 60;
  const head = lines.length - appends * 2;
  {
    using file = await Deno.open(path, { write: true, create: true });
    const encoder = new TextEncoder();
    for (let at = 0; at < head; at += 2000) {
      await file.write(
        encoder.encode(lines.slice(at, Math.min(head, at + 2000)).join("\n") + "\n"),
      );
    }
  }
  const watchers = new SessionWatchers({ pollMs: 50 });
  const stopping = new AbortController();
  const handler = createSessionBrowserHandler({
    sessionsDir: join(dir.path, "sessions"),
    homes: [{ adapter: claudeCodeAdapter, root: join(dir.path, "projects") }],
    watchers,
    signal: stopping.signal,
  });
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  const url = `http://127.0.0.1:${server.addr.port}/sessions/${CLAUDE_SESSION_ID}`;
  const size = (await Deno.stat(path)).size;
  assert(size > 20_000_000, `a 20 MB session (${size} bytes)`);
  // Two pages scrolled to the end: each holds the last turn (a whole page of 20 MB is the
  // same turns and many more of them, which the page budget test holds).
  const first = (await inspectSession(path)).turns.length;
  const pages = await Promise.all(
    [0, 1].map(async () => new LivePage(url, await (await fetch(`${url}?from=${first}`)).text())),
  );
  const closing = new AbortController();
  const streams = await Promise.all(
    pages.map(() => fetch(`${url}/events`, { signal: closing.signal })),
  );
  const refreshing: Promise<void>[] = [];
  // Each stream's first event comes once the watcher has counted the file (its one whole
  // read, made when the first page opens its events): the reads are counted from then on.
  // Counted before, the watcher's read of all 20 MB fell in the count when its first look
  // at the file came after the counter (under load, once: "read 20688513 bytes for 165833
  // appended", the file's 20338723 bytes and twice what was appended).
  const told = pages.map(() => Promise.withResolvers<void>());
  const reading = streams.map((stream, n) =>
    changes(stream.body!, (sizeBytes) => {
      told[n]!.resolve();
      refreshing.push(pages[n]!.changed(sizeBytes));
    })
  );
  await Promise.all(told.map((first, n) =>
    Promise.race([
      first.promise,
      reading[n]!.then(() =>
        Promise.reject(new Error(`events stream ${n} ended before its first event`))
      ),
    ])
  ));
  let probes = 0;
  let growing = true;
  const probing = (async () => {
    while (growing) {
      const probe = await fetch(`http://127.0.0.1:${server.addr.port}/favicon.ico`);
      await probe.body?.cancel();
      assertEquals(probe.status, 204);
      probes++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  using io = countIo();
  let appended = 0;
  try {
    for (let n = 0; n < appends; n++) {
      const text = lines.slice(head + n * 2, head + n * 2 + 2).join("\n") + "\n";
      appended += new TextEncoder().encode(text).length;
      await Deno.writeTextFile(path, text, { append: true });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const end = size + appended;
    await waitFor("both pages to show the whole file", async () => {
      await Promise.all(refreshing);
      return pages.every((page) => page.sizeBytes === end);
    }, { timeoutMs: 60_000 });
  } finally {
    growing = false;
    await probing;
    closing.abort();
    stopping.abort();
    await Promise.allSettled(reading);
    // A change told just before the streams closed may still be refreshing a page: it ends
    // while the server is up (a fetch after the test closed it failed once, outside the test).
    await Promise.allSettled(refreshing);
  }
  const bytes = io.take().reads.filter((r) => r.path === path)
    .reduce((sum, r) => sum + r.end - r.start, 0);
  // One read of what was appended for both pages (and the bytes before it that tell an
  // append), never the 20 MB again.
  assert(bytes < 4 * appended + 256 * 1024, `read ${bytes} bytes for ${appended} appended`);
  // Other requests went on while the session grew: at least one probe a change.
  assert(probes >= appends, `${probes} probes answered while ${appends} appends were made`);
  const report = await inspectSession(path, SESSION_PAGE_INSPECTION);
  const fresh = documentOf(renderSessionPage(report, { fromTurn: first }));
  for (const page of pages) {
    // Each refresh replaced the page's last turn and added the new ones: exactly the turns
    // that changed, from the one the page asked from to the session's last then.
    assert(page.refreshes.length > 0);
    let last = first;
    for (const refresh of page.refreshes) {
      assertEquals(refresh.cut, refresh.from);
      assertEquals(refresh.turns[0], refresh.from);
      assertEquals(
        refresh.turns,
        Array.from({ length: refresh.turns.length }, (_, i) => refresh.from + i),
      );
      assert(refresh.turns.at(-1)! >= last);
      last = refresh.turns.at(-1)!;
    }
    assertEquals(last, report.turns.length);
    // The page after every append equals a fresh render of the session, turn for turn.
    assertEquals(turnsOf(page.document).map(shown), turnsOf(fresh).map(shown));
  }
});

Deno.test("createSessionBrowserHandler() a live page's refresh after a Claude Code rewind holds the turns from the first one that changed", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const path = join(project, `${CLAUDE_SESSION_ID}.jsonl`);
  const b = new ClaudeTranscriptBuilder();
  const ends = b.questions(4);
  await Deno.writeTextFile(path, b.lines.splice(0).join("\n") + "\n");
  const handler = createSessionBrowserHandler({
    sessionsDir: join(dir.path, "sessions"),
    homes: [{ adapter: claudeCodeAdapter, root: join(dir.path, "projects") }],
  });
  const url = `http://127.0.0.1/sessions/${CLAUDE_SESSION_ID}`;
  const page = new LivePageHtml(await (await handler(new Request(url))).text());
  assertEquals(page.turns, ["1", "2", "3", "4"]);
  // The next prompt hangs off the end of turn 2: turns 3 and 4 are left aside.
  b.user("Question 3 again", { parent: ends[1]! });
  b.assistant([{ text: "Another answer 3" }], { stop: "end_turn" });
  await Deno.writeTextFile(path, b.lines.splice(0).join("\n") + "\n", { append: true });
  const refresh = new LivePageHtml(
    await (await handler(new Request(`${url}?from=4&seen=${page.revision}`))).text(),
  );
  // From turn 3, the first that changed: turn 2's cost is its own branch's responses alone (those
  // the rewind left aside count in the session's cost, in no turn's).
  assertEquals(refresh.from, "3");
  assertEquals(refresh.turns, ["3"]);
  assert(refresh.html.includes("Another answer 3") && !refresh.html.includes("Answer 4"));
  // A page that says nothing of what it saw gets what it asked for.
  const plain = new LivePageHtml(await (await handler(new Request(`${url}?from=3`))).text());
  assertEquals([plain.from, ...plain.turns], ["3", "3"]);
});

/** What a test reads of a session page's HTML. */
class LivePageHtml {
  constructor(readonly html: string) {}
  get turns(): string[] {
    return [...this.html.matchAll(/data-turn="(\d+)"/g)].map((m) => m[1]!);
  }
  get revision(): string {
    return /data-revision="([^"]+)"/.exec(this.html)![1]!;
  }
  get from(): string | undefined {
    return /id="turns" data-from="(\d+)"/.exec(this.html)?.[1];
  }
}
