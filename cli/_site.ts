/**
 * `inspect --html --all DIR`: a static site of every session of a home (turnlog's sessions
 * folder or another tool's, told as `inspect --list` tells it): `index.html` by project and
 * date, a page per session under `sessions/`, a page per subagent beside its session's, every
 * link relative so the site opens from `file://`. Written whole or not at all: into a new
 * folder beside `--out`, each file synced, then renamed into place; never into the home.
 *
 * @module
 */
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { adapterFor, foreignSource, type SessionAdapter } from "../src/formats/mod.ts";
import { listForeignSessions, turnlogAdapter } from "../src/formats/mod.ts";
import {
  type InspectReport,
  inspectSession,
  inspectSubagents,
  verdictOf,
} from "../src/inspect/mod.ts";
import {
  renderSiteIndex,
  SESSION_PAGE_INSPECTION,
  sessionPageChunks,
  type SessionPageOptions,
  siteFileName,
  type SiteSession,
} from "../src/html/mod.ts";
import { walkSessions } from "../src/store/mod.ts";
import { formatBytes, plural } from "../src/text/mod.ts";
import { UsageError } from "./_args.ts";

/** Where the site goes when `--out` is not given: `turnlog-site` in the current folder. */
export const DEFAULT_SITE_DIR = "turnlog-site";

/** The file every site holds, which tells a folder made by this command from any other. */
const MARK = ".turnlog-site";

/** Options of {@linkcode writeSite}. */
export interface SiteOptions {
  /** The folder the site goes in (replaced whole when it holds an older site). */
  out: string;
  /** Whole texts in the pages instead of shortened ones (`--full`). */
  full?: boolean;
  /**
   * Called before each session is written, with how many are done, of how many, and the bytes
   * written so far (the command rewrites one line of a terminal with {@linkcode progressLine}).
   */
  progress?: (done: number, total: number, bytes: number) => void;
}

/** What {@linkcode writeSite} wrote. */
export interface SiteWritten {
  /** Session pages written. */
  sessions: number;
  /** Subagent pages written. */
  subagents: number;
  /** Sessions whose file could not be read (listed in the index, without a page). */
  unreadable: number;
  /** Bytes of every file of the site. */
  bytes: number;
}

/** A session file to put on the site, with the adapter that reads it. */
interface Source {
  path: string;
  id: string;
  adapter: SessionAdapter;
}

/** Every session file of `dir`, told the way `inspect --list` tells a folder. */
async function sessionsOf(dir: string): Promise<Source[]> {
  const source = await foreignSource({ sessionsDir: dir });
  if (source) {
    const adapter = adapterFor(source.format);
    const listing = await listForeignSessions(source, {
      limit: Number.MAX_SAFE_INTEGER,
      heads: false,
    });
    return listing.sessions.map((session) => ({ path: session.path, id: session.id, adapter }));
  }
  const found: Source[] = [];
  for await (const location of walkSessions(dir)) {
    found.push({ path: location.path, id: location.id, adapter: turnlogAdapter });
  }
  return found;
}

/** True when `path` is `folder` or inside it. */
function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith(sep) && rel !== "..");
}

/** A path with its links followed as far as it exists (the rest as given). */
async function realish(path: string): Promise<string> {
  const whole = resolve(path);
  for (let head = whole, tail = "";; tail = join(basename(head), tail), head = dirname(head)) {
    const real = await Deno.realPath(head).catch(() => undefined);
    if (real !== undefined) return join(real, tail);
    if (dirname(head) === head) return whole;
  }
}

/** Refuses an `--out` that would write into the home, or over a folder that is not a site. */
async function checkOut(out: string, dir: string): Promise<void> {
  if (within(await realish(out), await realish(dir))) {
    throw new UsageError(
      `Refusing to write the site into ${out}: it is inside ${dir}, the sessions read; name another folder with --out`,
    );
  }
  const info = await Deno.stat(out).catch(() => undefined);
  if (info === undefined) return;
  if (!info.isDirectory) throw new UsageError(`--out ${out} is a file: name a folder`);
  const site = await Deno.stat(join(out, MARK)).then(() => true, () => false);
  if (site) return;
  for await (const _ of Deno.readDir(out)) {
    throw new UsageError(
      `Refusing to replace ${out}: it holds files and no site of turnlog; name a new folder with --out`,
    );
  }
}

/** Writes `chunks` to a new file at `path`, synced; returns its bytes. */
async function writeFile(path: string, chunks: Iterable<Uint8Array>): Promise<number> {
  using file = await Deno.open(path, { write: true, createNew: true });
  let bytes = 0;
  for (const chunk of chunks) {
    let written = 0;
    while (written < chunk.length) written += await file.write(chunk.subarray(written));
    bytes += chunk.length;
  }
  await file.sync();
  return bytes;
}

const encoder = new TextEncoder();

/**
 * The progress line on a terminal: `turnlog inspect: 3/12 sessions · 1.2 MiB`, written over the
 * last one; cleared once every session is written.
 */
export function progressLine(done: number, total: number, bytes: number): void {
  const text = done === total
    ? ""
    : `turnlog inspect: ${done + 1}/${total} sessions · ${formatBytes(bytes)}`;
  Deno.stderr.writeSync(encoder.encode(`\r\x1b[2K${text}`));
}

