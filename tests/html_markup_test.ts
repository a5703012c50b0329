/**
 * No markup of a session's making reaches a page (issue 39): hostile HTML, markdown and tag
 * soup in every text of a session of every format, rendered, parsed (linkedom here, Chromium
 * below), and the DOM held to the elements and attributes turnlog makes.
 *
 * @module
 */
import fc from "fast-check";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { parsePage } from "./_html_helpers.ts";
import {
  hostileSessions,
  hostileTexts,
  markupViolations,
  PAYLOADS,
  RAW_OPENERS,
} from "./_hostile.ts";
import { renderSessionPage, SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { markdownHtml } from "../src/html/_markdown.ts";
import { sanitizeMarkdownHtml } from "../src/html/_sanitize.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { chromiumPath, hasChromium, startBrowser } from "../testing/browser.ts";
import { needing } from "./_needs.ts";

const NO_CHROMIUM = hasChromium()
  ? undefined
  : `no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`;

type Document = Parameters<typeof markupViolations>[0];

async function pageOf(path: string): Promise<string> {
  return renderSessionPage(await inspectSession(path, SESSION_PAGE_INSPECTION));
}

Deno.test("markdownHtml() after a raw <script>, <pre>, <kbd> or <code> tag: a refresh, an overlay and an onerror stay text", () => {
  for (const opener of ["<script>", "<pre>", "<kbd>", "<code>"]) {
    for (const [name, payload] of Object.entries(PAYLOADS)) {
      // Unclosed (marked's inline lexer leaves the tag to its text) and closed alike.
      for (const tail of [payload.slice(0, -1) + " //", payload]) {
        const text = `see ${opener} then ${tail}`;
        const html = markdownHtml(text);
        const document = parsePage(`<body>${html}</body>`) as unknown as Document;
        assertEquals(markupViolations(document), [], `${opener} + ${name}: ${html}`);
        const shown = parsePage(`<body>${html}</body>`).querySelector("body")!.textContent;
        assert(shown!.includes(`${opener} then`), `${opener} + ${name}: not shown as text`);
        assert(!/<(meta|div|img)\b/.test(html), `${opener} + ${name}: ${html}`);
      }
    }
  }
});

Deno.test("sanitizeMarkdownHtml() keeps markdown's elements and writes any other tag as text", () => {
  const kept = [
    `<p><strong>a</strong> <em>b</em> <del>c</del> <code>d</code></p>`,
    `<ol start="3"><li><input checked="" disabled="" type="checkbox"> x</li></ol>`,
    `<table><thead><tr><th align="center">h</th></tr></thead><tbody><tr><td>d</td></tr></tbody></table>`,
    `<pre><code class="language-sh">echo &#39;&lt;b&gt;&#39;</code></pre>`,
    `<p><a href="https://example.com/?a=1&amp;b=2" title="t" rel="noopener noreferrer">x</a></p>`,
    `<p><mark class="bidi" title="bidi control in the file">\\u202e</mark></p>`,
    `<h4>x</h4><blockquote><p>q</p></blockquote><hr><br>`,
  ];
  for (const html of kept) assertEquals(sanitizeMarkdownHtml(html), html);
  const cases: [string, string][] = [
    [`<p>a <pre> b</p>`, `<p>a <pre> b</p>`], // markdown's own element, no attribute
    [`<img src=x onerror=a()>`, `&lt;img src=x onerror=a()&gt;`],
    [`<p style="x">`, `&lt;p style="x"&gt;`],
    [`<a href="javascript:a()">x</a>`, `&lt;a href="javascript:a()"&gt;x</a>`],
    [`<code class="evil x">`, `&lt;code class="evil x"&gt;`],
    [`<meta http-equiv="refresh">`, `&lt;meta http-equiv="refresh"&gt;`],
    [`a & b &amp; &#60; &x`, `a &amp; b &amp; &#60; &amp;x`],
    [`<!-- x -->`, `&lt;!-- x --&gt;`],
    [`<P>`, `&lt;P&gt;`],
  ];
  for (const [html, want] of cases) assertEquals(sanitizeMarkdownHtml(html), want, html);
});

Deno.test("renderSessionPage() of every format: hostile texts leave only turnlog's markup (linkedom, property)", async () => {
  await using dir = await tempDir();
  let run = 0;
  await fc.assert(
    fc.asyncProperty(hostileTexts, async (texts) => {
      const folder = join(dir.path, String(run++));
      await Deno.mkdir(folder);
      for (const session of await hostileSessions(folder, texts)) {
        const html = await pageOf(session.path);
        const violations = markupViolations(parsePage(html) as unknown as Document);
        assertEquals(violations, [], `${session.format}: ${JSON.stringify(texts)}`);
      }
    }),
    { numRuns: 60 },
  );
});

Deno.test({
  ...needing(
    "renderSessionPage() of every format in Chromium: hostile texts build no element, run, load or navigate nothing (property)",
    NO_CHROMIUM,
  ),
  async fn() {
    await using dir = await tempDir();
    await using browser = await startBrowser();
    let run = 0;
    // The raw openers and every payload at once, then random sessions.
    const fixed = {
      prompt: RAW_OPENERS.join(" ") + Object.values(PAYLOADS).join(" "),
      // Each payload unclosed after each opener (marked then passes it through), on its own
      // paragraph so one does not swallow the next.
      answer: RAW_OPENERS.flatMap((o) =>
        Object.values(PAYLOADS).map((payload) => `see ${o} ${payload.slice(0, -1)} //`)
      ).join("\n\n"),
      input: Object.values(PAYLOADS).join(""),
      output: RAW_OPENERS.join("") + PAYLOADS.refresh,
      before: PAYLOADS.overlay,
      after: PAYLOADS.onerror,
    };
    await fc.assert(
      fc.asyncProperty(hostileTexts, async (texts) => {
        const folder = join(dir.path, String(run++));
        await Deno.mkdir(folder);
        for (const session of await hostileSessions(folder, texts)) {
          const file = join(folder, `${session.format}.html`);
          await Deno.writeTextFile(file, await pageOf(session.path));
          const url = pathToFileURL(file).href;
          await using opened = await browser.open(url);
          // A refresh of 0 s would have navigated by now; give a later one a moment.
          await new Promise((resolve) => setTimeout(resolve, 50));
          const violations = await opened.page.evaluate(`(${markupViolations})(document, 0)`);
          const what = `${session.format}: ${JSON.stringify(texts)}`;
          assertEquals(violations, [], what);
          assertEquals(await opened.page.evaluate("location.href"), url, what);
          assertEquals(await opened.page.evaluate("typeof window.__pwned"), "undefined", what);
          assertEquals(opened.requests, [url], what);
          // Chromium reports any blocked style, script or load as a console error.
          assertEquals([opened.consoleErrors, opened.pageErrors], [[], []], what);
        }
      }),
      { numRuns: 4, examples: [[fixed]] },
    );
  },
});
