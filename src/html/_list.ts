/**
 * The list of sessions as a page: newest first, each with its first prompt, turns, size and
 * time, linking to its session page.
 *
 * @module
 */
import type { ListedSession, SessionListing } from "../store/mod.ts";
import { escapeHtml, escapeText } from "./_escape.ts";
import { formatBytes, formatNumber, formatTime, plural } from "../text/mod.ts";
import { simplePageHead } from "./_message.ts";

/** Options of {@linkcode renderSessionList}. */
export interface SessionListOptions {
  /** Where a session links to. @default `/sessions/<id>` (the id URL-encoded) */
  href?: (session: ListedSession) => string;
  /** The heading. @default "Sessions" */
  title?: string;
}

/** The link of a session on a served list: `/sessions/<id>`. */
export function sessionPath(id: string): string {
  return `/sessions/${encodeURIComponent(id)}`;
}

function item(session: ListedSession, href: string): string {
  const prompt = session.firstUserMessage === null
    ? `<p class="prompt muted">(no user message)</p>`
    : `<p class="prompt">${escapeText(session.firstUserMessage)}</p>`;
  return `<li data-session-id="${escapeHtml(session.id)}"><div class="top"><a href="${
    escapeHtml(href)
  }" title="${escapeHtml(session.id)}"><code>${escapeText(session.shortId)}</code></a><span>${
    escapeText(formatTime(session.created))
  }</span><span>${plural(session.turns, "turn")}</span><span>${
    plural(session.records, "record")
  }</span><span>${formatBytes(session.sizeBytes)}</span></div>${prompt}</li>`;
}

/**
 * The HTML document of a list of sessions, in the listing's order (newest first, as
 * `listSessions` of the store gives it). Self-contained and script-free, like the session page.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderSessionList } from "./_list.ts";
 * const html = renderSessionList({
 *   format: "turnlog-sessions", version: 1, root: "/tmp/s", more: false, sessions: [],
 * });
 * assert(html.includes("No sessions"));
 * ```
 */
export function renderSessionList(
  listing: SessionListing,
  options: SessionListOptions = {},
): string {
  const href = options.href ?? ((session: ListedSession) => sessionPath(session.id));
  const title = options.title ?? "Sessions";
  const items = listing.sessions.map((session) => item(session, href(session)));
  const body = items.length === 0
    ? `<p class="muted">No sessions in <span class="mono">${escapeText(listing.root)}</span>.</p>`
    : `<ol class="sessions">\n${items.join("\n")}\n</ol>`;
  const more = listing.more
    ? `<p class="muted">More sessions exist than the ${
      formatNumber(listing.sessions.length)
    } listed here.</p>`
    : "";
  return `${simplePageHead(title)}
<body>
<header id="session"><p class="kicker">turnlog</p><h1>${escapeText(title)}</h1><p class="muted">${
    plural(listing.sessions.length, "session")
  } in <span class="mono">${escapeText(listing.root)}</span>, newest first.</p></header>
<main id="sessions">
${body}
${more}
</main>
</body>
</html>
`;
}
