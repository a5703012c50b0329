/**
 * A page that says one thing (no such session, an id that is not one, a prefix that matches
 * several), in the style and under the policy of the other pages, with links onward.
 *
 * @module
 */
import { escapeHtml, escapeText, escapeTitle } from "./_escape.ts";
import { contentSecurityPolicy, type CspOptions } from "./_live.ts";
import { PAGE_STYLE } from "./_style.ts";

/**
 * The head of a page without a script (the session list, a message): the strict policy (with
 * `policy`'s allowances: `form` for a page with the search box), the style, the title.
 */
export function simplePageHead(title: string, policy: Omit<CspOptions, "header"> = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${
    escapeHtml(contentSecurityPolicy({ ...policy, header: false }))
  }">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<title>${escapeTitle(title)} · turnlog</title>
<style>${PAGE_STYLE}</style>
</head>`;
}

/** What {@linkcode renderMessagePage} shows. */
export interface MessagePage {
  /** The heading, and the document's title. */
  title: string;
  /** What happened, as text (a newline starts a new line). */
  message: string;
  /** Links below the message, in order. @default [{ href: "/", text: "All sessions" }] */
  links?: { href: string; text: string }[];
}

/**
 * A self-contained, script-free page holding a heading, a message and links: what a server
 * answers instead of a session page (a 404, a 400).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderMessagePage } from "./mod.ts";
 * const html = renderMessagePage({ title: "No such session", message: "<b>01a2</b>" });
 * assert.ok(html.includes("&lt;b&gt;01a2&lt;/b&gt;") && !html.includes("<b>01a2"));
 * ```
 */
export function renderMessagePage(page: MessagePage): string {
  const links = page.links ?? [{ href: "/", text: "All sessions" }];
  const items = links.map((link) =>
    `<li><a href="${escapeHtml(link.href)}">${escapeText(link.text)}</a></li>`
  );
  return `${simplePageHead(page.title)}
<body>
<header id="session"><p class="kicker">turnlog</p><h1>${escapeText(page.title)}</h1></header>
<main id="message">
<p class="message">${escapeText(page.message)}</p>
${items.length === 0 ? "" : `<ul class="links">${items.join("")}</ul>`}
</main>
</body>
</html>
`;
}
