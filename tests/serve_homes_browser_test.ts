/**
 * serve's browser over every home, in headless Chromium: turnlog's store beside a Codex home
 * and a Claude Code home (generated fixtures, never corpus files), listed by project with the
 * sessions' own dates; a compacted Claude Code session's page with the turns on both sides of
 * its boundaries; a Claude Code page following an append; the search box; the policy as
 * strict as ever.
 */
import { join, resolve } from "node:path";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { eventOf, harness } from "./_runtime_helpers.ts";
import { pageHeaders } from "../src/html/mod.ts";
import { browseHomes, createSessionBrowserHandler, FactsMemo } from "../src/server/mod.ts";
import { statKey } from "../src/_tick.ts";
import { chromiumPath, hasChromium, type OpenedPage, startBrowser } from "../testing/browser.ts";
import { CLAUDE_HOME_IDS, writeClaudeHome, writeCodexHome } from "../testing/formats/homes.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { geminiToolSession } from "../testing/formats/gemini_builder.ts";
import { needing } from "./_needs.ts";
import { startServe } from "../testing/serve_process.ts";
import { countIo } from "../testing/io_counter.ts";
import { PREVIEW_HEAD_BYTES, TAIL_BYTES } from "../src/formats/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";

/** Screenshots are kept here (git-ignored) for a person to look at. */
const OUT = resolve(import.meta.dirname ?? ".", "out", "serve_homes_browser");
const NO_CHROMIUM = hasChromium()
  ? undefined
  : `no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`;

/** The first and last `timestamp` of a file's lines: the session's own dates. */
async function ownDates(path: string): Promise<[string, string]> {
  const times = (await Deno.readTextFile(path)).split("\n").flatMap((line) => {
    try {
      const value = JSON.parse(line);
      return typeof value.timestamp === "string" ? [new Date(value.timestamp).toISOString()] : [];
    } catch {
      return [];
    }
  });
  return [times[0]!, times.at(-1)!];
}

/** Every document came under the policy `pageHeaders` gives its kind, nothing left the origin. */
function assertStrict(opened: OpenedPage, origin: string): void {
  assertEquals(opened.requests.filter((url) => !url.startsWith(`${origin}/`)), []);
  assertEquals(opened.consoleErrors, []);
  assertEquals(opened.pageErrors, []);
  for (const { url, status, headers } of opened.responses) {
    if (!headers["content-type"]?.startsWith("text/html") || status !== 200) continue;
    const { pathname } = new URL(url);
    const expected = pageHeaders({
      live: pathname.startsWith("/sessions/"),
      form: pathname === "/" || pathname === "/search",
    });
    assertStrictEquals(headers["content-security-policy"], expected["content-security-policy"]);
    assert(!headers["content-security-policy"]!.includes("unsafe-eval"));
  }
}

