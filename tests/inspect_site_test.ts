/**
 * `inspect --html --all DIR`: the static site of a whole home, for every format: the index
 * lists every session with the turns the inspector counts, each page holds them in both views
 * and links back, subagents have pages of their own, and the site is written whole, beside
 * the home and never in it.
 *
 * @module
 */
import { basename, join } from "node:path";
import { assert, assertEquals, assertMatch, assertRejects, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { exists, inspect } from "./_cli.ts";
import { attributes, type DomNode, parsePage } from "./_html_helpers.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { inspectSession, inspectSubagents } from "../src/inspect/mod.ts";
import { writeClaudeHome } from "../testing/formats/homes.ts";
import { writeSite } from "../cli/_site.ts";
import { UsageError } from "../cli/_args.ts";

const EXAMPLES = join(import.meta.dirname ?? ".", "..", "sessions");

async function page(path: string): Promise<DomNode> {
  return parsePage(await Deno.readTextFile(path));
}

/**
 * The site of `root` holds, for each session of the index, the turns the inspector counts of
 * its file: in the index (`data-turns`), the reading view and the record view of its page.
 */
async function assertSiteCounts(out: string, files: string[]): Promise<void> {
  const index = await page(join(out, "index.html"));
  const listed = index.querySelectorAll("li[data-session-id]");
  assertStrictEquals(listed.length, files.length);
  for (const file of files) {
    const report = await inspectSession(file);
    const id = report.session.id!;
    const item = listed.find((li) => li.getAttribute("data-session-id") === id);
    assert(item !== undefined, `${id} is not in the index`);
    const turns = String(report.turns.length);
    assertStrictEquals(item.getAttribute("data-turns"), turns, id);
    const href = item.querySelector(".top a")!.getAttribute("href")!;
    assertMatch(href, /^sessions\/[A-Za-z0-9._-]+\.html$/);
    const session = await page(join(out, href));
    assertStrictEquals(String(session.querySelectorAll("[data-reading-turn]").length), turns, id);
    assertStrictEquals(String(session.querySelectorAll("#records [data-turn]").length), turns, id);
    assertEquals(attributes(session, "#session .kicker a", "href"), ["../index.html"]);
  }
}

for (const [format, fixture] of Object.entries(FIXTURES)) {
  Deno.test(`writeSite() of a ${format} home: the index and a page per session, each with every turn`, async () => {
    await using dir = await tempDir();
    const { root, path } = await fixture.write(dir.path);
    const out = join(dir.path, "site");
    const written = await writeSite(root, { out });
    assertEquals([written.sessions, written.unreadable], [1, 0]);
    await assertSiteCounts(out, [path]);
  });
}

Deno.test("writeSite() of turnlog's example sessions: every one, by project and date", async () => {
  await using dir = await tempDir();
  const out = join(dir.path, "site");
  const examples = JSON.parse(await Deno.readTextFile(join(EXAMPLES, "examples.json"))) as {
    sessions: { file: string }[];
  };
  const files = examples.sessions.map((s) => join(EXAMPLES, s.file));
  const written = await writeSite(EXAMPLES, { out });
  assert(written.sessions >= files.length, `${written.sessions} pages`);
  const index = await page(join(out, "index.html"));
  // Newest first within a project, by the sessions' own dates.
  for (const project of index.querySelectorAll("section.project")) {
    const dates = attributes(project, "li[data-created]", "data-created");
    assertEquals(dates, [...dates].sort().reverse());
  }
  const listed = attributes(index, "li[data-session-id]", "data-session-id");
  for (const file of files) {
    const id = (await inspectSession(file)).session.id!;
    assert(listed.includes(id), `${id} is not in the index`);
  }
});

Deno.test("writeSite() of a Claude Code home: subagent pages linked from the index and shown inline", async () => {
  await using dir = await tempDir();
  const home = await writeClaudeHome(dir.path);
  const out = join(dir.path, "site");
  const progress: number[][] = [];
  const written = await writeSite(home.projects, {
    out,
    progress: (done, total) => progress.push([done, total]),
  });
  // Said before each session, then once at the end (the terminal's line is cleared then).
  assertEquals(progress, [[0, 4], [1, 4], [2, 4], [3, 4], [4, 4]]);
  const report = await inspectSession(home.session, { entries: true });
  const agents = await inspectSubagents(report, { entries: true });
  assert(agents.size > 0, "the fixture's session ran a subagent");
  assertStrictEquals(written.subagents, agents.size);
  // Every transcript but the empty one, which the listing passes over as Claude Code does.
  await assertSiteCounts(out, [home.session, home.forks, home.compaction, home.metadataOnly]);
  const index = await page(join(out, "index.html"));
  const item = index.querySelector(`li[data-session-id="${home.sessionId}"]`)!;
  const pageHref = item.querySelector(".top a")!.getAttribute("href")!;
  const session = await page(join(out, pageHref));
  for (const [id, agent] of agents) {
    const href = item.querySelector(`[data-subagent="${id}"] a`)!.getAttribute("href")!;
    const own = await page(join(out, href));
    assertStrictEquals(own.querySelectorAll("[data-reading-turn]").length, agent.turns.length);
    // The subagent's page links back to the session that started it.
    assertEquals(attributes(own, "#session .kicker a", "href"), [basename(pageHref)]);
    // Inline in the session's reading view, folded, with a link to its page.
    const inline = session.querySelector(`#reading details.subagent[data-subagent="${id}"]`)!;
    assertStrictEquals(inline.querySelectorAll("[data-subagent-turn]").length, agent.turns.length);
    assertStrictEquals(inline.querySelector("a")!.getAttribute("href"), basename(href));
  }
});

Deno.test("writeSite() refuses the home itself and a folder that is not a site; replaces an older site whole", async () => {
  await using dir = await tempDir();
  const { root } = await FIXTURES.codex!.write(dir.path);
  await assertRejects(
    () => writeSite(root, { out: join(root, "site") }),
    UsageError,
    `Refusing to write the site into ${join(root, "site")}: it is inside ${root}`,
  );
  // Through a link to the home, too.
  await Deno.symlink(root, join(dir.path, "home-link"));
  await assertRejects(
    () => writeSite(root, { out: join(dir.path, "home-link", "site") }),
    UsageError,
    "Refusing to write the site into",
  );
  await Deno.remove(join(dir.path, "home-link"));
  const other = join(dir.path, "notes");
  await Deno.mkdir(other);
  await Deno.writeTextFile(join(other, "todo.txt"), "keep me\n");
  await assertRejects(
    () => writeSite(root, { out: other }),
    UsageError,
    `Refusing to replace ${other}: it holds files and no site of turnlog`,
  );
  assertStrictEquals(await Deno.readTextFile(join(other, "todo.txt")), "keep me\n");
  const out = join(dir.path, "site");
  await writeSite(root, { out });
  await Deno.writeTextFile(join(out, "sessions", "stale.html"), "old\n");
  await writeSite(root, { out });
  assert(!(await exists(join(out, "sessions", "stale.html"))), "the older site is gone whole");
  assert(await exists(join(out, "index.html")));
  // Nothing left beside it: no temporary folder, no older copy.
  const beside = [];
  for await (const entry of Deno.readDir(dir.path)) beside.push(entry.name);
  assertEquals(beside.sort(), [".codex", "notes", "site"]);
});

Deno.test("inspect --html --all DIR --out SITE: writes the site and says where; --all needs --html", async () => {
  await using dir = await tempDir();
  const { root } = await FIXTURES["claude-code"]!.write(dir.path);
  const out = join(dir.path, "site");
  const ran = await inspect(["--html", "--all", root, "--out", out]);
  assertEquals([ran.code, ran.stdout], [0, ""]);
  assertStrictEquals(
    ran.stderr,
    `turnlog inspect: wrote 1 session page and the index to ${out} (${
      ran.stderr.match(/\(([^)]+)\)/)![1]
    }); open ${join(out, "index.html")} in a browser\n`,
  );
  assert(await exists(join(out, "index.html")));
  const alone = await inspect(["--all", root]);
  assertEquals([alone.code, alone.stderr.split("\n")[0]], [
    2,
    "turnlog inspect: --all goes with --html alone: inspect --html --all DIR [--out SITE]",
  ]);
  const empty = join(dir.path, "empty");
  await Deno.mkdir(empty);
  const none = await inspect(["--html", "--all", empty, "--out", join(dir.path, "s2")]);
  assertEquals([none.code, none.stderr.split("\n")[0]], [
    2,
    `turnlog inspect: No sessions in ${empty}: name a Claude Code projects folder, a Codex sessions folder, a Gemini tmp folder or a turnlog sessions folder`,
  ]);
});
