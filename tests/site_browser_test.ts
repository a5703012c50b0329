/**
 * The static site (`inspect --html --all DIR`) and the reading view in Chromium, from
 * `file://`: the index lists every session with the turns the inspector counts, each link
 * opens its page whose reading view shows that many turns, the record view is one click away
 * and shows them too, and back goes to the index; nothing is fetched but the site's files.
 *
 * @module
 */
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { writeClaudeHome } from "../testing/formats/homes.ts";
import { writeSite } from "../cli/_site.ts";
import { chromiumPath, hasChromium, startBrowser, type TestBrowser } from "../testing/browser.ts";

/** Screenshots are kept here (git-ignored) for a person to look at. */
const OUT = resolve(import.meta.dirname ?? ".", "out", "site_browser");
const NO_CHROMIUM = hasChromium()
  ? undefined
  : `no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`;

/** How many elements matching `selector` the reader sees (not hidden by the view shown). */
const VISIBLE = (selector: string) =>
  `[...document.querySelectorAll(${
    JSON.stringify(selector)
  })].filter((n) => n.checkVisibility()).length`;

/**
 * The turns the inspector counts in each session file under `root` (not the subagents' files,
 * which the site shows under their sessions), by session id.
 */
async function inspectorTurns(root: string): Promise<Map<string, number>> {
  const turns = new Map<string, number>();
  for await (const path of corpusFiles(root)) {
    if (basename(path).startsWith("agent-") || path.includes("/subagents/")) continue;
    if ((await Deno.stat(path)).size === 0) continue;
    const report = await inspectSession(path);
    turns.set(report.session.id!, report.turns.length);
  }
  return turns;
}

/**
 * Walks the site in `out` as a reader does: the index, then each session's page by its link,
 * its record view by its link, and back twice to the index. Returns the sessions walked.
 */
async function walkSite(
  browser: TestBrowser,
  out: string,
  shot: string,
  root: string,
): Promise<number> {
  const expected = await inspectorTurns(root);
  const index = pathToFileURL(join(out, "index.html")).href;
  const site = pathToFileURL(out).href;
  await using opened = await browser.open(index);
  const { page } = opened;
  const sessions = await page.$$eval(
    "li[data-session-id]",
    (items) =>
      items.map((li) =>
        [li.getAttribute("data-session-id")!, Number(li.getAttribute("data-turns"))] as const
      ),
  );
  assert(sessions.length > 0, "the index lists sessions");
  // The index says the turns the inspector counts, for every session file of the home.
  assertEquals(new Map(sessions), expected);
  const total = await page.$eval("#sessions", (main) => Number(main.getAttribute("data-turns")));
  assertStrictEquals(total, sessions.reduce((sum, [, turns]) => sum + turns, 0));
  await page.screenshot({ path: join(OUT, `${shot}-index.png`) });
  for (const [id, turns] of sessions) {
    const link = `li[data-session-id="${id}"] .top a`;
    await Promise.all([page.waitForNavigation(), page.click(link)]);
    assert(page.url().startsWith(`${site}/sessions/`), page.url());
    assertStrictEquals(await page.evaluate(VISIBLE("#reading [data-reading-turn]")), turns, id);
    assertStrictEquals(await page.evaluate(VISIBLE("#records [data-turn]")), 0, id);
    // The record view, one click away, shows the same turns; the reading view steps aside.
    await page.click("#views a[data-view='records']");
    assertStrictEquals(await page.evaluate(VISIBLE("#records [data-turn]")), turns, id);
    assertStrictEquals(await page.evaluate(VISIBLE("#reading [data-reading-turn]")), 0, id);
    await page.goBack(); // the reading view again (the hash)
    assertStrictEquals(await page.evaluate(VISIBLE("#reading [data-reading-turn]")), turns, id);
    await Promise.all([page.waitForNavigation(), page.goBack()]);
    assertStrictEquals(page.url(), index);
  }
  // Nothing but the site's own files, no script error, no policy violation.
  assertEquals(opened.requests.filter((url) => !url.startsWith(`${site}/`)), []);
  assertEquals([opened.consoleErrors, opened.pageErrors], [[], []]);
  return sessions.length;
}

Deno.test({
  ...needing(
    "writeSite() in Chromium from file://: index -> page -> record view -> back, every turn the inspector counts",
    NO_CHROMIUM,
  ),
  async fn(t) {
    await Deno.mkdir(OUT, { recursive: true });
    await using browser = await startBrowser();
    await using dir = await tempDir();

    await t.step("a Claude Code home with a subagent, forks and compactions", async () => {
      const home = await writeClaudeHome(join(dir.path, "claude"));
      const out = join(dir.path, "claude-site");
      await writeSite(home.projects, { out });
      assertStrictEquals(await walkSite(browser, out, "claude", home.projects), 4);
      // The subagent's page opens from its session's reading view, folded inline there.
      const report = await inspectSession(home.session);
      const agent = report.subagents[0]!;
      await using opened = await browser.open(pathToFileURL(join(out, "index.html")).href);
      await Promise.all([
        opened.page.waitForNavigation(),
        opened.page.click(`li[data-session-id="${home.sessionId}"] .top a`),
      ]);
      const fold = `#reading details.subagent[data-subagent="${agent.id}"]`;
      await opened.page.click(`${fold} > summary`);
      await Promise.all([opened.page.waitForNavigation(), opened.page.click(`${fold} a`)]);
      assert(opened.page.url().endsWith(`.agent-${agent.id}.html`), opened.page.url());
      assertStrictEquals(
        await opened.page.$eval("#writing", (p) => p.textContent),
        `A subagent of session ${home.sessionId}${
          agent.line === null ? "" : `, started at its line ${agent.line}`
        }.`,
      );
    });

    for (const format of ["codex", "gemini"]) {
      await t.step(`a ${format} home`, async () => {
        const { root } = await FIXTURES[format]!.write(join(dir.path, format));
        const out = join(dir.path, `${format}-site`);
        await writeSite(root, { out });
        assertStrictEquals(await walkSite(browser, out, format, root), 1);
      });
    }

    await t.step({
      ...needing("the corpus's Claude Code projects", CORPUS_MISSING),
      async fn() {
        const out = join(dir.path, "corpus-site");
        const root = join(CORPUS, "claude", "projects");
        const written = await writeSite(root, { out });
        assertStrictEquals(await walkSite(browser, out, "corpus", root), written.sessions);
      },
    });

    await t.step({
      ...needing("the corpus's Codex rollouts, laid out as Codex keeps them", CORPUS_MISSING),
      async fn() {
        // The corpus keeps them flat; Codex's home has date folders (a copy outside the repo).
        const root = join(dir.path, "codex-corpus", "sessions");
        for await (const entry of Deno.readDir(join(CORPUS, "codex"))) {
          const date = /^rollout-(\d{4})-(\d{2})-(\d{2})T/.exec(entry.name);
          if (date === null) continue;
          const folder = join(root, date[1]!, date[2]!, date[3]!);
          await Deno.mkdir(folder, { recursive: true });
          await Deno.copyFile(join(CORPUS, "codex", entry.name), join(folder, entry.name));
        }
        const out = join(dir.path, "codex-corpus-site");
        const written = await writeSite(root, { out });
        assert(written.sessions >= 4, `${written.sessions} sessions`);
        assertStrictEquals(await walkSite(browser, out, "codex-corpus", root), written.sessions);
      },
    });
  },
});
