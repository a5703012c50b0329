/**
 * The list of sessions as a page: newest first, each with its first prompt, turns, size and
 * time, linking to its session page.
 *
 * @module
 */
import type { ListedSession, SessionListing } from "../store/mod.ts";
import { escapeHtml, escapeText } from "./_escape.ts";
import { BROWSE_SHEET } from "./_style.ts";
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
  const prompt = session.unreadable !== undefined
    ? `<p class="prompt muted">(cannot read the file: ${escapeText(session.unreadable)})</p>`
    : session.firstUserMessage === null
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

/** One session on the browser's list: any tool's, with its own dates. */
export interface BrowsedSession {
  /** The session id. */
  id: string;
  /** The shortest prefix of the id that finds only this session among every place listed. */
  shortId: string;
  /** The tool that wrote it, for people: `turnlog`, `Claude Code`, `Codex CLI`. */
  tool: string;
  /** Its format's name (`data-format`). */
  format: string;
  /** The project it is grouped under (Claude Code's project folder, the working directory). */
  project: string | null;
  /** The project as a person reads it (the working directory, when the head names it). */
  projectLabel: string | null;
  /** Its first record's time (ISO 8601), or null when it names none. */
  firstAt: string | null;
  /** Its last record's time (ISO 8601), or null when it names none. */
  lastAt: string | null;
  /** Its title or first prompt, on one line; null when its head holds none. */
  prompt: string | null;
  /** Its turns; null while no full read has counted them. */
  turns: number | null;
  /** Its file's size in bytes. */
  sizeBytes: number;
  /** Its file, when it has one (a database keeps none). */
  path: string | null;
  /** Whether the inspector finds it healthy; null while no full read has checked it. */
  healthy: boolean | null;
  /** True when its file was written to a moment ago (its tool may be writing it). */
  writing: boolean;
  /** Why its file could not be read; absent when it was. */
  unreadable?: string | undefined;
}

/** A page of the browser's list: sessions of every place, newest first. */
export interface BrowsedPage {
  /** The sessions of this page, newest first (by their files' last write). */
  sessions: BrowsedSession[];
  /** The URL of the next page, or null on the last one. */
  next: string | null;
  /** True on the first page. */
  first: boolean;
  /** The places listed: each tool and its sessions root. */
  places: { tool: string; root: string }[];
  /** Sessions in every place. */
  total: number;
  /** The places that could not be read, each in a sentence. */
  unread?: string[];
}

/** The search box of the list and the results pages: a GET of `/search?q=`. */
export function searchForm(query = ""): string {
  return `<form id="search" role="search" action="/search" method="get"><input type="search" name="q" value="${
    escapeHtml(query)
  }" placeholder="Search what was said: words or &quot;a phrase&quot;" aria-label="Search the sessions"> <button type="submit">Search</button></form>`;
}

/** The styles the browser's pages add to the session page's (allowed by the policy's hash). */
export const BROWSE_STYLE = `<style>${BROWSE_SHEET}</style>`;

/** The date range of a session, each end its own time or "no date". */
function datesOf(session: BrowsedSession): string {
  const date = (iso: string | null) => iso === null ? "no date" : formatTime(iso);
  if (session.firstAt === null && session.lastAt === null) return "no dates in the file";
  return `${date(session.firstAt)} – ${date(session.lastAt)}`;
}

function healthOf(session: BrowsedSession): string {
  if (session.healthy === null) return `<span class="health">not checked yet</span>`;
  return session.healthy
    ? `<span class="health ok">healthy</span>`
    : `<span class="health bad">needs attention</span>`;
}

function browsedItem(session: BrowsedSession): string {
  const prompt = session.unreadable !== undefined
    ? `<p class="prompt muted">(cannot read the file: ${escapeText(session.unreadable)})</p>`
    : session.prompt === null
    ? `<p class="prompt muted">(no prompt)</p>`
    : `<p class="prompt">${escapeText(session.prompt)}</p>`;
  const cells = [
    `<a href="${escapeHtml(sessionPath(session.id))}" title="${escapeHtml(session.id)}"><code>${
      escapeText(session.shortId)
    }</code></a>`,
    `<span class="tool">${escapeText(session.tool)}</span>`,
    `<span class="dates">${escapeText(datesOf(session))}</span>`,
    `<span class="turns">${
      session.turns === null ? "turns not counted yet" : plural(session.turns, "turn")
    }</span>`,
    `<span>${formatBytes(session.sizeBytes)}</span>`,
    healthOf(session),
    ...(session.writing ? [`<span class="writing">being written</span>`] : []),
  ];
  const data = [
    `data-session-id="${escapeHtml(session.id)}"`,
    `data-format="${escapeHtml(session.format)}"`,
    `data-first-at="${escapeHtml(session.firstAt ?? "")}"`,
    `data-last-at="${escapeHtml(session.lastAt ?? "")}"`,
    `data-healthy="${session.healthy === null ? "" : String(session.healthy)}"`,
  ];
  return `<li ${data.join(" ")}><div class="top">${cells.join("")}</div>${prompt}</li>`;
}

/** The sessions grouped by project, the groups in the order of their newest session. */
function groups(sessions: readonly BrowsedSession[]): BrowsedSession[][] {
  const byProject = new Map<string, BrowsedSession[]>();
  for (const session of sessions) {
    const key = `${session.format}\u0000${session.project ?? ""}`;
    const group = byProject.get(key) ?? [];
    group.push(session);
    byProject.set(key, group);
  }
  return [...byProject.values()];
}

function projectSection(group: BrowsedSession[]): string {
  const first = group[0]!;
  const named = group.find((session) => session.projectLabel !== null);
  const label = named?.projectLabel ?? first.project ?? "(no project)";
  return `<section class="project" data-project="${escapeHtml(first.project ?? "")}"><h2>${
    escapeText(label)
  } <span class="muted">· ${escapeText(first.tool)} · ${plural(group.length, "session")}</span></h2>
<ol class="sessions">
${group.map(browsedItem).join("\n")}
</ol></section>`;
}

/**
 * The HTML document of one page of the browser's list: every place's sessions, newest first,
 * grouped by project (each group where its newest session falls), each with its tool, its own
 * dates, turns, size, health and first prompt; the search box above, a link to the next page
 * below. Self-contained and script-free; its policy lets the search box submit to its origin.
 */
export function renderBrowseList(page: BrowsedPage): string {
  const places = page.places.map((place) =>
    `${escapeText(place.tool)} <span class="mono">${escapeText(place.root)}</span>`
  ).join(", ");
  const body = page.sessions.length === 0
    ? `<p class="muted">No sessions${page.first ? "" : " on this page"}.</p>`
    : groups(page.sessions).map(projectSection).join("\n");
  const next = page.next === null
    ? ""
    : `<p class="pager"><a rel="next" href="${escapeHtml(page.next)}">Older sessions →</a></p>`;
  const back = page.first ? "" : ` · <a href="/">newest</a>`;
  const unread = (page.unread ?? []).map((line) => `<p class="note warn">${escapeText(line)}</p>`);
  return `${simplePageHead("Sessions", { form: true })}
<body>
${BROWSE_STYLE}
<header id="session"><p class="kicker">turnlog${back} · <a href="/usage">usage and cost</a></p><h1>Sessions</h1><p class="muted">${
    plural(page.total, "session")
  } in ${places}; newest first (the newest files, each by its own last record).</p>
${searchForm()}
${unread.join("\n")}</header>
<main id="sessions">
${body}
${next}
</main>
</body>
</html>
`;
}