Deno.test({
  ...needing(
    "serve's browser in Chromium: Codex, Claude Code and Gemini CLI homes beside the store, by project, live",
    NO_CHROMIUM,
  ),
  async fn(t) {
    await Deno.mkdir(OUT, { recursive: true });
    await using browser = await startBrowser();
    await using h = await harness();
    const turn = eventOf(await h.turn("list the files"), "run_started");
    const home = await Deno.makeTempDir({ prefix: "turnlog-homes-" });
    const codex = await writeCodexHome(join(home, ".codex"));
    const claude = await writeClaudeHome(join(home, ".claude"));
    // A session Claude Code is still writing: one turn now, one appended while it is open.
    const liveId = "8c8c8c8c-0000-4000-8000-000000000004";
    // Its records are dated now: a file written a moment ago with old records was copied.
    const live = new ClaudeTranscriptBuilder({ sessionId: liveId, cwd: "/work/live" }, Date.now());
    live.user("First question", { parent: null });
    live.assistant([{ text: "First answer." }], { stop: "end_turn" });
    const livePath = join(claude.projects, "-work-live", `${liveId}.jsonl`);
    await Deno.mkdir(join(livePath, ".."), { recursive: true });
    await Deno.writeTextFile(livePath, live.text());

    // A Gemini CLI session in its project's chats folder.
    const gemini = join(home, ".gemini", "tmp", "proj");
    const geminiPath = join(gemini, "chats", "session-2026-12-01T10-00-5a7e0c1d.jsonl");
    await Deno.mkdir(join(geminiPath, ".."), { recursive: true });
    await Deno.writeTextFile(join(gemini, ".project_root"), "/work/proj\n");
    await Deno.writeTextFile(geminiPath, geminiToolSession().text());

    const env = { get: (name: string) => (name === "HOME" ? home : undefined) };
    const stopping = new AbortController();
    const facts = new FactsMemo();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      createSessionBrowserHandler({
        sessionsDir: h.sessionsDir,
        homes: browseHomes(env),
        pollMs: 100,
        signal: stopping.signal,
        readInBackground: true,
        facts,
      }),
    );
    const origin = `http://127.0.0.1:${server.addr.port}`;
    try {
      await t.step(
        "GET / lists every place's sessions by project, with their own dates",
        async () => {
          await using list = await browser.open(`${origin}/`);
          const rows = await list.page.$$eval(".sessions li", (items) =>
            items.map((li) => ({
              id: li.getAttribute("data-session-id"),
              format: li.getAttribute("data-format"),
              first: li.getAttribute("data-first-at"),
              last: li.getAttribute("data-last-at"),
              project: li.closest("section")?.getAttribute("data-project"),
            })));
          const ids = rows.map((row) => row.id);
          // In each project, the sessions by their own last record, newest first (the files'
          // times are all of this minute).
          const byProject = Map.groupBy(rows.filter((r) => r.last), (r) => r.project);
          for (const [project, group] of byProject) {
            const lasts = group.map((r) => r.last!);
            assertEquals(lasts, [...lasts].sort().reverse(), `${project}`);
          }
          // Every fixture's file was written a moment ago; only those whose last record is that
          // recent (the live one, the turn just run) are being written: the others are as good
          // as copied.
          const writing = await list.page.$$eval(
            ".sessions li:has(.writing)",
            (items) => items.map((li) => li.getAttribute("data-session-id")),
          );
          assertEquals(new Set(writing), new Set([liveId, turn.sessionId]));
          for (const id of [turn.sessionId, liveId, ...codex.map((c) => c.id)]) {
            assert(ids.includes(id), `${id} is listed`);
          }
          for (const id of Object.values(CLAUDE_HOME_IDS)) assert(ids.includes(id), id);
          assertEquals(
            new Set(rows.map((row) => row.format)),
            new Set(["turnlog", "codex", "claude-code", "gemini"]),
          );
          const geminiRow = rows.find((r) => r.format === "gemini")!;
          assertEquals(geminiRow.last, (await ownDates(geminiPath))[1]);
          // Each session's own first and last record, never the file's modification time.
          for (const session of codex) {
            const row = rows.find((r) => r.id === session.id)!;
            assertEquals([row.first, row.last], await ownDates(session.path), session.id);
            assertStrictEquals(row.project, "/work/project");
          }
          const compaction = rows.find((r) => r.id === CLAUDE_HOME_IDS.compaction)!;
          assertEquals([compaction.first, compaction.last], await ownDates(claude.compaction));
          assertStrictEquals(compaction.project, "-work-other");
          const text = await list.page.$eval("main", (node) => node.textContent ?? "");
          assert(!text.includes("1970"), "no date is made up");
          // Grouped: each Claude Code project folder under its own heading.
          const projects = await list.page.$$eval(
            ".project",
            (sections) => sections.map((x) => x.getAttribute("data-project")),
          );
          for (const folder of ["-work-project", "-work-other", "-work-live", "/work/project"]) {
            assert(projects.includes(folder), `${folder}: ${projects.join(", ")}`);
          }
          assertStrict(list, origin);
          await list.page.screenshot({ path: join(OUT, "list.png"), fullPage: true });
          // The background reads fill in turns and health for the next look.
          await facts.idle();
          await using again = await browser.open(`${origin}/`);
          const checked = await again.attribute(
            `li[data-session-id='${CLAUDE_HOME_IDS.compaction}']`,
            "data-healthy",
          );
          // The compacted fixture is healthy: its full read says so.
          assertStrictEquals(checked, "true");
          assertStrictEquals(await again.count(".sessions .turns"), rows.length);
          await again.page.screenshot({ path: join(OUT, "list-checked.png"), fullPage: true });
        },
      );

      await t.step(
        "a compacted Claude Code session's page shows the turns around both boundaries",
        async () => {
          await using opened = await browser.open(
            `${origin}/sessions/${CLAUDE_HOME_IDS.compaction}`,
          );
          const turns = await opened.page.$eval("#turns", (node) => node.textContent ?? "");
          for (
            const said of [
              "Start",
              "Step two",
              "Step three",
              "Step four",
              "Step five",
              "Five done.",
            ]
          ) {
            assert(turns.includes(said), `${said} is on the page`);
          }
          assertStrictEquals(await opened.count("[data-turn]"), 5);
          assertStrict(opened, origin);
        },
      );

      await t.step(
        "a prefix of a Codex session redirects to its page, every turn on it",
        async () => {
          await using opened = await browser.open(`${origin}/sessions/${codex[0]!.id.slice(0, 8)}`);
          assertStrictEquals(new URL(opened.page.url()).pathname, `/sessions/${codex[0]!.id}`);
          const { turns } = await inspectSession(codex[0]!.path);
          assert(turns.length > 1, "the fixture has more than one turn");
          assertStrictEquals(await opened.count("[data-turn]"), turns.length);
          assertStrict(opened, origin);
        },
      );

      await t.step("a Gemini CLI session's page shows its turn", async () => {
        await using opened = await browser.open(`${origin}/sessions/5a7e0c1d`);
        const turns = await opened.page.$eval("#turns", (node) => node.textContent ?? "");
        assert(turns.includes("The README says hello."), turns);
        assertStrictEquals(await opened.count("[data-turn]"), 1);
        assertStrict(opened, origin);
      });

      await t.step("a page of a session being written says so and follows an append", async () => {
        await using opened = await browser.open(`${origin}/sessions/${liveId}`);
        await opened.page.waitForSelector("#live[data-state='live']", { timeout: 5000 });
        const notice = await opened.page.$eval("#writing", (node) => node.textContent ?? "");
        assert(notice.startsWith("Claude Code is writing this session"), notice);
        assertStrictEquals(await opened.count("[data-turn]"), 1);
        const before = live.lines.length;
        live.user("Second question");
        live.assistant([{ text: "Second answer." }], { stop: "end_turn" });
        await Deno.writeTextFile(livePath, live.lines.slice(before).join("\n") + "\n", {
          append: true,
        });
        const size = (await Deno.stat(livePath)).size;
        await opened.page.waitForSelector(`#session[data-size-bytes='${size}']`, { timeout: 5000 });
        assertStrictEquals(await opened.count("[data-turn]"), 2);
        const turns = await opened.page.$eval("#turns", (node) => node.textContent ?? "");
        assert(turns.includes("Second answer."), "the appended turn is on the page");
        assertStrict(opened, origin);
      });

      await t.step("the search box finds a session in a home and leads to its page", async () => {
        await using opened = await browser.open(`${origin}/`);
        await opened.page.type("#search input[name='q']", '"Step three"');
        await Promise.all([opened.page.waitForNavigation(), opened.page.click("#search button")]);
        assertStrictEquals(new URL(opened.page.url()).pathname, "/search");
        const found = await opened.page.$$eval(
          "#results li[data-session-id]",
          (items) => items.map((li) => li.getAttribute("data-session-id")),
        );
        assertEquals(found, [CLAUDE_HOME_IDS.compaction]);
        assertStrictEquals(
          await opened.page.$eval("#results mark", (m) => m.textContent),
          "Step three",
        );
        await opened.page.screenshot({ path: join(OUT, "search.png"), fullPage: true });
        // The hit leads to its line on the session's page.
        await Promise.all([opened.page.waitForNavigation(), opened.page.click("#results .hits a")]);
        const url = new URL(opened.page.url());
        assertStrictEquals(url.pathname, `/sessions/${CLAUDE_HOME_IDS.compaction}`);
        assertStrictEquals(url.hash, "#line-10");
        const line = await opened.page.$eval("#line-10", (node) => node.textContent ?? "");
        assert(line.includes("Step three"), line);
        assertStrict(opened, origin);
      });
    } finally {
      stopping.abort();
      await server.shutdown();
      await facts.idle();
      await Deno.remove(home, { recursive: true });
    }
  },
});

