import { BROWSE_SHEET } from "../src/html/_style.ts";
import { createHash } from "node:crypto";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { attributes, EVIL, evilSession, parsePage, texts } from "./_html_helpers.ts";
import { LONG_OUTPUT, makeStory } from "./_inspect_fixtures.ts";
import {
  contentSecurityPolicy,
  CONTINUE_SCRIPT,
  escapeHtml,
  historySizeFromReport,
  LIVE_SCRIPT,
  pageHeaders,
  renderSessionList,
  renderSessionPage,
  sessionPagePieces,
  sessionPageStream,
} from "../src/html/mod.ts";
import { type InspectReport, inspectSession } from "../src/inspect/mod.ts";
import { claudeForks, writeClaudeProject } from "../testing/formats/claude_fixtures.ts";
import { listSessions } from "../src/store/mod.ts";
import { historySizePerTurn } from "../src/charts/mod.ts";
import { collectRecords } from "../src/history/mod.ts";
import { generateSessionText } from "../testing/generate/mod.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";
import { RUN_BASE } from "./_helpers.ts";
import { responseItemRecord } from "../src/record/mod.ts";

async function storyReport(dir: string, options: { crashOnly?: boolean } = {}) {
  const story = await makeStory(dir, options);
  const report = await inspectSession(story.path, { entries: true, root: dir });
  return { story, report, html: renderSessionPage(report) };
}

Deno.test("renderSessionPage() has one [data-turn] per turn, each call and output paired by id", async () => {
  await using dir = await tempDir();
  const { report, html } = await storyReport(dir.path);
  const page = parsePage(html);
  assertEquals(attributes(page, "[data-turn]", "data-turn"), ["1", "2", "3"]);
  assertEquals(attributes(page, "[data-call-id]", "data-call-id"), ["c1", "c2", "c3", "c4"]);
  // Paired outputs sit inside their call; c3's output was synthesized in the next turn.
  assertEquals(attributes(page, "[data-call-id] [data-output-for]", "data-output-for"), [
    "c1",
    "c2",
    "c4",
  ]);
  const synthesized = page.querySelectorAll("[data-synthesized]");
  assertEquals(attributes(page, "[data-synthesized]", "data-output-for"), ["c3"]);
  assertStrictEquals(synthesized[0]!.getAttribute("id"), "line-15");
  assertStrictEquals(synthesized[0]!.closest("[data-turn]")!.getAttribute("data-turn"), "3");
  assertEquals(page.querySelectorAll("[data-orphan]").length, 0);
  assertEquals(page.querySelectorAll("[data-checkpoint]").length, 1);
  assertEquals(report.healthy, true);
  assertMatch(page.querySelector("#session")!.textContent!, /healthy/);
  assertMatch(
    page.querySelector("#line-13")!.textContent!,
    /Its output is at line 15, turn 3/,
  );
});

Deno.test("renderSessionPage() marks an orphan call and lists every problem with data-line", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  await Deno.writeTextFile(story.path, '{"torn\n{"timestamp":1}\n', { append: true });
  const report = await inspectSession(story.path, { entries: true });
  const page = parsePage(renderSessionPage(report));
  const orphans = page.querySelectorAll("[data-orphan]");
  assertEquals(attributes(page, "[data-orphan]", "data-call-id"), ["c3"]);
  assertMatch(orphans[0]!.textContent!, /No output: resume would synthesize one/);
  assertEquals(
    [...page.querySelectorAll("[data-line]")].map((
      n,
    ) => [n.getAttribute("data-line"), n.getAttribute("data-kind")]),
    report.problems.map((p) => [String(p.line), p.kind]),
  );
  assertEquals(report.problems.map((p) => p.line), [14, 15]);
  // The damaged lines are in their turn too, each with its own anchor.
  assertMatch(page.querySelector("#line-14")!.textContent!, /malformed_json/);
  assertMatch(page.querySelector("[data-turn='2']")!.textContent!, /The run did not finish/);
});

