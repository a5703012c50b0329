/**
 * The session browser: `GET /` lists the sessions of the store and of other tools' homes,
 * newest first, a page at a time (`?after=<cursor>`); `GET /search?q=` searches them;
 * `GET /sessions/<id>` is a session's page, of any tool, live through
 * `GET /sessions/<id>/events` (Server-Sent Events); `POST /sessions/<id>/export` is its
 * "Continue in…" (`_export_route.ts`), which writes a new session into another tool's home. The
 * sessions shown are only read. Every page is self-contained and goes out under the strict
 * policy of `pageHeaders()`. A request `accessRefusal` refuses (a Host serve does not serve, a
 * state-changing request from another origin) is a 403 page.
 *
 * @module
 */
import {
  type InspectReport,
  type LinkKind,
  pageHeaders,
  renderBrowseList,
  renderMessagePage,
  renderUsagePage,
  SESSION_PAGE_INSPECTION,
  sessionPageStream,
  sessionPath,
} from "../html/mod.ts";
import { type ErrorKind, errorKind } from "../errors/mod.ts";
import { errorResponse, HttpError, sseResponse } from "../http/mod.ts";
import {
  inspectSession,
  inspectStoredSession,
  inspectSubagents,
  SessionFollower,
} from "../inspect/mod.ts";
import { InvalidSessionIdError } from "../record/mod.ts";
import { type Env, turnlogAdapter } from "../formats/mod.ts";
import {
  AmbiguousSessionError,
  type ContinuePoint,
  FileStore,
  type SessionStore,
} from "../store/mod.ts";
import { type AccessOptions, accessRefusal } from "./_access.ts";
import { statKey } from "../_tick.ts";
import { SessionWatchers, storeChanges } from "./_session_events.ts";
import {
  type BrowseHome,
  FactsMemo,
  locateAnywhere,
  type Located,
  searchSourcesOf,
} from "./_homes.ts";
import { beingWritten, browsePage } from "./_catalog.ts";
import type { Catalog } from "../catalog/mod.ts";
import { searchResponse } from "./_search_route.ts";
import { continueTargets, EXPORT_PATH, exportResponse } from "./_export_route.ts";
import { collectCatalogUsage, collectUsage, usageReport } from "../usage/mod.ts";

/**
 * What the session browser serves, to which Hosts, and how its live pages are kept up to
 * date.
 */
export interface SessionBrowserOptions extends AccessOptions {
  /** The sessions root. @default `$TURNLOG_SESSIONS_DIR`, else `./sessions` */
  sessionsDir?: string | undefined;
  /** The store of the sessions (see `openStore`); absent: the file store at `sessionsDir`. */
  store?: SessionStore | undefined;
  /** Sessions on a page of the list (newest first; a link leads to the next). @default 50 */
  listLimit?: number | undefined;
  /**
   * Other tools' homes to list and show beside the store, read-only (see `browseHomes`).
   * @default [] (the store only)
   */
  homes?: readonly BrowseHome[] | undefined;
  /** The command a session page shows for continuing the session; absent: none. */
  commandFor?: ((point: ContinuePoint) => string) | undefined;
  /**
   * The environment the target tools' homes of "Continue in…" are read from (`CODEX_HOME`,
   * `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`, `HOME`). @default {Deno.env}
   */
  env?: Env | undefined;
  /** Milliseconds between two looks at a watched session file's size. @default 300 */
  pollMs?: number | undefined;
  /** A `: ping` comment after this many milliseconds without an event. @default 20_000 */
  pingMs?: number | undefined;
  /** Ends every open events stream (the server is stopping: streams never end otherwise). */
  signal?: AbortSignal | undefined;
  /**
   * After answering a page of the list, read its sessions whose turns and health no full read
   * told yet, one at a time, so the list shows them next time. @default false
   */
  readInBackground?: boolean | undefined;
  /**
   * The catalog the list answers from: every session with its turns and health, in one order
   * by the sessions' own dates across pages. Absent: the files are read as the list is asked.
   */
  catalog?: Catalog | undefined;
  /** What full reads told (shared, or for a test to wait on); absent: the handler's own. */
  facts?: FactsMemo | undefined;
  /**
   * The watchers of live pages' files, one per file however many pages are open on it (for a
   * test to count reads); absent: the handler's own, looking every `pollMs`.
   */
  watchers?: SessionWatchers | undefined;
}

