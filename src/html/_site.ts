/**
 * The index of a static site of a whole home (`inspect --html --all DIR`): every session by
 * project, newest first, each linking to its page by a relative link, so the site opens from
 * `file://` and fetches nothing. The pages are the session pages; this module names their files.
 *
 * @module
 */
import { escapeHtml, escapeText } from "./_escape.ts";
import { BROWSE_STYLE } from "./_list.ts";
import { simplePageHead } from "./_message.ts";
import { formatBytes, formatTime, plural } from "../text/mod.ts";

/** One session of the site, as its index shows it. */
export interface SiteSession {
  /** The session id. */
  id: string;
  /** Its page, relative to the index (`sessions/<id>.html`). */
  href: string;
  /** The tool that wrote it, for people (`Claude Code`). */
  tool: string;
  /** The project it is listed under (its working directory), or null when it names none. */
  project: string | null;
  /** Its first record's time (ISO 8601), or null when it names none. */
  created: string | null;
  /** Its last record's time (ISO 8601), or null. */
  updated: string | null;
  /** Its title or first prompt, or null when it has none. */
  title: string | null;
  /** Its turns (as the inspector counts them). */
  turns: number;
  /** The inspector's verdict in words (`healthy`, `1 orphan call`). */
  verdict: string;
  /** Whether the inspector finds it healthy. */
  healthy: boolean;
  /** Its file's size in bytes. */
  sizeBytes: number;
  /** Its subagents' pages, relative to the index. */
  subagents: { id: string; href: string; title: string | null }[];
  /** Why its file could not be read; absent when it was (it then has no page). */
  unreadable?: string;
}

/** What the index says about where the sessions came from. */
export interface SiteIndexOptions {
  /** The folder the sessions were read from. */
  root: string;
  /** When the site was made (ISO 8601). @default now */
  made?: string;
}

/**
 * A session's page file in the site: its id with anything but letters, digits, `.`, `_` and
 * `-` made `_`, and `.html` (`taken` holds the names given so far: a clash gets `-2`, `-3`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { siteFileName } from "./_site.ts";
 * const taken = new Set<string>();
 * assert.equal(siteFileName("a/b c", taken), "a_b_c.html");
 * assert.equal(siteFileName("a b/c", taken), "a_b_c-2.html");
 * ```
 */
export function siteFileName(id: string, taken: Set<string>): string {
  const base = id.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_") || "session";
  let name = `${base}.html`;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}.html`;
  taken.add(name.toLowerCase());
  return name;
}

/** Newest first by its first record's time; sessions without a date last, by id. */
function byDate(a: SiteSession, b: SiteSession): number {
  if (a.created === null || b.created === null) {
    return a.created === b.created ? a.id.localeCompare(b.id) : a.created === null ? 1 : -1;
  }
  return b.created.localeCompare(a.created) || a.id.localeCompare(b.id);
}

function sessionItem(session: SiteSession): string {
  const title = session.unreadable !== undefined
    ? `<p class="prompt muted">(cannot read the file: ${escapeText(session.unreadable)})</p>`
    : session.title === null
    ? `<p class="prompt muted">(no prompt)</p>`
    : `<p class="prompt">${escapeText(session.title)}</p>`;
  const link = session.unreadable !== undefined
    ? `<code>${escapeText(session.id)}</code>`
    : `<a href="${escapeHtml(session.href)}" title="${escapeHtml(session.id)}"><code>${
      escapeText(session.id.slice(0, 13))
    }</code></a>`;
  const dates = session.created === null ? "no date in the file" : escapeText(
    session.updated === null || session.updated === session.created
      ? formatTime(session.created)
      : `${formatTime(session.created)} – ${formatTime(session.updated)}`,
  );
  const agents = session.subagents.length === 0
    ? ""
    : `<ul class="hits">${
      session.subagents.map((agent) =>
        `<li data-subagent="${escapeHtml(agent.id)}">subagent <a href="${
          escapeHtml(agent.href)
        }"><code>${escapeText(agent.id)}</code></a>${
          agent.title === null ? "" : ` ${escapeText(agent.title.slice(0, 160))}`
        }</li>`
      ).join("")
    }</ul>`;
  const cells = [
    link,
    `<span class="tool">${escapeText(session.tool)}</span>`,
    `<span class="dates">${dates}</span>`,
    `<span class="turns">${plural(session.turns, "turn")}</span>`,
    `<span>${formatBytes(session.sizeBytes)}</span>`,
    `<span class="health ${session.healthy ? "ok" : "bad"}">${escapeText(session.verdict)}</span>`,
  ];
  return `<li data-session-id="${
    escapeHtml(session.id)
  }" data-turns="${session.turns}" data-created="${
    escapeHtml(session.created ?? "")
  }"><div class="top">${cells.join("")}</div>${title}${agents}</li>`;
}

/**
 * The site's index as an HTML document: the sessions grouped by project, the projects in the
 * order of their newest session, each project's sessions newest first (dateless last), each
 * with its tool, dates, turns, size, verdict, first prompt and subagents. Self-contained,
 * script-free, under the pages' policy; every link relative.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { renderSiteIndex } from "./_site.ts";
 * const html = renderSiteIndex([{
 *   id: "s1", href: "sessions/s1.html", tool: "Codex", project: "/work/app",
 *   created: "2026-01-02T10:00:00Z", updated: null, title: "Fix the <b>build</b>", turns: 2,
 *   verdict: "healthy", healthy: true, sizeBytes: 900, subagents: [],
 * }], { root: "/home/me/.codex/sessions", made: "2026-01-03T00:00:00Z" });
 * assert(html.includes('<a href="sessions/s1.html"'));
 * assert(html.includes("Fix the &lt;b&gt;build&lt;/b&gt;"));
 * ```
 */
export function renderSiteIndex(sessions: SiteSession[], options: SiteIndexOptions): string {
  const groups = new Map<string, SiteSession[]>();
  for (const session of [...sessions].sort(byDate)) {
    const key = session.project ?? "";
    const group = groups.get(key) ?? [];
    group.push(session);
    groups.set(key, group);
  }
  const projects = [...groups.entries()].map(([project, group]) =>
    `<section class="project" data-project="${escapeHtml(project)}"><h2>${
      escapeText(project || "(no project)")
    } <span class="muted">· ${plural(group.length, "session")}</span></h2>
<ol class="sessions">
${group.map(sessionItem).join("\n")}
</ol></section>`
  );
  const body = projects.length === 0 ? `<p class="muted">No sessions.</p>` : projects.join("\n");
  const turns = sessions.reduce((sum, session) => sum + session.turns, 0);
  return `${simplePageHead("Sessions")}
<body>
${BROWSE_STYLE}
<header id="session"><p class="kicker">turnlog</p><h1>Sessions</h1><p class="muted">${
    plural(sessions.length, "session")
  } (${plural(turns, "turn")}) of <span class="mono">${
    escapeText(options.root)
  }</span>, by project, newest first; made ${
    escapeText(formatTime(options.made ?? new Date().toISOString()))
  }.</p></header>
<main id="sessions" data-sessions="${sessions.length}" data-turns="${turns}">
${body}
</main>
</body>
</html>
`;
}
