/**
 * The browser's search page: the search box, then each session the search found (most
 * recently written first), its facts and its first hits with the matches marked, linking to
 * the session's page. Script-free; every text from a session is escaped.
 *
 * @module
 */
import type { SearchHit, SessionSummary } from "../search/mod.ts";
import { formatTime, plural } from "../text/mod.ts";
import { escapeHtml, escapeText } from "./_escape.ts";
import { BROWSE_STYLE, searchForm, sessionPath } from "./_list.ts";
import { simplePageHead } from "./_message.ts";

/** What a search page shows. */
export interface SearchPage {
  /** The query as typed. */
  query: string;
  /** The sessions found, each with its hits. */
  results: { session: SessionSummary; hits: SearchHit[] }[];
  /** True when more sessions matched than the page shows. */
  more: boolean;
  /** Why the query could not run (shown instead of results), if it could not. */
  error?: string | undefined;
  /** Hits shown per session at most. @default 5 */
  hitsShown?: number;
}

/** A snippet with its matches in `<mark>`, every piece escaped. */
export function markedSnippet(hit: Pick<SearchHit, "snippet" | "marks">): string {
  let out = "";
  let at = 0;
  for (const [start, end] of hit.marks) {
    out += escapeText(hit.snippet.slice(at, start)) +
      `<mark>${escapeText(hit.snippet.slice(start, end))}</mark>`;
    at = end;
  }
  return out + escapeText(hit.snippet.slice(at));
}

/** A hit: where it is (a link to its line on the session's page, for the session's own file). */
function hitItem(hit: SearchHit): string {
  const turn = hit.turn > 0 ? `turn ${hit.turn}` : "before turn 1";
  const where = hit.subagent === null ? `line ${hit.line}` : `${hit.subagent} line ${hit.line}`;
  const role = hit.tool !== null && hit.role === "tool call" ? `${hit.role} ${hit.tool}` : hit.role;
  const said = escapeText(`${turn}, ${where}, ${role}`);
  const place = hit.subagent === null
    ? `<a href="${escapeHtml(`${sessionPath(hit.sessionId)}#line-${hit.line}`)}">${said}</a>`
    : said;
  return `<li data-line="${hit.line}"><span class="muted">${place}:</span> ${
    markedSnippet(hit)
  }</li>`;
}

function resultItem(
  result: SearchPage["results"][number],
  shown: number,
): string {
  const { session, hits } = result;
  const started = session.started === null ? "no date" : formatTime(session.started);
  const prompt = session.title ?? session.firstPrompt;
  const rest = hits.length > shown ? `<p class="muted">and ${hits.length - shown} more</p>` : "";
  return `<li data-session-id="${escapeHtml(session.id)}" data-format="${
    escapeHtml(session.format)
  }"><div class="top"><a href="${escapeHtml(sessionPath(session.id))}"><code>${
    escapeText(session.shortId)
  }</code></a><span class="tool">${escapeText(session.tool)}</span><span>${
    escapeText(started)
  }</span><span class="mono">${escapeText(session.cwd ?? session.project ?? "")}</span><span>${
    plural(hits.length, "hit")
  }</span></div>${prompt === null ? "" : `<p class="prompt">${escapeText(prompt)}</p>`}
<ul class="hits">${hits.slice(0, shown).map(hitItem).join("")}</ul>${rest}</li>`;
}

/**
 * The HTML document of a search's results, under the policy of the list page (its form
 * submits to its own origin; no script).
 */
export function renderSearchPage(page: SearchPage): string {
  const shown = page.hitsShown ?? 5;
  const body = page.error !== undefined
    ? `<p class="message">${escapeText(page.error)}</p>`
    : page.results.length === 0
    ? `<p class="muted">No session holds that.</p>`
    : `<ol class="sessions">\n${page.results.map((r) => resultItem(r, shown)).join("\n")}\n</ol>`;
  const more = page.more
    ? `<p class="muted">More sessions match than the ${page.results.length} shown: add a word.</p>`
    : "";
  const title = page.query === "" ? "Search" : `Search: ${page.query}`;
  return `${simplePageHead(title, { form: true })}
<body>
${BROWSE_STYLE}
<header id="session"><p class="kicker">turnlog · <a href="/">all sessions</a></p><h1>${
    escapeText(title)
  }</h1>
${searchForm(page.query)}
${
    page.error === undefined
      ? `<p class="muted">${
        plural(page.results.length, "session")
      } found, most recently written first.</p>`
      : ""
  }
</header>
<main id="results">
${body}
${more}
</main>
</body>
</html>
`;
}
