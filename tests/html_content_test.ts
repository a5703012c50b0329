/**
 * The session page's content made readable: an assistant's markdown rendered (and nothing in
 * it that runs), edits shown as diffs, long outputs folded, the title from the user's own
 * first prompt, the tool's name and words, texts without their leading blank lines.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { type DomNode, parsePage, texts } from "./_html_helpers.ts";
import { Marked } from "marked";
import { renderSessionPage, SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { isPlainLine, markdownHtml } from "../src/html/_markdown.ts";
import { inspectSession, renderReport } from "../src/inspect/mod.ts";
import { claudeCodeAdapter } from "../src/formats/claude_code/mod.ts";
import { createSessionBrowserHandler } from "../src/server/mod.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import { chromiumPath, hasChromium, startBrowser } from "../testing/browser.ts";
import { needing } from "./_needs.ts";

const tool = (id: string, name: string, input: Record<string, unknown>) => ({
  toolUse: { id, name, input },
});

/** Markdown an assistant might write, with what must never run or load. */
const MARKDOWN = [
  "\n\n## Plan",
  "",
  "Run **this** and `ls <dir>`:",
  "",
  "- [docs](https://example.com/docs)",
  "- [click](javascript:alert(1))",
  "- ![pixel](https://example.com/p.png)",
  "",
  "<script>window.__pwned = 1</script>",
  "",
  'Inline <img src=x onerror="window.__pwned=1"> too.',
  "",
  "```sh",
  "echo '<b>'",
  "```",
].join("\n");

const LONG = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");

/** A Claude Code session: markdown, an Edit, a MultiEdit, a long output, a blank answer. */
function claudeSession(): string {
  const b = new ClaudeTranscriptBuilder();
  b.user("Fix the greeting", { extra: { permissionMode: "acceptEdits" } });
  b.assistant([{ text: MARKDOWN }], { stop: "end_turn" });
  b.user("Go on");
  const [edit] = b.assistant([
    tool("toolu_E", "Edit", {
      file_path: "/work/project/a.ts",
      old_string: "const a = 1;\nhello();\n",
      new_string: "const a = 1;\ngreet();\n",
    }),
  ], { stop: "tool_use" });
  b.toolResult("toolu_E", "The file was updated", { parent: edit! });
  const [multi] = b.assistant([
    tool("toolu_M", "MultiEdit", {
      file_path: "/work/project/b.ts",
      edits: [{ old_string: "x", new_string: "y" }, { old_string: "p\n", new_string: "" }],
    }),
  ], { stop: "tool_use" });
  b.toolResult("toolu_M", "Applied 2 edits", { parent: multi! });
  const [read] = b.assistant([tool("toolu_R", "Read", { file_path: "/work/project/c.txt" })], {
    stop: "tool_use",
  });
  b.toolResult("toolu_R", LONG, { parent: read! });
  b.assistant([{ text: "\n\n" }], { stop: "end_turn" });
  b.user("And now?");
  return b.lines.join("\n") + "\n";
}

const PATCH = [
  "*** Begin Patch",
  "*** Update File: src/app.ts",
  "@@ function main",
  " keep();",
  "-old();",
  "+fresh();",
  "*** Add File: NOTES.md",
  "+# Notes",
  "*** End Patch",
].join("\n");

/** A Codex rollout: injected context before the prompt, an apply_patch call. */
function codexSession(): string {
  return new CodexRolloutBuilder()
    .meta()
    .taskStarted("t1")
    .message("user", "# AGENTS.md instructions for /work/project\n\nBe terse.")
    .message("user", "<user_instructions>x</user_instructions>\n<environment_context/>")
    .prompt("Rename old to fresh")
    .turnContext({ turnId: "t1" })
    .customCall("p1", PATCH)
    .customOutput("p1", "Success. Updated the following files:\nM src/app.ts")
    .answer("Done: `old()` is `fresh()` now.")
    .taskComplete("t1")
    .text();
}

async function pageOf(dir: string, name: string, text: string) {
  const path = join(dir, name);
  await Deno.writeTextFile(path, text);
  const report = await inspectSession(path, SESSION_PAGE_INSPECTION);
  const html = renderSessionPage(report);
  return { path, report, html, page: parsePage(html) };
}

