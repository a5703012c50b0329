/**
 * The session page's "Continue in…" in headless Chromium, against `serve` as a user runs it:
 * a click on Codex, then on Claude Code, writes the session into that tool's home and shows
 * the command that resumes it; a page on another origin that posts to the same URL (a form, a
 * fetch as JSON, a no-cors fetch) writes nothing.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { needing } from "./_needs.ts";
import { readConversation } from "../src/export/mod.ts";
import { chromiumPath, hasChromium, type OpenedPage, startBrowser } from "../testing/browser.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { writeClaudeHome } from "../testing/formats/homes.ts";
import { startServe } from "../testing/serve_process.ts";

const NO_CHROMIUM = hasChromium()
  ? undefined
  : `no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`;

/** Every `.jsonl` file under `dir` (none when it was never made). */
async function sessionFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      if (entry.isDirectory) await walk(join(at, entry.name));
      else if (entry.name.endsWith(".jsonl")) found.push(join(at, entry.name));
    }
  };
  await walk(dir).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  return found.sort();
}

/** Clicks the button of `to` on the session page and waits for what it shows. */
async function continueIn(opened: OpenedPage, to: string): Promise<string[]> {
  const { page } = opened;
  await page.click(`#continue button[data-to='${to}']`);
  await page.waitForSelector(
    "#continue-result[data-state='written'], #continue-result[data-state='failed']",
    {
      timeout: 15_000,
    },
  );
  return await page.$$eval(
    "#continue-result > *",
    (nodes) => nodes.map((n) => n.textContent ?? ""),
  );
}

/** A page on another origin: it posts to `url` every way a page can, and says what it saw. */
const ATTACKER_PAGE = `<!doctype html><title>elsewhere</title><iframe name=sink></iframe>
<script>
async function attack(url) {
  const outcome = (promise) => promise.then((r) => r.type + " " + r.status, (e) => "error " + e.name);
  const form = document.createElement("form");
  Object.assign(form, { method: "POST", action: url, enctype: "text/plain", target: "sink" });
  const field = document.createElement("input");
  field.name = '{"to":"codex","pad":"';
  field.value = '"}';
  form.append(field);
  document.body.append(form);
  const sink = document.querySelector("iframe");
  await new Promise((resolve) => { sink.onload = resolve; setTimeout(resolve, 5000); form.submit(); });
  const body = JSON.stringify({ to: "codex" });
  return ["form sent",
    await outcome(fetch(url, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body })),
    await outcome(fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }))];
}
</script>`;

Deno.test({
  ...needing(
    "serve's session page in Chromium: Continue in Codex and in Claude Code write the export and show the command; another origin's posts write nothing",
    NO_CHROMIUM,
  ),
  async fn() {
    await using dir = await tempDir();
    const claude = await writeClaudeHome(join(dir.path, ".claude"));
    const codexHome = join(dir.path, "codex-home");
    const work = join(dir.path, "work");
    await Deno.mkdir(work);
    await using serve = await startServe(
      ["--model", "scripted", "--sessions-dir", join(dir.path, "sessions"), "--workspace", work],
      {
        env: {
          HOME: dir.path,
          CODEX_HOME: codexHome,
          CLAUDE_CONFIG_DIR: join(dir.path, ".claude"),
          GEMINI_CLI_HOME: dir.path,
        },
      },
    );
    const base = serve.base;
    await using browser = await startBrowser();
    await using opened = await browser.open(`${base}/sessions/${CLAUDE_SESSION_ID}`);
    assertEquals(
      await opened.page.$$eval("#continue button", (nodes) => nodes.map((n) => n.textContent)),
      ["Codex", "Claude Code", "Gemini"],
    );

    const shown = await continueIn(opened, "codex");
    const [rollout] = await sessionFiles(codexHome);
    assert(rollout !== undefined, "a rollout is written into CODEX_HOME");
    const id = /rollout-[\dT-]+-([\da-f-]{36})\.jsonl$/.exec(rollout)![1]!;
    assertEquals(shown.slice(0, 3), [
      `Written as a new session of Codex: ${rollout}`,
      "Run this to continue it:",
      `codex resume ${id}`,
    ]);
    assertEquals(
      await opened.page.$eval("#continue-command", (node) => node.tagName + " " + node.textContent),
      `PRE codex resume ${id}`,
    );
    const source = (await readConversation(claude.session)).items.map(({ item }) => item);
    const written = (await readConversation(rollout)).items.map(({ item }) => item);
    assertEquals(written, source, "the rollout carries the session, item for item");

    const before = new Set(await sessionFiles(join(dir.path, ".claude")));
    const again = await continueIn(opened, "claude");
    const made = (await sessionFiles(join(dir.path, ".claude"))).filter((p) => !before.has(p));
    assertEquals(made.length, 1, "one new Claude Code transcript");
    const claudeId = made[0]!.split("/").at(-1)!.replace(/\.jsonl$/, "");
    assertMatch(again[2]!, new RegExp(`^cd .+ && claude --resume ${claudeId}$`));
    assertEquals(opened.pageErrors, []);
    assertEquals(opened.consoleErrors, []);

    // Another origin: the form and the no-cors fetch reach serve and are refused (403); the
    // fetch as JSON is stopped by its preflight. Nothing more is written.
    const elsewhere = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response(ATTACKER_PAGE, { headers: { "content-type": "text/html" } }),
    );
    try {
      await using attacker = await browser.open(`http://127.0.0.1:${elsewhere.addr.port}/`);
      const url = `${base}/sessions/${CLAUDE_SESSION_ID}/export`;
      const seen = await attacker.page.evaluate<[], () => Promise<string[]>>(
        `attack(${JSON.stringify(url)})`,
      );
      assertEquals(seen, ["form sent", "opaque 0", "error TypeError"]);
      const statuses = attacker.responses.filter((r) => r.url === url).map((r) => r.status);
      assert(statuses.length >= 2, `requests that reached serve: ${statuses}`);
      assertEquals([...new Set(statuses)], [403]);
      assertEquals(await sessionFiles(codexHome), [rollout], "no other rollout is written");
    } finally {
      await elsewhere.shutdown();
    }
  },
});