Deno.test("renderSessionPage() shows every string of the session as text, never as markup", async () => {
  await using dir = await tempDir();
  const path = await evilSession(dir.path);
  const report = await inspectSession(path, { entries: true });
  const html = renderSessionPage(report);
  const page = parsePage(html);
  assertEquals(page.querySelectorAll("script").length, 0);
  assertEquals(page.querySelectorAll("img").length, 0);
  assertEquals(texts(page, "b"), ["Turn 1", "read_file", "Turn 2"]);
  assertEquals(page.querySelectorAll("[onerror]").length, 0);
  // `</details>` closed nothing: the turns hold what they should.
  assertEquals(attributes(page, "[data-turn]", "data-turn"), ["1", "2"]);
  assertEquals(page.querySelectorAll("[data-turn] [data-call-id]").length, 1);
  // Quotes in an attribute stay in it.
  assertEquals(attributes(page, "[data-call-id]", "data-call-id"), [`call-${EVIL}`]);
  assertEquals(attributes(page, "[data-output-for]", "data-output-for"), [`call-${EVIL}`]);
  const text = page.querySelector("body")!.textContent!;
  for (const shown of [`read this: ${EVIL}`, `/work/${EVIL}`, `It says ${EVIL}`, EVIL]) {
    assert(text.includes(shown), `not shown as text: ${shown}`);
  }
  assert(!html.includes("<script>window"), "raw markup in the page");
  assert(!html.includes('onerror="'), "raw attribute in the page");
});

Deno.test("renderSessionPage() carries a CSP with no script unless live, and the hashes of the live and Continue in scripts", async () => {
  await using dir = await tempDir();
  const { report, html } = await storyReport(dir.path);
  const page = parsePage(html);
  const csp = page.querySelector('meta[http-equiv="Content-Security-Policy"]')!
    .getAttribute("content");
  // The one stylesheet is allowed by its hash; no inline style else (no style attribute).
  const styles = page.querySelectorAll("style");
  assertEquals(styles.length, 1);
  const sha = (text: string) => createHash("sha256").update(text).digest("base64");
  // The list's sheet is allowed too: one policy for every page.
  const style = `${sha(styles[0]!.textContent!)}' 'sha256-${sha(BROWSE_SHEET)}`;
  assertEquals(page.querySelectorAll("[style]").length, 0);
  assertStrictEquals(
    csp,
    `default-src 'none'; style-src 'sha256-${style}'; base-uri 'none'; form-action 'none'`,
  );
  assertStrictEquals(csp, contentSecurityPolicy({ header: false }));

  const live = parsePage(
    renderSessionPage(report, { live: { eventsUrl: `/sessions/x/events?a="b"` } }),
  );
  const scripts = live.querySelectorAll("script");
  assertEquals(scripts.length, 1);
  assertStrictEquals(scripts[0]!.getAttribute("data-events"), `/sessions/x/events?a="b"`);
  assertStrictEquals(scripts[0]!.textContent, LIVE_SCRIPT);
  const hash = createHash("sha256").update(scripts[0]!.textContent!).digest("base64");
  const continueHash = sha(CONTINUE_SCRIPT);
  const liveCsp = live.querySelector('meta[http-equiv="Content-Security-Policy"]')!
    .getAttribute("content")!;
  assertStrictEquals(
    liveCsp,
    `default-src 'none'; style-src 'sha256-${style}'; script-src 'sha256-${hash}' 'sha256-${continueHash}'; connect-src 'self'; base-uri 'none'; form-action 'none'`,
  );
  // "Continue in…": a button per target, its script given the URL, allowed by its hash.
  const offered = parsePage(renderSessionPage(report, {
    live: { eventsUrl: "/sessions/x/events" },
    continueIn: {
      url: `/sessions/x/export?a="b"`,
      targets: [{ to: "codex", tool: "Codex" }, { to: "claude", tool: "Claude <Code>" }],
    },
  }));
  assertEquals(
    [...offered.querySelectorAll("#continue button")].map((
      b,
    ) => [b.getAttribute("data-to"), b.textContent]),
    [["codex", "Codex"], ["claude", "Claude <Code>"]],
  );
  const both = offered.querySelectorAll("script");
  assertEquals([...both].map((script) => sha(script.textContent!)), [hash, continueHash]);
  assertStrictEquals(both[1]!.getAttribute("data-url"), `/sessions/x/export?a="b"`);
  // A page that is not live (a file) offers none: it has no server to post to.
  const still = parsePage(renderSessionPage(report, {
    continueIn: { url: "/x", targets: [{ to: "codex", tool: "Codex" }] },
  }));
  assertEquals(still.querySelectorAll("#continue, script").length, 0);
  assertStrictEquals(contentSecurityPolicy({ live: true }), `${liveCsp}; frame-ancestors 'none'`);
  assertEquals(
    pageHeaders({ live: true })["content-security-policy"],
    `${liveCsp}; frame-ancestors 'none'`,
  );
  assertEquals(live.querySelector("#live")?.textContent, "connecting");
});