/** The markup of the rendered markdown of the message at `line`, as the page has it. */
function markdownAt(html: string, line: number): string {
  const at = html.indexOf(`<div class="text md">`, html.indexOf(`id="line-${line}"`));
  return html.slice(at + `<div class="text md">`.length, html.indexOf("</div>", at));
}

const all = (nodes: Iterable<DomNode>) => [...nodes];

Deno.test("the page renders an assistant's markdown; raw HTML, a javascript: link and an image stay inert", async () => {
  await using dir = await tempDir();
  const { html, page } = await pageOf(dir.path, "claude.jsonl", claudeSession());
  assertEquals(
    markdownAt(html, 2),
    [
      "<h5>Plan</h5>",
      "<p>Run <strong>this</strong> and <code>ls &lt;dir&gt;</code>:</p>",
      "<ul>",
      '<li><a href="https://example.com/docs" rel="noopener noreferrer">docs</a></li>',
      "<li>click (<code>javascript:alert(1)</code>)</li>",
      '<li><a href="https://example.com/p.png" rel="noopener noreferrer">image: pixel</a></li>',
      "</ul>",
      "<p>&lt;script&gt;window.__pwned = 1&lt;/script&gt;</p>",
      "<p>Inline &lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt; too.</p>",
      '<pre><code class="language-sh">echo &#39;&lt;b&gt;&#39;',
      "</code></pre>",
      "",
    ].join("\n"),
  );
  // Nothing in the page runs, loads or leads to script: the only elements are markdown's.
  assertEquals(page.querySelectorAll("script, img, iframe, object, embed").length, 0);
  for (const link of page.querySelectorAll("#turns a[href^='http']")) {
    assertEquals(link.getAttribute("rel"), "noopener noreferrer");
  }
  assert(!/href="javascript:/i.test(html), "no javascript: link");
  const handlers = all(page.querySelectorAll("*")).flatMap((node) =>
    [...(node as unknown as { attributes: Iterable<{ name: string }> }).attributes]
      .map((attribute) => attribute.name).filter((name) => name.startsWith("on"))
  );
  assertEquals(handlers, [], "no event handler");
  // The policy stays strict: nothing from anywhere, no script at all on an exported page.
  const csp = page.querySelector('meta[http-equiv="Content-Security-Policy"]')!;
  assertMatch(
    csp.getAttribute("content")!,
    /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]+=' 'sha256-[A-Za-z0-9+/]+='; /,
  );
  assert(!csp.getAttribute("content")!.includes("script-src"), "no script allowed");
  // A user's text is not markdown: it is shown as written.
  assertEquals(page.querySelectorAll(".msg.user .md").length, 0);
});

Deno.test("the page shows Edit and MultiEdit inputs as diffs, folds a long output, says a blank answer is blank", async () => {
  await using dir = await tempDir();
  const { page } = await pageOf(dir.path, "claude.jsonl", claudeSession());
  const diffs = page.querySelectorAll("[data-call-id] .diff");
  assertEquals(all(diffs).map((d) => d.getAttribute("data-diff")), [
    "/work/project/a.ts",
    "/work/project/b.ts",
    "/work/project/b.ts",
  ]);
  const lines = (diff: DomNode) =>
    all(diff.querySelectorAll(".diff-lines > *")).map((n) => `${n.tagName} ${n.textContent}`);
  assertEquals(lines(diffs[0]!), ["SPAN const a = 1;", "DEL hello();", "INS greet();"]);
  assertEquals(lines(diffs[1]!), ["DEL x", "INS y"]);
  assertEquals(lines(diffs[2]!), ["DEL p"]);
  assertEquals(texts(page, "[data-call-id] .diff > summary .size"), [
    "+1 −1",
    "(3 lines)",
    "+1 −1",
    "(2 lines)",
    "+0 −1",
    "(1 line)",
  ]);
  // The Read's output of 40 lines is folded behind its first line.
  const output = page.querySelector('[data-output-for="toolu_R"]')!;
  assertEquals(
    output.querySelector("details.long > summary")!.textContent,
    "line 1 (40 lines, 310 chars)",
  );
  // A Read is no edit: its input is shown field by field, each string as written.
  assertEquals(page.querySelectorAll('[data-call-id="toolu_R"] .diff').length, 0);
  const input = page.querySelector('[data-call-id="toolu_R"] dl.input')!;
  assertEquals([texts(input, "dt"), texts(input, "dd pre")], [["file_path"], [
    "/work/project/c.txt",
  ]]);
  // An answer of blank lines says so instead of showing nothing.
  const blank = all(page.querySelectorAll(".msg.assistant .blank")).map((n) => n.textContent);
  assertEquals(blank, ["(only whitespace: 2 chars)"]);
  // The markdown answer starts at its words: its two leading newlines are not shown.
  assertEquals(page.querySelector("#line-2 .md")!.textContent!.startsWith("Plan"), true);
});