Deno.test("GET /sessions/<id>/events of another tool's file sends `changed` when the tool appends", async () => {
  const home = await Deno.makeTempDir({ prefix: "turnlog-homes-" });
  try {
    const codex = await writeCodexHome(join(home, ".codex"));
    const env = { get: (name: string) => (name === "HOME" ? home : undefined) };
    const stopping = new AbortController();
    const handler = createSessionBrowserHandler({
      sessionsDir: join(home, "sessions"),
      homes: browseHomes(env, ["codex"]),
      pollMs: 50,
      signal: stopping.signal,
    });
    const { id, path } = codex[0]!;
    const response = await handler(new Request(`http://127.0.0.1/sessions/${id}/events`));
    assertStrictEquals(response.status, 200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    // Fails (at the next event or ping) rather than waiting forever for what never comes.
    const deadline = Date.now() + 10_000;
    const until = async (pattern: RegExp) => {
      while (!pattern.test(seen)) {
        if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${seen}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended: ${seen}`);
        seen += value;
      }
    };
    const stamped = async () => {
      const info = await Deno.stat(path);
      return `"sizeBytes":${info.size},"stamp":"${statKey(info)}"\\}`;
    };
    const size = (await Deno.stat(path)).size;
    await until(new RegExp(await stamped()));
    const line = JSON.stringify({
      timestamp: "2026-02-23T12:30:00.000Z",
      type: "event_msg",
      payload: { type: "user_message", message: "one more" },
    });
    await Deno.writeTextFile(path, `${line}\n`, { append: true });
    assertStrictEquals(
      (await Deno.stat(path)).size,
      size + new TextEncoder().encode(`${line}\n`).length,
    );
    await until(new RegExp(`event: changed\\ndata: \\{"records":\\d+,${await stamped()}`));
    stopping.abort();
    await reader.cancel();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("serve --sessions-dir <a Claude Code root> browses that home; --store-only none; the agent route leaves it alone", async () => {
  const home = await Deno.makeTempDir({ prefix: "turnlog-homes-" });
  try {
    const claude = await writeClaudeHome(join(home, ".claude"));
    const before = await Deno.readFile(claude.compaction);
    const env = { HOME: home, TURNLOG_SESSIONS_DIR: join(home, "sessions") };
    {
      await using serve = await startServe(["--sessions-dir", claude.projects], { env });
      const list = await (await fetch(`${serve.base}/`)).text();
      for (const id of Object.values(CLAUDE_HOME_IDS)) {
        assert(list.includes(`data-session-id="${id}"`), id);
      }
      const page = await fetch(`${serve.base}/sessions/${CLAUDE_HOME_IDS.compaction}`);
      assertStrictEquals(page.status, 200);
      assert((await page.text()).includes("Step five"));
      // A turn on another tool's session: no such session of turnlog's, nothing written.
      const posted = await fetch(`${serve.base}/api/agent/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "carry on", sessionId: CLAUDE_HOME_IDS.compaction }),
      });
      assertMatch(await posted.text(), /event: run_failed\n/);
    }
    assertEquals(await Deno.readFile(claude.compaction), before);
    await using storeOnly = await startServe(["--store-only"], { env });
    const listed = await fetch(`${storeOnly.base}/`);
    assertStrictEquals(listed.status, 200);
    const list = await listed.text();
    assert(!list.includes(CLAUDE_HOME_IDS.compaction), "no home is browsed");
    const page = await fetch(`${storeOnly.base}/sessions/${CLAUDE_HOME_IDS.compaction}`);
    assertStrictEquals(page.status, 404);
    await page.body?.cancel();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the list says which home cannot be read, and lists the others", async () => {
  const home = await Deno.makeTempDir({ prefix: "turnlog-homes-" });
  try {
    const codex = await writeCodexHome(join(home, ".codex"));
    const env = { get: (name: string) => (name === "HOME" ? home : undefined) };
    const [good, bad] = browseHomes(env, ["codex", "claude"]);
    const broken = {
      ...bad!,
      adapter: {
        ...bad!.adapter,
        list: () => Promise.reject(new Deno.errors.PermissionDenied("permission denied")),
      },
    };
    const handler = createSessionBrowserHandler({
      sessionsDir: join(home, "sessions"),
      homes: [good!, broken],
    });
    const page = await (await handler(new Request("http://127.0.0.1/"))).text();
    for (const { id } of codex) assert(page.includes(`data-session-id="${id}"`), id);
    assert(
      page.includes(`${broken.root} cannot be read: permission denied`),
      "the unread home is named",
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a page of the list reads only the head and a bounded tail of the sessions it shows, nothing of the others", async () => {
  const home = await Deno.makeTempDir({ prefix: "turnlog-homes-" });
  try {
    const projects = join(home, ".claude", "projects", "-work-big");
    await Deno.mkdir(projects, { recursive: true });
    const paths: string[] = [];
    for (let n = 0; n < 12; n++) {
      const id = `${String(n).padStart(8, "0")}-0000-4000-8000-000000000000`;
      const b = new ClaudeTranscriptBuilder({ sessionId: id });
      b.user(`Question ${n}`, { parent: null });
      for (let i = 0; i < 10; i++) {
        b.assistant([{ text: "x".repeat(100_000) }], { stop: "end_turn" });
      }
      const path = join(projects, `${id}.jsonl`);
      await Deno.writeTextFile(path, b.text());
      await Deno.utime(path, 1_000_000 + n, 1_000_000 + n);
      paths.push(path);
    }
    const env = { get: (name: string) => (name === "HOME" ? home : undefined) };
    const handler = createSessionBrowserHandler({
      sessionsDir: join(home, "sessions"),
      homes: browseHomes(env, ["claude"]),
      listLimit: 4,
    });
    let page: string;
    {
      using io = countIo();
      page = await (await handler(new Request("http://127.0.0.1/"))).text();
      const reads = io.take().reads;
      const shown = paths.slice(-4); // the newest four
      for (const path of paths) {
        const mine = reads.filter((read) => read.path === path);
        if (!shown.includes(path)) {
          assertEquals(mine, [], `${path}: not on the page, never read`);
          continue;
        }
        const size = (await Deno.stat(path)).size;
        assert(mine.some((read) => read.start === 0), `${path}: its head is read`);
        assert(mine.some((read) => read.end === size), `${path}: its tail is read`);
        for (const read of mine) {
          const inHead = read.end <= PREVIEW_HEAD_BYTES + 64 * 1024;
          const inTail = read.start >= size - TAIL_BYTES;
          assert(inHead || inTail, `${path}: read ${read.start}-${read.end} of ${size}`);
        }
      }
    }
    const ids = (html: string) => [...html.matchAll(/data-session-id="(\d{8})-/g)].map((m) => m[1]);
    const next = (html: string) =>
      /<a rel="next" href="([^"]+)"/.exec(html)?.[1]?.replaceAll("&amp;", "&");
    assertEquals(ids(page), ["00000011", "00000010", "00000009", "00000008"]);
    // The cursor goes on where the page ended; the last page has no next.
    const second = await (await handler(new Request(`http://127.0.0.1${next(page)}`))).text();
    assertEquals(ids(second), ["00000007", "00000006", "00000005", "00000004"]);
    const third = await (await handler(new Request(`http://127.0.0.1${next(second)}`))).text();
    assertEquals(ids(third), ["00000003", "00000002", "00000001", "00000000"]);
    assertStrictEquals(next(third), undefined);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