/**
 * Writes the site of every session in `dir` to `options.out`: into a temporary folder beside
 * it, then renamed into place (an older site there is replaced only once the new one is
 * whole). A session file that cannot be read is listed in the index, without a page.
 *
 * @throws {UsageError} when `dir` holds no session, or `out` is inside it or not a site
 */
export async function writeSite(dir: string, options: SiteOptions): Promise<SiteWritten> {
  const { out } = options;
  await checkOut(out, dir);
  const sources = await sessionsOf(dir);
  if (sources.length === 0) {
    throw new UsageError(
      `No sessions in ${dir}: name a Claude Code projects folder, a Codex sessions folder, a Gemini tmp folder or a turnlog sessions folder`,
    );
  }
  const parent = dirname(resolve(out));
  await Deno.mkdir(parent, { recursive: true });
  const temporary = join(parent, `.${basename(out)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  await Deno.mkdir(join(temporary, "sessions"), { recursive: true });
  const written: SiteWritten = { sessions: 0, subagents: 0, unreadable: 0, bytes: 0 };
  try {
    const taken = new Set<string>();
    const listed: SiteSession[] = [];
    for (const [i, source] of sources.entries()) {
      options.progress?.(i, sources.length, written.bytes);
      listed.push(await sessionPages(source, temporary, taken, written, options));
    }
    written.bytes += await writeFile(
      join(temporary, "index.html"),
      [encoder.encode(renderSiteIndex(listed, { root: dir }))],
    );
    await writeFile(join(temporary, MARK), [
      encoder.encode("made by turnlog inspect --html --all\n"),
    ]);
    options.progress?.(sources.length, sources.length, written.bytes);
    await swapIn(temporary, out);
    return written;
  } catch (error) {
    await Deno.remove(temporary, { recursive: true }).catch(() => {});
    throw error;
  }
}

/** Renames the finished site into place; an older site there goes only after. */
async function swapIn(temporary: string, out: string): Promise<void> {
  const old = await Deno.stat(out).then(() => `${temporary}.old`, () => undefined);
  if (old !== undefined) await Deno.rename(out, old);
  await Deno.rename(temporary, out);
  if (old !== undefined) await Deno.remove(old, { recursive: true });
}

/** A session's page and its subagents' pages; what the index says of it. */
async function sessionPages(
  source: Source,
  site: string,
  taken: Set<string>,
  written: SiteWritten,
  options: SiteOptions,
): Promise<SiteSession> {
  const name = siteFileName(source.id, taken);
  const base = name.slice(0, -".html".length);
  let report: InspectReport;
  try {
    report = await inspectSession(source.path, {
      ...SESSION_PAGE_INSPECTION,
      adapter: source.adapter,
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied)) {
      throw error;
    }
    written.unreadable++;
    return {
      id: source.id,
      href: `sessions/${name}`,
      tool: source.adapter.tool,
      project: null,
      created: null,
      updated: null,
      title: null,
      turns: 0,
      verdict: "unreadable",
      healthy: false,
      sizeBytes: 0,
      subagents: [],
      unreadable: error.message,
    };
  }
  const subagents = await inspectSubagents(report, SESSION_PAGE_INSPECTION);
  const agentFile = (id: string) => `${base}.agent-${id.replace(/[^A-Za-z0-9._-]/g, "_")}.html`;
  const texts: SessionPageOptions = options.full ? { textChars: Number.MAX_SAFE_INTEGER } : {};
  const href = (id: string, kind?: string) => kind === "subagent" ? agentFile(id) : "#findings";
  written.bytes += await writeFile(
    join(site, "sessions", name),
    sessionPageChunks(report, {
      ...texts,
      listHref: "../index.html",
      sessionHref: href,
      subagents,
    }),
  );
  written.sessions++;
  const agents: SiteSession["subagents"] = [];
  for (const agent of report.subagents) {
    const agentReport = subagents.get(agent.id);
    if (agentReport === undefined) continue;
    written.bytes += await writeFile(
      join(site, "sessions", agentFile(agent.id)),
      sessionPageChunks(agentReport, {
        ...texts,
        listHref: name,
        notice: `A subagent of session ${source.id}${
          agent.line === null ? "" : `, started at its line ${agent.line}`
        }.`,
      }),
    );
    written.subagents++;
    agents.push({ id: agent.id, href: `sessions/${agentFile(agent.id)}`, title: agent.title });
  }
  const { session } = report;
  return {
    id: session.id ?? source.id,
    href: `sessions/${name}`,
    tool: source.adapter.tool,
    project: session.cwd,
    created: session.created,
    updated: session.updated,
    title: session.title ?? session.firstPrompt,
    turns: report.turns.length,
    verdict: verdictOf(report).words,
    healthy: report.healthy,
    sizeBytes: session.sizeBytes,
    subagents: agents,
  };
}

/** What the command says once the site is written. */
export function siteWords(out: string, written: SiteWritten): string {
  const parts = [plural(written.sessions, "session page")];
  if (written.subagents > 0) parts.push(plural(written.subagents, "subagent page"));
  const unread = written.unreadable > 0
    ? `; ${plural(written.unreadable, "session")} could not be read (listed, no page)`
    : "";
  return `turnlog inspect: wrote ${parts.join(", ")} and the index to ${out} (${
    formatBytes(written.bytes)
  })${unread}; open ${join(out, "index.html")} in a browser`;
}