Deno.test("renderSessionPage() collapses long texts and clips them with their full size", async () => {
  await using dir = await tempDir();
  const first = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "go" });
  await first.writer.append([
    responseItemRecord({
      type: "function_call",
      callId: "big",
      name: "read_file",
      arguments: "{}",
    }),
    responseItemRecord({
      type: "function_call_output",
      callId: "big",
      toolName: "read_file",
      output: "y".repeat(100_000),
      isError: false,
    }),
  ]);
  first.writer.close();
  const report = await inspectSession(first.location.path, { entries: true });
  const page = parsePage(renderSessionPage(report));
  const output = page.querySelector("[data-output-for='big']")!;
  const details = output.querySelector("details.long")!;
  assert(!details.hasAttribute("open"), "a long output is collapsed");
  assertMatch(details.querySelector("summary")!.textContent!, /\(1 line\+, 100,000 chars\)/);
  assertStrictEquals(details.querySelector("pre")!.textContent!.length, 2000);
  assertMatch(details.textContent!, /Clipped: 2,000 of 100,000 characters shown\./);
  // A short text is shown as it is, and the system prompt is folded.
  assertEquals(page.querySelector(".msg.user details"), null);
  assert(page.querySelector(".msg.system details.long") !== null);

  const story = await storyReport(dir.path);
  const listing = parsePage(story.html).querySelector("[data-output-for='c1'] details.long")!;
  assertMatch(
    listing.querySelector("summary")!.textContent!,
    /^README\.md \(3 lines, 915 chars\)$/,
  );
  assertStrictEquals(listing.querySelector("pre")!.textContent, LONG_OUTPUT);
});

