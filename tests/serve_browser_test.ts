import { join, resolve } from "node:path";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { EVIL } from "./_html_helpers.ts";
import { eventOf, harness } from "./_runtime_helpers.ts";
import { pageHeaders } from "../src/html/mod.ts";
import { createServerHandler } from "../src/server/mod.ts";
import { runKilledTurn } from "../cli/_killed_turn.ts";
import { chromiumPath, hasChromium, type OpenedPage, startBrowser } from "../testing/browser.ts";
import { needing } from "./_needs.ts";

/** Screenshots are kept here (git-ignored) for a person to look at. */
const OUT = resolve(import.meta.dirname ?? ".", "out", "serve_browser");
const PHONE = { width: 390, height: 844 };
const NO_CHROMIUM = hasChromium()
  ? undefined
  : `no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`;

/**
 * What every served page must be: nothing ran from the session, every request stayed on the
 * origin (and was one of `expected`), nothing failed, and the document came with the
 * policy and headers of `pageHeaders`.
 */
async function assertClean(
  opened: OpenedPage,
  origin: string,
  expected: string[],
  consoleErrors: string[] = [],
) {
  assertStrictEquals(await opened.page.evaluate("typeof window.__pwned"), "undefined");
  assertEquals(opened.requests.filter((url) => !url.startsWith(`${origin}/`)), []);
  assertEquals([...new Set(opened.requests)].sort(), [...expected].sort());
  assertEquals(opened.consoleErrors, consoleErrors);
  assertEquals(opened.pageErrors, []);
  const documents = opened.responses.filter((r) =>
    r.headers["content-type"]?.startsWith("text/html")
  );
  assert(documents.length > 0, "an HTML document was served");
  for (const { url, status, headers } of documents) {
    // A session's page is live: its policy allows the live script by its hash.
    const { pathname } = new URL(url);
    const live = status === 200 && pathname.startsWith("/sessions/");
    // The list and the search page have the search box: their form may submit to the origin.
    const form = status === 200 && (pathname === "/" || pathname === "/search");
    const expected = pageHeaders({ live, form });
    const sent = Object.fromEntries(Object.keys(expected).map((name) => [name, headers[name]]));
    assertEquals(sent, expected, url);
  }
}

/**
 * Writes the file at `path` again with the last `was` made `now` (of the same length), renamed
 * in as a repair writes: a new inode, the same size, the same record count.
 */
async function rewriteAtSize(path: string, was: string, now: string) {
  const text = await Deno.readTextFile(path);
  const at = text.lastIndexOf(was);
  assert(at > 0 && was.length === now.length);
  const temp = `${path}.rewrite`;
  await Deno.writeTextFile(temp, `${text.slice(0, at)}${now}${text.slice(at + was.length)}`);
  await Deno.rename(temp, path);
  assertStrictEquals((await Deno.stat(path)).size, new Blob([text]).size);
}