/** A request answered with a page that says what went wrong, under its kind's status. */
class PageError extends HttpError {
  readonly title: string;
  readonly links: { href: string; text: string }[] | undefined;
  constructor(kind: ErrorKind, title: string, message: string, links?: PageError["links"]) {
    super(kind, message);
    this.name = "PageError";
    this.title = title;
    this.links = links;
  }
}

function messageResponse(error: PageError, headers: Record<string, string> = {}): Response {
  const page = renderMessagePage({
    title: error.title,
    message: error.message,
    ...(error.links ? { links: error.links } : {}),
  });
  return new Response(page, { status: error.status, headers: { ...pageHeaders(), ...headers } });
}

/** True for the errors of a file this process may not read (its mode, or Deno's permissions). */
function isUnreadable(error: unknown): boolean {
  return error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable;
}

/** The page of a session whose file cannot be read (a 403), or of one that is gone (a 404). */
function fileError(error: unknown, id: string, file: string | undefined): unknown {
  const where = file ?? `the file of session ${id}`;
  if (isUnreadable(error)) {
    return new PageError(
      "forbidden",
      "Cannot read this session",
      `serve cannot read ${where}: permission denied. Give the user serve runs as read access to it`,
    );
  }
  if (error instanceof Deno.errors.NotFound) {
    return new PageError(
      "not_found",
      "No such session",
      `The file of session ${id} is gone: ${where}`,
    );
  }
  return error;
}

/** The page titles of the errors a lookup ends with, by kind. */
const LOOKUP_TITLES: Partial<Record<ErrorKind, string>> = {
  not_found: "No such session",
  ambiguous: "More than one session",
};

/**
 * The error a failed lookup of `raw` is answered with: a page of the error's kind (its status
 * the error table's); an id that is not one is the request's fault, a usage error.
 */
function lookupError(raw: string, error: unknown): unknown {
  if (error instanceof InvalidSessionIdError) {
    return new PageError("usage", "Not a session id", error.message);
  }
  const kind = errorKind(error);
  const title = LOOKUP_TITLES[kind];
  if (title === undefined) return error;
  if (error instanceof AmbiguousSessionError) {
    const links = error.candidates.map((c) => ({
      href: sessionPath(c.id),
      text: `${c.id} (${c.createdAt})`,
    }));
    return new PageError(
      kind,
      title,
      `The prefix "${raw}" matches ${error.candidates.length} sessions; pick one`,
      [...links, { href: "/", text: "All sessions" }],
    );
  }
  return new PageError(kind, title, `No session with id or prefix "${raw}" here`);
}

async function locate(
  store: SessionStore,
  homes: readonly BrowseHome[],
  raw: string,
): Promise<Located> {
  try {
    if (homes.length === 0) {
      const location = await store.find(raw);
      return { kind: "store", id: location.id, location };
    }
    return await locateAnywhere(store, homes, raw);
  } catch (error) {
    // Finding a session reads its file's head: one that cannot be read is said so here.
    throw isUnreadable(error) ? fileError(error, raw, undefined) : lookupError(raw, error);
  }
}

/** What a page says of a file its tool is writing (see `beingWritten`). */
function writingNotice(
  tool: string,
  modified: Date | null,
  lastAt: string | null,
): string | undefined {
  const now = Date.now();
  if (modified === null || !beingWritten(modified.getTime(), lastAt, now)) return undefined;
  const ago = now - modified.getTime();
  const seconds = Math.max(0, Math.round(ago / 1000));
  return `${tool} is writing this session (its file changed ${seconds} s ago); this page follows it.`;
}

const SESSION_PATH = /^\/sessions\/([^/]+)(\/events)?\/?$/;
const SUBAGENT_PATH = /^\/sessions\/([^/]+)\/subagents\/([^/]+)\/?$/;

/** Where a page links a session it names: a subagent under the session that started it. */
function hrefFrom(parent: string): (id: string, kind?: LinkKind) => string {
  return (id, kind) =>
    kind === "subagent"
      ? `${sessionPath(parent)}/subagents/${encodeURIComponent(id)}`
      : sessionPath(id);
}

/** The id in a session path, decoded. */
function idOf(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new PageError(
      "usage",
      "Not a session id",
      `Invalid session id "${encoded}": bad escapes`,
    );
  }
}