Deno.test("renderSessionPage() keeps a session of 2,000 turns usable: the newest open, the rest folded", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/long.jsonl`;
  await Deno.writeTextFile(path, generateSessionText(7, { turns: 2000 }).text);
  const report = await inspectSession(path, { entries: true });
  const pieces = [...sessionPagePieces(report, { openTurns: 10, maxPageBytes: 100_000_000 })];
  // One piece per turn in each view, plus the head, header, the reading view's opening, the
  // record view's opening, findings, charts, turns' opening and end.
  assertStrictEquals(pieces.length, 2 * 2000 + 8);
  const page = parsePage(pieces.join(""));
  assertStrictEquals(page.querySelectorAll("[data-turn]").length, 2000);
  assertEquals(
    attributes(page, "[data-turn][open]", "data-turn"),
    Array.from({ length: 10 }, (_, i) => String(1991 + i)),
  );
  assertMatch(page.querySelector("#turns")!.textContent!, /Turns 1–1,990 are folded/);
  assertStrictEquals(page.querySelectorAll("[data-orphan]").length, report.orphanCalls.length);
  assertStrictEquals(page.querySelectorAll("[data-line]").length, report.problems.length);
  assertStrictEquals(page.querySelectorAll("figure[data-chart] svg").length, 2);
  assertMatch(
    page.querySelector("[data-chart='records-per-turn']")!.textContent!,
    /The newest 50 of 2,000 turns/,
  );
});

Deno.test("renderSessionPage() keeps to its size budget: newest turns whole, then summaries, then a note", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/long.jsonl`;
  await Deno.writeTextFile(path, generateSessionText(7, { turns: 2000 }).text);
  const report = await inspectSession(path, { entries: true });
  const html = renderSessionPage(report, { maxPageBytes: 200_000, maxTurns: 300, openTurns: 5 });
  const page = parsePage(html);
  const turns = page.querySelector("#turns")!;
  const firstWhole = Number(turns.getAttribute("data-first-whole"));
  assertStrictEquals(turns.getAttribute("data-turns"), "2000");
  assertStrictEquals(turns.getAttribute("data-first-listed"), "1701");
  assert(firstWhole > 1701 && firstWhole < 2000, `first whole turn ${firstWhole}`);
  assertEquals(
    attributes(page, "[data-turn]", "data-turn"),
    Array.from({ length: 300 }, (_, i) => String(1701 + i)),
  );
  // Whole turns hold their lines; the ones before them only their summary.
  const calls = report.turns.slice(firstWhole - 1).reduce((n, t) => n + t.counts.function_call, 0);
  assertStrictEquals(page.querySelectorAll("[data-turn] [data-call-id]").length, calls);
  assertStrictEquals(page.querySelectorAll(`[data-turn='${firstWhole - 1}'] .entry`).length, 0);
  assertEquals(attributes(page, "[data-turn][open]", "data-turn"), [
    "1996",
    "1997",
    "1998",
    "1999",
    "2000",
  ]);
  assertMatch(turns.textContent!, /Turns 1–1,700 are left off this page/);
  assertMatch(
    turns.textContent!,
    new RegExp(`Turns 1,701–[\\d,]+ are shown by their summary line only`),
  );
  // The whole turns' HTML, in both views, kept to the budget (the head, findings and charts
  // are apart): the reading view's turns follow the head, header and its opening.
  const pieces = [...sessionPagePieces(report, { maxPageBytes: 200_000, maxTurns: 300 })];
  const whole = 2001 - firstWhole;
  const wholeBytes = [...pieces.slice(3 + 300 - whole, 3 + 300), ...pieces.slice(-1 - whole, -1)]
    .reduce((n, piece) => n + new TextEncoder().encode(piece).length, 0);
  assertMatch(pieces[3 + 300 - whole]!, new RegExp(`data-reading-turn="${firstWhole}"`));
  assert(wholeBytes <= 200_000 && wholeBytes > 100_000, `whole turns: ${wholeBytes} bytes`);
  // The newest turn is whole whatever the budget.
  const tiny = parsePage(renderSessionPage(report, { maxPageBytes: 0 }));
  assertStrictEquals(tiny.querySelector("#turns")!.getAttribute("data-first-whole"), "2000");
});

Deno.test("sessionPageStream() gives the bytes of renderSessionPage()", async () => {
  await using dir = await tempDir();
  const { report, html } = await storyReport(dir.path);
  const streamed = await new Response(sessionPageStream(report)).text();
  assertStrictEquals(streamed, html);
});

async function assertHistoryMatches(report: InspectReport) {
  const { records } = await collectRecords(report.session.path);
  const derived = historySizeFromReport(report);
  assertEquals(derived.points, historySizePerTurn(records));
  assertStrictEquals(derived.exact, true);
}

Deno.test("historySizeFromReport() equals historySizePerTurn() over the file's records", async () => {
  await using dir = await tempDir();
  await assertHistoryMatches((await storyReport(dir.path)).report);
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const path = `${dir.path}/g${seed}.jsonl`;
    await Deno.writeTextFile(path, generateSessionText(seed, { turns: 12 }).text);
    await assertHistoryMatches(await inspectSession(path, { entries: true }));
  }
  const bare = await inspectSession((await makeStory(dir.path)).path);
  assertStrictEquals(historySizeFromReport(bare).exact, false);
});