Deno.test({
  ...needing(
    "createServerHandler() in Chromium: the list, live session pages, and a turn posted while one is open",
    NO_CHROMIUM,
  ),
  async fn(t) {
    await Deno.mkdir(OUT, { recursive: true });
    await using browser = await startBrowser();
    await using h = await harness({ "notes.txt": `${EVIL}\n`.repeat(20) });

    // Session A: hostile text, then a turn killed mid-tool, then a resumed turn that gets
    // the synthesized output. Session B: a turn killed mid-tool and never resumed: an orphan.
    const a = eventOf(await h.turn(`read notes.txt and then tell me: ${EVIL}`), "run_started");
    const killedA = await runKilledTurn({
      sessionsDir: h.sessionsDir,
      sessionId: a.sessionId,
      workspace: h.workspace,
      message: "run a slow task for 0.8 seconds",
      settleMs: 0,
    });
    await h.turn("what did I ask?", { sessionId: a.sessionId });
    const b = eventOf(await h.turn("list the files"), "run_started");
    const killedB = await runKilledTurn({
      sessionsDir: h.sessionsDir,
      sessionId: b.sessionId,
      workspace: h.workspace,
      message: "run a slow task for 0.8 seconds",
      settleMs: 0,
    });
    assert(killedA.killed && killedA.callId && killedB.killed && killedB.callId);

    const stopping = new AbortController();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      createServerHandler({
        connection: h.connection,
        sessionsDir: h.sessionsDir,
        workspace: h.workspace,
        pollMs: 100,
        signal: stopping.signal,
      }),
    );
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const pageA = `${origin}/sessions/${a.sessionId}`;
    const pageB = `${origin}/sessions/${b.sessionId}`;
    try {
      await t.step("GET / lists both sessions, newest first, and links to them", async () => {
        await using list = await browser.open(`${origin}/`);
        assertEquals(
          await list.page.$$eval(
            ".sessions a",
            (links) => links.map((l) => l.getAttribute("href")),
          ),
          [`/sessions/${b.sessionId}`, `/sessions/${a.sessionId}`],
        );
        await assertClean(list, origin, [`${origin}/`]);
        await list.page.screenshot({ path: join(OUT, "list-desktop-light.png"), fullPage: true });
        await using phone = await browser.open(`${origin}/`, {
          viewport: PHONE,
          colorScheme: "dark",
        });
        await assertClean(phone, origin, [`${origin}/`]);
        await phone.page.screenshot({ path: join(OUT, "list-phone-dark.png"), fullPage: true });
      });

      await t.step("the orphan call of session B is marked", async () => {
        await using opened = await browser.open(pageB);
        await opened.page.waitForSelector("#live[data-state='live']", { timeout: 5000 });
        assertStrictEquals(await opened.count("[data-turn]"), 2);
        assertEquals(
          await opened.page.$$eval(
            "[data-orphan]",
            (nodes) => nodes.map((n) => n.getAttribute("data-call-id")),
          ),
          [killedB.callId!],
        );
        assertStrictEquals(await opened.count("figure[data-chart] > svg"), 2);
        await opened.page.screenshot({
          path: join(OUT, "orphan-desktop-light.png"),
          fullPage: true,
        });
        await assertClean(opened, origin, [pageB, `${pageB}/events`]);
      });

      await t.step("session A's page takes in a turn posted to /api/agent/stream", async () => {
        await using opened = await browser.open(`${origin}/`);
        await opened.page.click(`.sessions a[href='/sessions/${a.sessionId}']`);
        await opened.page.waitForSelector("#live[data-state='live']", { timeout: 5000 });
        assertStrictEquals(await opened.count("[data-turn]"), 3);
        assertStrictEquals(
          await opened.attribute("[data-turn='3'] [data-synthesized]", "data-output-for"),
          killedA.callId!,
        );
        assertStrictEquals(await opened.count("figure[data-chart] > svg"), 2);
        const text = await opened.page.$eval("#turns", (node) => node.textContent ?? "");
        assert(text.includes(`read notes.txt and then tell me: ${EVIL}`), "user message as text");
        await opened.page.screenshot({
          path: join(OUT, "session-desktop-light.png"),
          fullPage: true,
        });
        // The record view is one click away; the reader folds turn 1 there, and the swap
        // must leave it folded.
        assertStrictEquals(await opened.count("#reading [data-reading-turn]"), 3);
        await opened.page.click("#views a[data-view='records']");
        await opened.page.click("[data-turn='1'] > summary");

        const posted = await fetch(`${origin}/api/agent/stream`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ message: "list the files", sessionId: a.sessionId }),
        });
        assert((await posted.text()).includes("event: run_succeeded"));
        const size = (await Deno.stat(a.sessionPath)).size;
        await opened.page.waitForSelector(`#session[data-size-bytes='${size}']`, {
          timeout: 10_000,
        });
        assertStrictEquals(await opened.count("[data-turn]"), 4);
        assertStrictEquals(await opened.count("#reading [data-reading-turn]"), 4);
        assertStrictEquals(await opened.attribute("[data-turn='1']", "open"), null);
        assertStrictEquals(await opened.attribute("[data-turn='4']", "open"), "");
        assertStrictEquals(await opened.page.$eval("#live", (node) => node.textContent), "live");
        // Each refresh asked for the turns from the page's last one on (3, then 4 if the new
        // turn grew again), never the whole session again, saying which reading it was
        // rendered from.
        const refreshes = [...new Set(opened.requests.filter((url) => url.includes("?from=")))];
        const revision = /^[0-9a-f]{8}\.0$/;
        assertEquals(refreshes[0]?.split("&seen=")[0], `${pageA}?from=3`);
        assert(
          refreshes.every((url) => {
            const [from, seen] = url.split("&seen=");
            return /\?from=[34]$/.test(from!) && revision.test(seen ?? "");
          }),
          refreshes.join(" "),
        );
        await assertClean(opened, origin, [`${origin}/`, pageA, `${pageA}/events`, ...refreshes]);
        await opened.page.screenshot({ path: join(OUT, "live-desktop-light.png") });
      });

      await t.step("session A's page takes a rewrite at the same size", async () => {
        await using opened = await browser.open(pageA);
        await opened.page.waitForSelector("#live[data-state='live']", { timeout: 5000 });
        await rewriteAtSize(a.sessionPath, "list the files", "LIST THE FILES");
        await opened.page.waitForFunction(
          `document.getElementById("turns")?.textContent?.includes("LIST THE FILES")`,
          { timeout: 10_000 },
        );
        assertStrictEquals(await opened.count("[data-turn]"), 4);
        const refreshes = [...new Set(opened.requests.filter((url) => url.includes("?from=")))];
        assertEquals(refreshes.map((url) => url.split("&seen=")[0]), [`${pageA}?from=4`]);
        await assertClean(opened, origin, [pageA, `${pageA}/events`, ...refreshes]);
      });

      await t.step("a page rendered before a rewrite at the same size catches up", async () => {
        // The page as the server rendered it, then the file rewritten at its size before the
        // page connects (as while its connection was down): its first event tells the rewrite.
        const rendered = await fetch(pageA);
        const document = {
          body: await rendered.text(),
          headers: Object.fromEntries(rendered.headers),
        };
        assert(document.body.includes("LIST THE FILES"));
        await rewriteAtSize(a.sessionPath, "LIST THE FILES", "LIST the FILES");
        await using opened = await browser.open(pageA, { document });
        await opened.page.waitForFunction(
          `document.getElementById("turns")?.textContent?.includes("LIST the FILES")`,
          { timeout: 10_000 },
        );
        assertStrictEquals(await opened.count("[data-turn]"), 4);
        const refreshes = [...new Set(opened.requests.filter((url) => url.includes("?from=")))];
        assertEquals(refreshes.map((url) => url.split("&seen=")[0]), [`${pageA}?from=4`]);
        await assertClean(opened, origin, [pageA, `${pageA}/events`, ...refreshes]);
      });

      await t.step("an unknown session is a 404 page under the same policy", async () => {
        const missing = `${origin}/sessions/01a2ffffffff`;
        await using opened = await browser.open(missing);
        assertStrictEquals(opened.responses[0]?.status, 404);
        assertStrictEquals(
          await opened.page.$eval("h1", (h1) => h1.textContent),
          "No such session",
        );
        // Chromium itself says the document was a 404; nothing else may.
        await assertClean(opened, origin, [missing], [
          "Failed to load resource: the server responded with a status of 404 (Not Found)",
        ]);
      });
    } finally {
      stopping.abort();
      await server.shutdown();
    }
  },
});
