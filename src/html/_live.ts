/**
 * The scripts a page may run, and the Content-Security-Policy that allows them by their hashes
 * and nothing else: the live page's client of the server's Server-Sent Events, and the served
 * session page's "Continue in…" buttons.
 *
 * The event contract the client expects from the server, at the URL the page is given:
 *
 * ```text
 * event: changed
 * data: {"records": 42, "sizeBytes": 12345, "stamp": "42:12345:1700000000123"}
 * ```
 *
 * sent first when the page connects (the file as it is now), then whenever the session file
 * grew or changed (after a run appended its records, or a rewrite in place, at the same size
 * or not). The client compares the first event's `sizeBytes` and `stamp` (the file's inode,
 * size and time; a database's session has none) with those the page was rendered from
 * (`data-size-bytes` and `data-stamp` of `#session`), and takes every later event as a change;
 * when they differ, or on a change, it fetches the page's own URL again (`GET`, same origin) with
 * `?from=<its last turn>&seen=<data-revision of #session>`, which holds only the turns from
 * that one on (or from an earlier one, `data-from` of `#turns`, when the server's reading
 * since the page's revision changed it: a Claude Code rewind), swaps in the new `#session`,
 * `#findings` and `#charts`, and in each view's turns (`#reading`, `#turns`) replaces its turns
 * from `data-from` (else its last) on and adds the new ones (a page without turns takes the
 * whole views), keeping every `<details>`
 * the reader opened or closed as it was and following the end of the page when the reader
 * was there. A hidden tab waits until it is shown. Other events and comments (`: ping`) are
 * ignored; the browser's `EventSource` reconnects by itself (`retry:` sets how soon).
 *
 * @module
 */
import { hashSource } from "./_sha256.ts";
import { BROWSE_SHEET, PAGE_STYLE } from "./_style.ts";

/**
 * The live client. Its configuration is in its own attributes (`data-events`: the events
 * URL), so the text, and with it the hash the policy allows, never changes.
 */
export const LIVE_SCRIPT = `(() => {
  const me = document.currentScript;
  const url = me && me.dataset.events;
  if (!url || !window.EventSource) return;
  const SECTIONS = ["session", "reading", "findings", "charts", "turns"];
  // Each view's turns: the reading view's articles, the record view's details.
  const TURNS = { reading: "#reading > [data-reading-turn]", turns: "#turns > details[data-turn]" };
  const numberOf = (d) => Number(d.dataset.turn || d.dataset.readingTurn);
  const say = (text, state) => {
    const status = document.getElementById("live");
    if (status) { status.textContent = text; status.dataset.state = state; }
  };
  const key = (d) => d.id || d.dataset.key;
  let busy = false, again = false, waiting = false;
  const turnsOf = (root, id = "turns") => [...root.querySelectorAll(TURNS[id])];
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      say("updating", "updating");
      // Only the turns from the page's last one on (it may have grown), not the whole session.
      const last = turnsOf(document).pop();
      const from = last ? Number(last.dataset.turn) : 0;
      const target = new URL(location.href);
      target.hash = "";
      const seen = document.getElementById("session")?.dataset.revision;
      if (from > 0) target.searchParams.set("from", String(from));
      if (from > 0 && seen) target.searchParams.set("seen", seen);
      const response = await fetch(target, { cache: "no-store" });
      if (!response.ok) return say("not updated: HTTP " + response.status, "stale");
      const next = new DOMParser().parseFromString(await response.text(), "text/html");
      const open = new Map();
      for (const d of document.querySelectorAll("details[id], details[data-key]")) open.set(key(d), d.open);
      const follow = innerHeight + scrollY >= document.documentElement.scrollHeight - 80;
      for (const id of SECTIONS) {
        const now = document.getElementById(id), fresh = next.getElementById(id);
        if (!now || !fresh) continue;
        if (!TURNS[id] || from === 0) { now.replaceWith(document.adoptNode(fresh)); continue; }
        // The server says from which turn its turns replace the page's (earlier, when a
        // rewind changed turns the page shows): the same turns in both views.
        const cut = Number(next.getElementById("turns")?.dataset.from || from);
        for (const d of turnsOf(document, id)) if (numberOf(d) >= cut) d.remove();
        for (const d of turnsOf(next, id)) now.appendChild(document.adoptNode(d));
        const heading = now.querySelector("h2"), freshHeading = fresh.querySelector("h2");
        if (heading && freshHeading) heading.replaceWith(document.adoptNode(freshHeading));
        now.dataset.turns = fresh.dataset.turns;
      }
      for (const d of document.querySelectorAll("details[id], details[data-key]")) {
        const was = open.get(key(d));
        if (was !== undefined) d.open = was;
      }
      if (follow) scrollTo(0, document.documentElement.scrollHeight);
      say("live", "live");
    } catch (error) {
      say("not updated: " + error.message, "stale");
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  const events = new EventSource(url);
  // The first event of a connection is the file as it is now; each later one, a change of it.
  let first = true;
  events.addEventListener("open", () => { first = true; say("live", "live"); });
  events.addEventListener("error", () => say("reconnecting", "reconnecting"));
  events.addEventListener("changed", (event) => {
    let data = {};
    try { data = JSON.parse(event.data); } catch { /* an empty or odd event still refreshes */ }
    const session = document.getElementById("session");
    const current = first;
    first = false;
    // The first event tells the page apart from the file by its size and stamp (inode, size and
    // time: a rewrite at the same size before it connected); a later one refreshes at the same
    // size too: the file was rewritten in place.
    const same = session && data.sizeBytes === Number(session.dataset.sizeBytes) &&
      (data.stamp || "") === (session.dataset.stamp || "");
    if (current && same) return;
    if (document.hidden) waiting = true; else refresh();
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && waiting) { waiting = false; refresh(); }
  });
})();`;

