import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { EVIL } from "./_html_helpers.ts";
import { makeStory, strayOutputLine } from "./_inspect_fixtures.ts";
import { eventOf, harness } from "./_runtime_helpers.ts";
import { renderSessionPage } from "../src/html/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { runKilledTurn } from "../cli/_killed_turn.ts";
import { chromiumPath, hasChromium, type OpenedPage, startBrowser } from "../testing/browser.ts";
import { needing } from "./_needs.ts";

/** Screenshots and pages are kept here (git-ignored) for a person to look at. */
const OUT = resolve(import.meta.dirname ?? ".", "out", "html_browser");
const PHONE = { width: 390, height: 844 };
const NO_CHROMIUM = hasChromium()
  ? undefined
  : `no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`;

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
  ...needing(
    "renderSessionPage() in Chromium: runtime, damaged and example sessions, from files",
    NO_CHROMIUM,
  ),
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
          // The reading view is the default: every turn, the record view hidden until its link.
          assertStrictEquals(await opened.count("#reading [data-reading-turn]"), 3);
          assertStrictEquals(
            await opened.page.$eval("#records", (n) => n.checkVisibility()),
            false,
          );
          await opened.page.click("#views a[data-view='records']");
          assertStrictEquals(await opened.page.$eval("#records", (n) => n.checkVisibility()), true);
          assertStrictEquals(
            await opened.page.$eval("#reading", (n) => n.checkVisibility()),
            false,
          );
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
      const examples = resolve(import.meta.dirname ?? ".", "..", "sessions");
      const index = JSON.parse(await Deno.readTextFile(join(examples, "examples.json"))) as {
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
  },
});