Deno.test("the page of a Claude Code file: its tool's name, its words, the user's first prompt as title", async () => {
  await using dir = await tempDir();
  const { report, page } = await pageOf(dir.path, "claude.jsonl", claudeSession());
  assertEquals(page.querySelector("#session .kicker")!.textContent, "Claude Code session");
  assertEquals(page.querySelector("#session h1")!.textContent, "Fix the greeting");
  assertMatch(page.querySelector("title")!.textContent!, /^Fix the greeting · session /);
  assertEquals(
    page.querySelector("#session dl")!.querySelectorAll("dd")[1]!.textContent,
    "Claude Code transcript (version 2.1.17)",
  );
  // The last turn has no answer: said in Claude Code's terms, not turnlog's record names.
  const last = page.querySelector(`[data-turn="${report.turns.length}"] .unfinished`)!;
  assertEquals(
    last.textContent,
    "✗ The turn did not finish: Claude Code wrote no end of it (stopped or killed, or still running).",
  );
  assert(!page.querySelector("#turns")!.textContent!.includes("run_finished"));
  // turnlog's own words stay off another tool's page: no records, no run policy.
  const fields = all(page.querySelectorAll("#session dt")).map((dt) => dt.textContent);
  const values = all(page.querySelectorAll("#session dd")).map((dd) => dd.textContent);
  assertEquals(values[fields.indexOf("size")], "6.7 KiB · 11 lines");
  assertEquals(values[fields.indexOf("approvals")], "acceptEdits");
  assertEquals(
    page.querySelector('[data-turn="1"] > summary .meta')!.textContent,
    // The turn's cost, priced from the table: a few tokens cost under a cent.
    "turn 00000000-0000-4000-8000-000000000001 · claude-opus-4-5-20251101 · 2026-01-23 17:00:00Z · <$0.01 · lines 1–2",
  );
  assertEquals(
    values[fields.indexOf("cost")],
    "$0.01 (the price table @pydantic/genai-prices 0.1.8)",
  );
});

Deno.test("the page of a Codex rollout: titled by the prompt, not the injected context; apply_patch as a diff", async () => {
  await using dir = await tempDir();
  const { report, html, page } = await pageOf(dir.path, "rollout.jsonl", codexSession());
  assertEquals(report.session.firstPrompt, "Rename old to fresh");
  assertEquals(page.querySelector("#session .kicker")!.textContent, "Codex session");
  assertEquals(page.querySelector("#session h1")!.textContent, "Rename old to fresh");
  assertMatch(
    page.querySelector('[data-turn="1"] > summary')!.textContent!,
    /“Rename old to fresh”/,
  );
  const diffs = page.querySelectorAll('[data-call-id="p1"] .diff');
  assertEquals(all(diffs).map((d) => d.getAttribute("data-diff")), [
    "src/app.ts",
    "NOTES.md (add)",
  ]);
  assertEquals(
    all(diffs[0]!.querySelectorAll(".diff-lines > *")).map((n) => `${n.tagName} ${n.textContent}`),
    ["SPAN function main", "SPAN keep();", "DEL old();", "INS fresh();"],
  );
  assertEquals(diffs[0]!.querySelector(".hunk")!.textContent, "function main");
  assertEquals(texts(diffs[1]!, "ins"), ["# Notes"]);
  assertEquals(
    markdownAt(html, Number(page.querySelector(".msg.assistant")!.getAttribute("id")!.slice(5))),
    "<p>Done: <code>old()</code> is <code>fresh()</code> now.</p>\n",
  );
});