/** The browser's state: where it looks, what full reads told, how it watches. */
interface Browser {
  options: SessionBrowserOptions;
  store: SessionStore;
  homes: readonly BrowseHome[];
  facts: FactsMemo;
  watchers: SessionWatchers;
  /** The files live pages refresh from, each read on from where it stopped (see `followed`). */
  following: Map<string, Promise<SessionFollower>>;
  /** Requests being answered, and when the last one was answered (`performance.now()`). */
  busy: { requests: number; since: number };
}

/** How long serve is asked nothing before work of its own goes on (the search index's build). */
const QUIET_MS = 500;

/** Resolves once the browser answers no request and was asked none for {@linkcode QUIET_MS}. */
async function quiet(browser: Browser): Promise<void> {
  const { busy } = browser;
  for (;;) {
    if (browser.options.signal?.aborted) return;
    const wait = busy.requests > 0 ? QUIET_MS : busy.since + QUIET_MS - performance.now();
    if (wait <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** Files followed at most: the least recently asked for goes first. */
const FOLLOWED_FILES = 16;

async function listResponse(browser: Browser, url: URL): Promise<Response> {
  const page = await browsePage({
    store: browser.store,
    homes: browser.homes,
    facts: browser.facts,
    pageSize: browser.options.listLimit ?? 50,
    cursor: url.searchParams.get("after") ?? undefined,
    catalog: browser.options.catalog,
  });
  if (browser.options.readInBackground) {
    const unknown = page.sessions.filter((s) =>
      s.path !== null && (s.healthy === null || s.turns === null)
    );
    browser.facts.readLater(
      unknown.map((s) => ({ path: s.path!, sizeBytes: s.sizeBytes })),
      async (path) => {
        const report = await inspectSession(path);
        return {
          turns: report.turns.length,
          healthy: report.healthy,
          sizeBytes: report.session.sizeBytes,
        };
      },
      browser.options.signal,
    );
  }
  return new Response(renderBrowseList(page), { headers: pageHeaders({ form: true }) });
}

/** The report of a located session: the store's reading, or the file's (any format). */
async function readReport(browser: Browser, found: Located): Promise<InspectReport> {
  if (found.kind === "store") {
    return await inspectStoredSession(browser.store, found.location, {
      ...SESSION_PAGE_INSPECTION,
      commandFor: browser.options.commandFor,
    });
  }
  return await inspectSession(found.found.path, SESSION_PAGE_INSPECTION);
}

/**
 * The follower of a page's file, updated: only what was appended since the last update of
 * any page is read, once for all the pages on it. Followers of files no live page watches
 * any more are let go (the least recently asked for first, past `FOLLOWED_FILES`).
 */
async function followed(
  browser: Browser,
  found: Located,
  file: string,
): Promise<SessionFollower> {
  const { following, watchers } = browser;
  let follower = following.get(file);
  following.delete(file);
  for (const path of following.keys()) {
    if (watchers.reads(path) === 0 || following.size >= FOLLOWED_FILES) following.delete(path);
  }
  follower ??= SessionFollower.open(file, {
    ...SESSION_PAGE_INSPECTION,
    ...(found.kind === "store"
      ? { root: browser.store.name, commandFor: browser.options.commandFor }
      : { adapter: found.home.adapter }),
  });
  following.set(file, follower);
  try {
    const opened = await follower;
    await opened.update();
    return opened;
  } catch (error) {
    if (following.get(file) === follower) following.delete(file);
    throw error;
  }
}

/** The file behind a located session, when it has one. */
function fileOf(browser: Browser, found: Located): string | undefined {
  return found.kind === "store" ? browser.store.fileOf(found.location) : found.found.path;
}

async function sessionResponse(
  browser: Browser,
  found: Located,
  refresh: { from: number; seen: string | undefined } | undefined,
): Promise<Response> {
  const file = fileOf(browser, found);
  let report: InspectReport;
  let info: Deno.FileInfo | undefined;
  let fromTurn: number | undefined;
  let revision: string | undefined;
  try {
    info = file === undefined ? undefined : await Deno.stat(file);
    if (file === undefined) report = await readReport(browser, found);
    else {
      const follower = await followed(browser, found, file);
      // A refresh gets the turns from its last one on, or from the first one the readings
      // since its page's (`seen`, when it says) changed (a rewind moved the branch).
      fromTurn = refresh &&
        (refresh.seen === undefined
          ? refresh.from
          : Math.min(refresh.from, follower.changedSince(refresh.seen)));
      // A whole page copies none of the turns: an update while it renders adds to the last
      // turn at most, which the next refresh renders again (a copy of every turn doubled the
      // memory a large session's page took).
      report = follower.report(fromTurn ?? Infinity);
      revision = follower.revision;
    }
  } catch (error) {
    throw fileError(error, found.id, file);
  }
  let notice: string | undefined;
  if (file !== undefined) {
    browser.facts.set(file, report.session.sizeBytes, {
      turns: report.turns.length,
      healthy: report.healthy,
    });
    const tool = found.kind === "store" ? turnlogAdapter.tool : found.home.adapter.tool;
    notice = writingNotice(tool, info?.mtime ?? null, report.session.updated);
  }
  if (found.kind === "home" && found.home.archived) {
    notice = `Only in the archive: the ${found.home.adapter.fileNoun} of this session is gone; ` +
      `this is its archived copy (restore ${found.id} puts it back).`;
  }
  const continueIn = file === undefined
    ? {}
    : { continueIn: { url: `${sessionPath(found.id)}/export`, targets: continueTargets() } };
  // The subagents' conversations, shown inline in the reading view (Claude Code's only).
  const subagents = await inspectSubagents(report, SESSION_PAGE_INSPECTION);
  const page = sessionPageStream(report, {
    subagents,
    live: { eventsUrl: `${sessionPath(found.id)}/events` },
    ...continueIn,
    listHref: "/",
    sessionHref: hrefFrom(found.id),
    ...(notice === undefined ? {} : { notice }),
    ...(fromTurn === undefined ? {} : { fromTurn }),
    ...(revision === undefined ? {} : { revision }),
    ...(info === undefined ? {} : { stamp: statKey(info) }),
  });
  return new Response(page, { headers: pageHeaders({ live: true }) });
}

async function eventsResponse(browser: Browser, found: Located): Promise<Response> {
  const { options, store } = browser;
  const file = fileOf(browser, found);
  if (file !== undefined) {
    // A file that cannot be read is said so now, not by a stream that breaks off.
    try {
      (await Deno.open(file, { read: true })).close();
    } catch (error) {
      throw fileError(error, found.id, file);
    }
  }
  // The stream is cancelled when the client goes away; `request.signal` is not used for
  // that, as Deno aborts it once a response is sent.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal;
  const watch = { pollMs: options.pollMs, pingMs: options.pingMs, signal };
  const { watchers } = browser;
  const changes = file === undefined && found.kind === "store"
    ? storeChanges(store, found.location, watch)
    : watchers.changes(file!, watch);
  return sseResponse(changes, {
    onCancel: () => stop.abort(),
    headers: { "x-content-type-options": "nosniff" },
  });
}

/**
 * "Continue in…": the session's file exported to the tool the body names. Answered in JSON,
 * its errors too (`{"error": ...}` under the error table's status).
 */
async function exportRoute(browser: Browser, request: Request, raw: string): Promise<Response> {
  try {
    const found = await locate(browser.store, browser.homes, raw);
    const file = fileOf(browser, found);
    if (file === undefined) {
      throw new HttpError(
        "usage",
        `Session ${found.id} is in ${browser.store.name}, not in a file: export it with the export command`,
      );
    }
    return await exportResponse(request, file, browser.options.env ?? Deno.env);
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * A subagent's transcript as a page of its own: found among the subagents the page of the
 * session that started it lists (only those: no other file is read), and linked back to it.
 */
async function subagentResponse(browser: Browser, parent: string, id: string): Promise<Response> {
  const found = await locate(browser.store, browser.homes, parent);
  const report = await readReport(browser, found);
  const subagent = report.subagents.find((s) => s.id === id);
  if (subagent === undefined) {
    throw new PageError(
      "not_found",
      "No such subagent",
      `Session ${parent} started no subagent "${id}"`,
    );
  }
  const page = sessionPageStream(await inspectSession(subagent.path, SESSION_PAGE_INSPECTION), {
    listHref: sessionPath(found.id),
    sessionHref: hrefFrom(found.id),
    notice: `A subagent of session ${found.id}${
      subagent.line === null ? "" : `, started at its line ${subagent.line}`
    }.`,
  });
  return new Response(page, { headers: pageHeaders() });
}

/** The usage page: tokens and cost per day, project and model over every place listed. */
async function usageResponse(browser: Browser): Promise<Response> {
  const sources = searchSourcesOf(browser.store, browser.homes);
  const catalog = browser.options.catalog;
  const collected = catalog === undefined
    ? await collectUsage({ sources, fold: true })
    : await collectCatalogUsage(catalog, sources);
  const page = renderUsagePage({
    daily: usageReport(collected.rows, "daily", { breakdown: true }),
    project: usageReport(collected.rows, "project", { breakdown: true }),
    model: usageReport(collected.rows, "model"),
    toolCosts: collected.toolCosts.length,
    toolCostSources: collected.toolCostSources,
  });
  return new Response(page, { headers: pageHeaders() });
}

/** The routes of a GET: the list, the search, a session's page, its subagents and events. */
async function route(browser: Browser, url: URL): Promise<Response> {
  const path = url.pathname;
  if (path === "/") return await listResponse(browser, url);
  if (path === "/favicon.ico") return new Response(null, { status: 204 });
  if (path === "/usage") return await usageResponse(browser);
  if (path === "/search") {
    const sources = searchSourcesOf(browser.store, browser.homes);
    // A search in progress stops with the server.
    return await searchResponse(url, sources, {
      signal: browser.options.signal,
      catalog: browser.options.catalog,
      quiet: () => quiet(browser),
    });
  }
  const subagent = SUBAGENT_PATH.exec(path);
  if (subagent) return await subagentResponse(browser, idOf(subagent[1]!), idOf(subagent[2]!));
  const match = SESSION_PATH.exec(path);
  if (!match) throw new PageError("not_found", "Not found", `Nothing is served at ${path}`);
  const raw = idOf(match[1]!);
  const found = await locate(browser.store, browser.homes, raw);
  if (match[2]) return await eventsResponse(browser, found);
  if (raw !== found.id) {
    return new Response(null, { status: 302, headers: { location: sessionPath(found.id) } });
  }
  // A live page's refresh asks for the turns from its last one on (`?from=<turn>`), and says
  // which reading its page was rendered from (`&seen=<revision>`).
  const from = Number(url.searchParams.get("from"));
  const seen = url.searchParams.get("seen") ?? undefined;
  return await sessionResponse(
    browser,
    found,
    Number.isSafeInteger(from) && from > 0 ? { from, seen } : undefined,
  );
}

/**
 * The request handler of the session browser: the list of every place's sessions, the
 * search, each session's live page and events, its export ("Continue in…"), and
 * `/favicon.ico`. The sessions are only read: no route repairs, resumes or runs anything on
 * them; an export writes a new session, in the target tool's home.
 */
export function createSessionBrowserHandler(
  options: SessionBrowserOptions = {},
): (request: Request) => Promise<Response> {
  const browser: Browser = {
    options,
    store: options.store ?? new FileStore(options.sessionsDir),
    homes: options.homes ?? [],
    facts: options.facts ?? new FactsMemo(),
    watchers: options.watchers ?? new SessionWatchers({ pollMs: options.pollMs }),
    following: new Map(),
    busy: { requests: 0, since: performance.now() },
  };
  return async (request) => {
    const path = new URL(request.url).pathname;
    browser.busy.requests++;
    try {
      const refused = accessRefusal(request, options);
      if (refused !== undefined) throw new PageError("forbidden", "Forbidden", refused);
      const exporting = request.method === "POST" ? EXPORT_PATH.exec(path) : null;
      if (exporting) return await exportRoute(browser, request, idOf(exporting[1]!));
      if (request.method !== "GET" && request.method !== "HEAD") {
        const error = new PageError(
          "method_not_allowed",
          "Method not allowed",
          `Use GET for ${path}`,
        );
        return messageResponse(error, { allow: "GET, HEAD" });
      }
      return await route(browser, new URL(request.url));
    } catch (error) {
      if (error instanceof PageError) return messageResponse(error);
      if (error instanceof Deno.errors.NotFound) {
        return messageResponse(
          new PageError("not_found", "No such session", `The session file behind ${path} is gone`),
        );
      }
      if (isUnreadable(error)) {
        return messageResponse(
          new PageError(
            "forbidden",
            "Cannot read this session",
            `serve cannot read what ${path} needs`,
          ),
        );
      }
      console.error(`turnlog serve: ${request.method} ${path}:`, error);
      return messageResponse(
        new PageError("internal", "Something went wrong", "The server could not make this page"),
      );
    } finally {
      // A live page's events go on streaming: answered, it is not a request being answered.
      browser.busy.requests--;
      browser.busy.since = performance.now();
    }
  };
}
