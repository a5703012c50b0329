/**
 * The session browser: `GET /` lists the store's sessions newest first, `GET /sessions/<id>`
 * is a session's page, live through `GET /sessions/<id>/events` (Server-Sent Events). Every
 * page is self-contained and goes out under the strict policy of `pageHeaders()`.
 *
 * @module
 */
import {
  pageHeaders,
  renderMessagePage,
  renderSessionList,
  sessionPageStream,
  sessionPath,
} from "../html/mod.ts";
import { ERROR_OUTCOMES, type ErrorKind, errorKind } from "../errors/mod.ts";
import { HttpError, sseResponse } from "../http/mod.ts";
import { inspectStoredSession } from "../inspect/mod.ts";
import { InvalidSessionIdError } from "../record/mod.ts";
import {
  AmbiguousSessionError,
  type ContinuePoint,
  FileStore,
  type SessionLocation,
  type SessionStore,
} from "../store/mod.ts";
import { sessionChanges, storeChanges } from "./_session_events.ts";

/** What the session browser serves, and how its live pages are kept up to date. */
export interface SessionBrowserOptions {
  /** The sessions root. @default `$TURNLOG_SESSIONS_DIR`, else `./sessions` */
  sessionsDir?: string | undefined;
  /** The store of the sessions (see `openStore`); absent: the file store at `sessionsDir`. */
  store?: SessionStore | undefined;
  /** Sessions on the list at most (newest first). @default 50 */
  listLimit?: number | undefined;
  /** The command a session page shows for continuing the session; absent: none. */
  commandFor?: ((point: ContinuePoint) => string) | undefined;
  /** Milliseconds between two looks at a watched session file's size. @default 300 */
  pollMs?: number | undefined;
  /** A `: ping` comment after this many milliseconds without an event. @default 20_000 */
  pingMs?: number | undefined;
  /** Ends every open events stream (the server is stopping: streams never end otherwise). */
  signal?: AbortSignal | undefined;
}

/** A request answered with a page that says what went wrong, under its status. */
class PageError extends HttpError {
  readonly title: string;
  readonly links: { href: string; text: string }[] | undefined;
  constructor(status: number, title: string, message: string, links?: PageError["links"]) {
    super(status, message);
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

/** The page titles of the errors a lookup ends with, by kind. */
const LOOKUP_TITLES: Partial<Record<ErrorKind, string>> = {
  not_found: "No such session",
  ambiguous: "More than one session",
};

/**
 * The error a failed lookup of `raw` is answered with: a page under the status the error
 * table gives its kind; an id that is not one is the request's fault, a usage error.
 */
function lookupError(raw: string, error: unknown): unknown {
  if (error instanceof InvalidSessionIdError) {
    return new PageError(ERROR_OUTCOMES.usage.httpStatus, "Not a session id", error.message);
  }
  const kind = errorKind(error);
  const title = LOOKUP_TITLES[kind];
  if (title === undefined) return error;
  const status = ERROR_OUTCOMES[kind].httpStatus;
  if (error instanceof AmbiguousSessionError) {
    const links = error.candidates.map((c) => ({
      href: sessionPath(c.id),
      text: `${c.id} (${c.createdAt})`,
    }));
    return new PageError(
      status,
      title,
      `The prefix "${raw}" matches ${error.candidates.length} sessions; pick one`,
      [...links, { href: "/", text: "All sessions" }],
    );
  }
  return new PageError(status, title, `No session with id or prefix "${raw}" here`);
}

async function locate(store: SessionStore, raw: string): Promise<SessionLocation> {
  try {
    return await store.find(raw);
  } catch (error) {
    throw lookupError(raw, error);
  }
}

const SESSION_PATH = /^\/sessions\/([^/]+)(\/events)?\/?$/;

/** The id in a session path, decoded. */
function idOf(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new PageError(400, "Not a session id", `Invalid session id "${encoded}": bad escapes`);
  }
}

/** The request handler of the session browser: its three routes and `/favicon.ico`. */
export function createSessionBrowserHandler(
  options: SessionBrowserOptions = {},
): (request: Request) => Promise<Response> {
  const store = options.store ?? new FileStore(options.sessionsDir);
  const listPage = async () => {
    const listing = await store.list({ limit: options.listLimit ?? 50 });
    return new Response(renderSessionList(listing), { headers: pageHeaders() });
  };
  const sessionPage = async (found: SessionLocation) => {
    const report = await inspectStoredSession(store, found, {
      entries: true,
      commandFor: options.commandFor,
    });
    const page = sessionPageStream(report, {
      live: { eventsUrl: `${sessionPath(found.id)}/events` },
      listHref: "/",
      sessionHref: sessionPath,
    });
    return new Response(page, { headers: pageHeaders({ live: true }) });
  };
  const events = (found: SessionLocation) => {
    // The stream is cancelled when the client goes away; `request.signal` is not used for
    // that, as Deno aborts it once a response is sent.
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([stop.signal, options.signal]) : stop.signal;
    const watch = { pollMs: options.pollMs, pingMs: options.pingMs, signal };
    const file = store.fileOf(found);
    const changes = file === undefined
      ? storeChanges(store, found, watch)
      : sessionChanges(file, watch);
    return sseResponse(changes, {
      onCancel: () => stop.abort(),
      headers: { "x-content-type-options": "nosniff" },
    });
  };
  return async (request) => {
    const path = new URL(request.url).pathname;
    try {
      if (request.method !== "GET" && request.method !== "HEAD") {
        const error = new PageError(405, "Method not allowed", `Use GET for ${path}`);
        return messageResponse(error, { allow: "GET, HEAD" });
      }
      if (path === "/") return await listPage();
      if (path === "/favicon.ico") return new Response(null, { status: 204 });
      const match = SESSION_PATH.exec(path);
      if (!match) throw new PageError(404, "Not found", `Nothing is served at ${path}`);
      const raw = idOf(match[1]!);
      const found = await locate(store, raw);
      if (match[2]) return events(found);
      if (raw !== found.id) {
        return new Response(null, { status: 302, headers: { location: sessionPath(found.id) } });
      }
      return await sessionPage(found);
    } catch (error) {
      if (error instanceof PageError) return messageResponse(error);
      if (error instanceof Deno.errors.NotFound) {
        return messageResponse(
          new PageError(404, "No such session", `The session file behind ${path} is gone`),
        );
      }
      console.error(`turnlog serve: ${request.method} ${path}:`, error);
      return messageResponse(
        new PageError(500, "Something went wrong", "The server could not make this page"),
      );
    }
  };
}
