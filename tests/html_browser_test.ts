import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { EVIL } from "./_html_helpers.ts";
import { makeStory, strayOutputLine } from "./_inspect_fixtures.ts";
import { eventOf, harness } from "./_runtime_helpers.ts";
import {
  pageHeaders,
  renderSessionList,
  renderSessionPage,
  sessionPageStream,
} from "../src/html/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { findSession, listSessions } from "../src/store/mod.ts";
import { runKilledTurn } from "../testing/killed_turn.ts";
import { chromiumPath, hasChromium, type OpenedPage, startBrowser } from "../testing/browser.ts";

/** Screenshots and pages are kept here (git-ignored) for a person to look at. */
const OUT = resolve(import.meta.dirname ?? ".", "out", "html_browser");
const PHONE = { width: 390, height: 844 };
const SKIP = !hasChromium();
if (SKIP) {
  console.log(
    `html_browser_test: SKIPPED, no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`,
  );
}

/** What every page must be: nothing ran from the session, nothing fetched, nothing failed. */
async function assertClean(opened: OpenedPage, allowed: string[]) {
  assertStrictEquals(await opened.page.evaluate("typeof window.__pwned"), "undefined");
  assert(opened.requests.includes(allowed[0]!), `no request for ${allowed[0]} was seen`);
  assertEquals(opened.requests.filter((url) => !allowed.includes(url)), []);
  assertEquals(opened.consoleErrors, []);
  assertEquals(opened.pageErrors, []);
}

/** The page at a phone's width and dark: no sideways scrolling, dark background. */
async function assertPhoneDark(opened: OpenedPage) {
  const [scrollWidth, clientWidth, background] = await opened.page.evaluate(
    `[document.documentElement.scrollWidth, document.documentElement.clientWidth,
      getComputedStyle(document.body).backgroundColor]`,
  ) as [number, number, string];
  assert(scrollWidth <= clientWidth, `wider than the phone: ${scrollWidth} > ${clientWidth}`);
  assertStrictEquals(background, "rgb(13, 17, 23)");
}

