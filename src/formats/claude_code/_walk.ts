/**
 * Claude Code's sessions found from names alone: each project folder's transcripts with their
 * subagents' files. Its own module, apart from the search profile that spreads it: a listing
 * from the catalog walks the home and reads no line, and loads this and what it imports alone
 * (`ToolStart.loadWalk`), not the profile's eight other modules.
 *
 * @module
 */
import { basename, join } from "../../_path.ts";
import { late } from "../../_late.ts";
import { dirEntries } from "../_dir.ts";
import { compareLikeLocale } from "../../text/mod.ts";
import type { SessionFiles } from "../_search.ts";

/**
 * io's reader, for the old-style agent files' first lines alone: a walk of a home without them
 * (a listing from the catalog) loads none of io (src/_late.ts).
 */
const ioModule = () =>
  late<typeof import("../../io/forward.ts")>("../../io/forward.ts", import.meta.url);

const TRANSCRIPT = /^([0-9A-Za-z][0-9A-Za-z_-]*)\.jsonl$/;
const AGENT = /^agent-/;

/**
 * Paths in the order of their names. Only a session's subagent files are put in order (their
 * hits come in this order); the sessions are not, the search orders them by time. In
 * `localeCompare`'s order without its collator where their names allow (its first call costs
 * 10 to 50 ms): an agent's name is `agent-` and small hex digits.
 */
function byName(paths: string[]): string[] {
  return paths.sort((a, b) => compareLikeLocale(basename(a), basename(b)));
}

/** The session id on a file's first line, read from its first 16 KiB only. */
async function headSessionId(path: string): Promise<string | undefined> {
  const { readFull } = await ioModule();
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(16 * 1024);
  const read = await readFull(file, buffer);
  if (read === 0) return undefined;
  const first = new TextDecoder().decode(buffer.subarray(0, read)).split("\n", 1)[0] ?? "";
  return /"sessionId"\s*:\s*"([^"]+)"/.exec(first)?.[1];
}

/**
 * The sessions of one project folder: each `<id>.jsonl` with its `<id>/subagents/` files and
 * the old-style `agent-*.jsonl` beside it whose first line names it; an agent file whose
 * session is not there is a session of its own.
 */
/**
 * `join(dir, name)` for a folder `join` gave and a name its listing gave (no `/`, never `.` or
 * `..`): a concatenation, as node:path's join costs ~25 ms over a warm walk of a big home.
 */
function inFolder(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

async function* projectSessions(root: string, project: string): AsyncGenerator<SessionFiles> {
  const dir = join(root, project);
  const sessions = new Map<string, SessionFiles>();
  const agents: string[] = [];
  // The entries that may hold a session's `subagents/` folder: most sessions have none, and a
  // folder not there is an error made and caught (about 0.2 ms each at a process's start).
  const folders = new Set<string>();
  for (const entry of await dirEntries(dir)) {
    if (!entry.isFile) {
      if (entry.isDirectory || entry.isSymlink) folders.add(entry.name);
      continue;
    }
    const id = TRANSCRIPT.exec(entry.name)?.[1];
    if (id === undefined) continue;
    const path = inFolder(dir, entry.name);
    if (AGENT.test(id)) agents.push(path);
    else sessions.set(id, { id, path, subagents: [], project });
  }
  for (const session of sessions.values()) {
    if (!folders.has(session.id)) continue;
    const folder = inFolder(inFolder(dir, session.id), "subagents");
    const files = (await dirEntries(folder)).filter((e) => e.isFile && e.name.endsWith(".jsonl"));
    session.subagents.push(...byName(files.map((entry) => inFolder(folder, entry.name))));
  }
  for (const path of byName(agents)) {
    const owner = sessions.get(await headSessionId(path).catch(() => undefined) ?? "");
    if (owner) owner.subagents.push(path);
    else {
      const id = TRANSCRIPT.exec(path.slice(dir.length + 1))![1]!;
      sessions.set(id, { id, path, subagents: [], project });
    }
  }
  yield* sessions.values();
}

/** Claude Code's walk (`FormatSearch.walk`): every project folder's sessions under `root`. */
export async function* claudeCodeWalk(root: string): AsyncGenerator<SessionFiles> {
  for (const entry of await dirEntries(root)) {
    if (entry.isDirectory) yield* projectSessions(root, entry.name);
  }
}