Deno.test("renderSessionPage() shows the forks and subagents a real report lists, each in its turn", async () => {
  await using dir = await tempDir();
  const sessionHref = (id: string) => `/sessions/${encodeURIComponent(id)}`;
  const entryOrder = (page: ReturnType<typeof parsePage>, turn: number): (string | null)[] => {
    const body = page.querySelector(`[data-turn='${turn}'] .body`)!;
    return [...body.querySelectorAll(".entry, [data-fork], [data-subagent]")].map((e) =>
      e.getAttribute("data-fork") ?? e.getAttribute("data-subagent") ?? e.getAttribute("id")
    );
  };
  // A Claude Code transcript with a rewind and a local command: two forks off turn 1.
  const path = `${dir.path}/forks.jsonl`;
  await Deno.writeTextFile(path, claudeForks());
  const forked = await inspectSession(path, { entries: true });
  const forks = forked.forks.map((fork) => fork.id);
  assertEquals(forked.forks.map((fork) => [fork.kind, fork.turn]), [["rewind", 1], [
    "local_command",
    1,
  ]]);
  const page = parsePage(renderSessionPage(forked, { sessionHref }));
  assertEquals(attributes(page, "#findings [data-fork]", "data-fork"), forks);
  // In their places in turn 1: after its last entry (line 8), in line order.
  assertEquals(entryOrder(page, 1).slice(-2), forks);
  const link = page.querySelector(`[data-turn='1'] [data-fork='${forks[0]}']`)!;
  assertMatch(link.textContent!, /a rewind \(another prompt\): 2 messages on lines 9-10/);
  assertStrictEquals(link.querySelector("a")!.getAttribute("href"), sessionHref(forks[0]!));
  // A session that ran a Task: its subagent's transcript, and an old-style one beside it.
  const project = await writeClaudeProject(dir.path);
  const tasked = await inspectSession(project.session, { entries: true });
  assertEquals(tasked.subagents.map((agent) => [agent.id, agent.turn]), [["a1b2c3d", 1], [
    "0badc0de",
    null,
  ]]);
  const withAgents = parsePage(renderSessionPage(tasked, { sessionHref }));
  assertEquals(attributes(withAgents, "#findings [data-subagent]", "data-subagent"), [
    "a1b2c3d",
    "0badc0de",
  ]);
  // In turn 1 where the Task result names it (line 4): after the Task call (line 2, shown with
  // its result), before the next entry (line 5).
  const order = entryOrder(withAgents, 1);
  const at = order.indexOf("a1b2c3d");
  assertEquals(order.slice(at - 1, at + 2), ["line-2", "a1b2c3d", "line-5"]);
});

Deno.test("renderSessionList() lists sessions newest first, each linking to /sessions/<id>", async () => {
  await using dir = await tempDir();
  await makeStory(dir.path);
  await evilSession(dir.path);
  const listing = await listSessions(dir.path);
  const page = parsePage(renderSessionList(listing));
  const items = page.querySelectorAll(".sessions li");
  assertEquals(
    attributes(page, ".sessions li", "data-session-id"),
    listing.sessions.map((s) => s.id),
  );
  assertEquals(
    attributes(page, ".sessions a", "href"),
    listing.sessions.map((s) => `/sessions/${s.id}`),
  );
  assertEquals(page.querySelectorAll("script, img").length, 0);
  assertMatch(items[0]!.textContent!, /read this: <script>window\.__pwned=1<\/script>/);
  assertMatch(items[0]!.textContent!, /2 turns/);
  assertMatch(items[1]!.textContent!, /3 turns/);
  assertStrictEquals(escapeHtml(`"'<>&`), "&quot;&#39;&lt;&gt;&amp;");
});