Deno.test({
  name: "renderSessionPage() in Chromium: runtime and damaged sessions, served and live",
  ignore: SKIP,
  async fn(t) {
    await Deno.mkdir(OUT, { recursive: true });
    await using browser = await startBrowser();
    await using h = await harness({ "notes.txt": `${EVIL}\n`.repeat(20) });

    // A runtime session: hostile text in a user message and a tool output, then a turn
    // killed mid-tool, then a resumed turn that gets the synthesized output.
    const first = await h.turn(`read notes.txt and then tell me: ${EVIL}`);
    const { sessionId, sessionPath } = eventOf(first, "run_started");
    const killed = await runKilledTurn({
      sessionsDir: h.sessionsDir,
      sessionId,
      workspace: h.workspace,
      message: "run a slow task for 0.8 seconds",
      settleMs: 0,
    });
    assert(killed.killed && killed.callId !== undefined);
    await h.turn("what did I ask?", { sessionId });

    await t.step(
      "a runtime session: turns, the synthesized output, the charts, no script",
      async () => {
        const report = await inspectSession(sessionPath, { entries: true });
        assertEquals(report.synthesizedOutputs.map((s) => s.callId), [killed.callId]);
        const file = join(OUT, "runtime-session.html");
        await Deno.writeTextFile(file, renderSessionPage(report));
        const url = pathToFileURL(file).href;
        {
          await using opened = await browser.open(url);
          assertStrictEquals(await opened.count("[data-turn]"), 3);
          assertStrictEquals(
            await opened.attribute("[data-turn='3'] [data-synthesized]", "data-output-for"),
            killed.callId!,
          );
          assertStrictEquals(await opened.count("figure[data-chart] > svg"), 2);
          const text = await opened.page.$eval("#turns", (node) => node.textContent ?? "");
          assert(text.includes(`read notes.txt and then tell me: ${EVIL}`), "user message as text");
          assert(text.includes(EVIL), "tool output as text");
          // Collapsed outputs open with a click, with every script blocked by the policy.
          const long = "[data-turn='1'] [data-output-for] details.long";
          assertStrictEquals(await opened.attribute(long, "open"), null);
          await opened.page.click(`${long} > summary`);
          assertStrictEquals(await opened.attribute(long, "open"), "");
          await assertClean(opened, [url]);
          await opened.page.screenshot({
            path: join(OUT, "runtime-desktop-light.png"),
            fullPage: true,
          });
        }
        {
          await using opened = await browser.open(url, { viewport: PHONE, colorScheme: "dark" });
          await assertPhoneDark(opened);
          await assertClean(opened, [url]);
          await opened.page.screenshot({
            path: join(OUT, "runtime-phone-dark.png"),
            fullPage: true,
          });
        }
      },
    );

    await t.step("a damaged file: the orphan call and every problem with its line", async () => {
      await using dir = await tempDir();
      const story = await makeStory(dir.path, { crashOnly: true });
      await Deno.writeTextFile(story.path, `{"torn ${EVIL}\n${strayOutputLine()}\n`, {
        append: true,
      });
      const report = await inspectSession(story.path, { entries: true });
      const file = join(OUT, "damaged-session.html");
      await Deno.writeTextFile(file, renderSessionPage(report));
      const url = pathToFileURL(file).href;
      await using opened = await browser.open(url, { viewport: PHONE });
      assertStrictEquals(await opened.count("[data-turn]"), 2);
      assertStrictEquals(await opened.attribute("[data-orphan]", "data-call-id"), "c3");
      assertStrictEquals(await opened.count("[data-orphan]"), 1);
      assertEquals(
        await opened.page.$$eval(
          "[data-line]",
          (nodes) => nodes.map((node) => Number(node.getAttribute("data-line"))),
        ),
        report.problems.map((p) => p.line),
      );
      assertStrictEquals(await opened.count("[data-dropped='orphan_output']"), 1);
      await assertClean(opened, [url]);
      await opened.page.screenshot({ path: join(OUT, "damaged-phone-light.png"), fullPage: true });
    });

    await t.step("every example session opens clean, with its turns", async () => {
      const examples = resolve(import.meta.dirname ?? ".", "..", "sessions", "examples");
      const index = JSON.parse(await Deno.readTextFile(join(examples, "index.json"))) as {
        sessions: { id: string; file: string; title: string; turns: number }[];
      };
      assert(index.sessions.length > 0);
      for (const example of index.sessions) {
        const report = await inspectSession(join(examples, example.file), { entries: true });
        const file = join(OUT, `example-${example.id}.html`);
        await Deno.writeTextFile(file, renderSessionPage(report, { title: example.title }));
        const url = pathToFileURL(file).href;
        await using opened = await browser.open(url);
        assertStrictEquals(await opened.page.$eval("h1", (h1) => h1.textContent), example.title);
        assertStrictEquals(await opened.count("[data-turn]"), example.turns, example.file);
        assertStrictEquals(await opened.count("figure[data-chart] > svg"), 2);
        await assertClean(opened, [url]);
      }
    });

    await t.step("served: the list links to a live page that takes in a new turn", async () => {
      const events = new Set<ReadableStreamDefaultController<Uint8Array>>();
      const encoder = new TextEncoder();
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        async (request) => {
          const path = new URL(request.url).pathname;
          if (path === "/") {
            const listing = await listSessions(h.sessionsDir);
            return new Response(renderSessionList(listing), { headers: pageHeaders() });
          }
          const match = /^\/sessions\/([^/]+)(\/events)?$/.exec(path);
          if (!match) return new Response("Not found", { status: 404 });
          const found = await findSession(h.sessionsDir, decodeURIComponent(match[1]!));
          if (match[2]) {
            let mine: ReadableStreamDefaultController<Uint8Array> | undefined;
            const body = new ReadableStream<Uint8Array>({
              start(controller) {
                mine = controller;
                events.add(controller);
                controller.enqueue(encoder.encode(": connected\n\n"));
              },
              cancel() {
                if (mine) events.delete(mine);
              },
            });
            return new Response(body, { headers: { "content-type": "text/event-stream" } });
          }
          const report = await inspectSession(found.path, { entries: true });
          const page = sessionPageStream(report, {
            live: { eventsUrl: `${path}/events` },
            listHref: "/",
          });
          return new Response(page, { headers: pageHeaders({ live: true }) });
        },
      );
      try {
        const origin = `http://127.0.0.1:${server.addr.port}`;
        {
          await using list = await browser.open(`${origin}/`, {
            viewport: PHONE,
            colorScheme: "dark",
          });
          await assertPhoneDark(list);
          await list.page.screenshot({ path: join(OUT, "list-phone-dark.png"), fullPage: true });
        }
        await using opened = await browser.open(`${origin}/`);
        assertStrictEquals(await opened.count(".sessions li"), 1);
        await opened.page.click(".sessions a");
        await opened.page.waitForSelector("#live[data-state='live']", { timeout: 5000 });
        assertStrictEquals(await opened.count("[data-turn]"), 3);
        // The reader folds turn 1; the swap must leave it folded.
        await opened.page.click("[data-turn='1'] > summary");

        await h.turn("list the files", { sessionId });
        const size = (await Deno.stat(sessionPath)).size;
        for (const controller of events) {
          controller.enqueue(
            encoder.encode(`event: changed\ndata: {"records":40,"sizeBytes":${size}}\n\n`),
          );
        }
        await opened.page.waitForSelector("[data-turn='4']", { timeout: 5000 });
        assertStrictEquals(await opened.count("[data-turn]"), 4);
        assertStrictEquals(await opened.attribute("[data-turn='1']", "open"), null);
        assertStrictEquals(await opened.attribute("[data-turn='4']", "open"), "");
        assertMatch(await opened.page.$eval("#live", (node) => node.textContent ?? ""), /^live$/);
        const pageUrl = `${origin}/sessions/${sessionId}`;
        await assertClean(opened, [`${origin}/`, pageUrl, `${pageUrl}/events`]);
        await opened.page.screenshot({ path: join(OUT, "live-desktop-light.png") });
      } finally {
        for (const controller of events) controller.close();
        await server.shutdown();
      }
    });
  },
});