Deno.test("the text view: no leading blank lines, a blank text says so, and no '(+N chars)' for whitespace", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "claude.jsonl");
  await Deno.writeTextFile(path, claudeSession());
  const text = renderReport(await inspectSession(path, { entries: true }), { color: false });
  assertMatch(text, /\n +2 │ assistant {2}## Plan\n/);
  assertMatch(text, /\n *\d+ │ assistant {2}\(only whitespace: 2 chars\)\n/);
  assert(!/assistant {2}…/.test(text), "no text shown as its remainder only");
  assertMatch(text, /the turn did not finish: Claude Code wrote no end of it/);
});

Deno.test({
  ...needing(
    "in Chromium the markdown page runs nothing, loads nothing, and fits a phone",
    hasChromium() ? undefined : `no Chromium at ${chromiumPath()} (apt-get install chromium)`,
  ),
  async fn() {
    await using dir = await tempDir();
    const { html } = await pageOf(dir.path, "claude.jsonl", claudeSession());
    const file = join(dir.path, "page.html");
    await Deno.writeTextFile(file, html);
    const url = pathToFileURL(file).href;
    await using browser = await startBrowser();
    await using opened = await browser.open(url, { viewport: { width: 390, height: 844 } });
    assertEquals(await opened.page.evaluate("typeof window.__pwned"), "undefined");
    assertEquals(opened.requests, [url]); // the markdown image is a link: nothing is fetched
    assertEquals([opened.consoleErrors, opened.pageErrors], [[], []]);
    const answer = await opened.page.$eval("#line-2 .md", (node) => node.textContent ?? "");
    assert(answer.includes("<script>window.__pwned = 1</script>"), "the script is text");
    const [scroll, width] = await opened.page.evaluate(
      "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
    ) as [number, number];
    assert(scroll <= width, `wider than the phone: ${scroll} > ${width}`);
  },
});

Deno.test("the served page of another tool's session shows an edit of more than 2,000 characters as a diff", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const b = new ClaudeTranscriptBuilder();
  b.user("Rewrite the table");
  const old = Array.from({ length: 120 }, (_, i) => `row ${i};`).join("\n");
  const [edit] = b.assistant([
    tool("toolu_BIG", "Edit", {
      file_path: "/work/project/table.ts",
      old_string: old,
      new_string: old.replace("row 60;", "row sixty;"),
    }),
  ], { stop: "tool_use" });
  b.toolResult("toolu_BIG", "The file was updated", { parent: edit! });
  b.assistant([{ text: "Done." }], { stop: "end_turn" });
  const id = "7acd37a8-0000-4000-8000-000000000001";
  await Deno.writeTextFile(join(project, `${id}.jsonl`), b.lines.join("\n") + "\n");
  const handler = createSessionBrowserHandler({
    sessionsDir: join(dir.path, "sessions"),
    homes: [{ adapter: claudeCodeAdapter, root: join(dir.path, "projects") }],
  });
  const response = await handler(new Request(`http://127.0.0.1/sessions/${id}`));
  assertEquals(response.status, 200);
  const page = parsePage(await response.text());
  const diff = page.querySelector('[data-call-id="toolu_BIG"] .diff')!;
  assertEquals(diff.getAttribute("data-diff"), "/work/project/table.ts");
  assertEquals(texts(diff, "del"), ["row 60;"]);
  assertEquals(texts(diff, "ins"), ["row sixty;"]);
});

Deno.test("a line of plain words is the paragraph marked makes of it, taken without marked", () => {
  const parts = ["a", "Z", "1", "2.", "9)", " ", "  ", ".", ",", ";", "?", "!", "(", ")", "www."];
  let seed = 1;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const marked = new Marked({ async: false, gfm: true, breaks: false });
  let plain = 0;
  for (let i = 0; i < 4000; i++) {
    const line = Array.from(
      { length: 1 + Math.floor(next() * 8) },
      () => parts[Math.floor(next() * parts.length)],
    ).join("");
    if (!isPlainLine(line)) continue;
    plain++;
    assertEquals(markdownHtml(line), marked.parse(line), line);
  }
  assert(plain > 300, `only ${plain} plain lines`);
  for (const line of ["1. a", "a www.x.io", "a ", "a *b*", "a & b", "a\nb", "x@y.io", "a:b"]) {
    assert(!isPlainLine(line), line);
  }
});