/**
 * The CSP source that allows {@linkcode LIVE_SCRIPT} and no other script: the script's SHA-256,
 * base64. Written here, not computed at load: `node:crypto` (a polyfill) cost the page about
 * 20 ms of CPU at start-up, and Web Crypto's digest is asynchronous. tests/html_test.ts hashes
 * the script the page carries and fails, printing the new hash, when the two differ.
 */
export const LIVE_SCRIPT_SOURCE = "'sha256-q4RQQkc4C+wnw9MeDTRDWcaoR67n2aekCcMhz7+UIIo='";

/**
 * The session page's "Continue in…" client: each `button[data-to]` of `#continue` posts
 * `{"to": <target>}` as JSON to the URL in the script's `data-url` (serve's own origin), and
 * shows in `#continue-result` what was written and the command that resumes it, or why not.
 * Everything it shows goes in as text, never as markup.
 */
export const CONTINUE_SCRIPT = `(() => {
  const me = document.currentScript;
  const url = me && me.dataset.url;
  const box = document.getElementById("continue");
  const out = document.getElementById("continue-result");
  if (!url || !box || !out) return;
  const buttons = [...box.querySelectorAll("button[data-to]")];
  const line = (tag, text, id) => {
    const element = document.createElement(tag);
    element.textContent = text;
    if (id) element.id = id;
    out.append(element);
  };
  const show = (state, fill) => { out.replaceChildren(); out.dataset.state = state; fill(); };
  for (const button of buttons) {
    button.addEventListener("click", async () => {
      for (const b of buttons) b.disabled = true;
      show("writing", () => line("p", "Writing the session for " + button.textContent + "..."));
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ to: button.dataset.to }),
        });
        const body = await response.json().catch(() => ({}));
        if (!response.ok) {
          return show("failed", () => line("p", "Not written: " + (body.error || "HTTP " + response.status)));
        }
        show("written", () => {
          line("p", "Written as a new session of " + button.textContent + ": " + body.path);
          line("p", "Run this to continue it:");
          line("pre", body.resume, "continue-command");
          for (const d of body.degraded || []) line("p", "Not carried as it was: " + d.what + " (" + d.count + "): " + d.how);
        });
      } catch (error) {
        show("failed", () => line("p", "Not written: " + error.message));
      } finally {
        for (const b of buttons) b.disabled = false;
      }
    });
  }
})();`;

let styleSources: string | undefined;
/**
 * The CSP sources that allow the pages' stylesheets (`<style>` of `PAGE_STYLE` in the head,
 * and `BROWSE_SHEET` on the list and the search page) and no other style: their hashes,
 * worked out once. No page has a `style` attribute.
 */
export function pageStyleSources(): string {
  return styleSources ??= `${hashSource(PAGE_STYLE)} ${hashSource(BROWSE_SHEET)}`;
}

let continueSource: string | undefined;

/** Options of {@linkcode contentSecurityPolicy}. */
export interface CspOptions {
  /**
   * The page runs the live script and the "Continue in…" one (and so connects to its own
   * origin). @default false
   */
  live?: boolean;
  /** The page has a form (the search box) that submits to its own origin. @default false */
  form?: boolean;
  /**
   * The policy as an HTTP header, which may say what a `<meta>` policy cannot
   * (`frame-ancestors`). @default true
   */
  header?: boolean;
}

/**
 * The Content-Security-Policy of the pages this module renders: nothing is loaded from
 * anywhere (`default-src 'none'`), the stylesheets by their hashes (no other `<style>`, no
 * `style` attribute: markup a session's text smuggled in could not lay anything over the
 * page), and scripts only when the page is live (served), by their hashes. The pages carry it in a `<meta>`; a server sends the same as
 * a header (`{ live: true }` for a live page).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { contentSecurityPolicy } from "./_live.ts";
 * const csp = contentSecurityPolicy({ live: true });
 * assert(csp.startsWith("default-src 'none'") && csp.includes("'sha256-"));
 * ```
 */
export function contentSecurityPolicy(options: CspOptions = {}): string {
  const directives = ["default-src 'none'", `style-src ${pageStyleSources()}`];
  if (options.live) {
    continueSource ??= hashSource(CONTINUE_SCRIPT);
    directives.push(`script-src ${LIVE_SCRIPT_SOURCE} ${continueSource}`, "connect-src 'self'");
  }
  directives.push("base-uri 'none'", `form-action ${options.form ? "'self'" : "'none'"}`);
  if (options.header ?? true) directives.push("frame-ancestors 'none'");
  return directives.join("; ");
}

/**
 * The headers a server sends with a page of this module: its type, its policy (`live`: the
 * live script allowed; `form`: the search box's form), and no sniffing, referrer or caching
 * (a live session changes under the same URL).
 */
export function pageHeaders(
  options: { live?: boolean; form?: boolean } = {},
): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": contentSecurityPolicy({
      live: options.live ?? false,
      form: options.form ?? false,
    }),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
}
