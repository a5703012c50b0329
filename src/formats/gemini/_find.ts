/**
 * Gemini CLI sessions where Gemini keeps them, `<root>/<project>/chats/session-<UTC minute>-<first
 * 8 of the id>.jsonl` (legacy `.json`), subagents' in `chats/<parent id>/<id>.jsonl`: listed
 * newest first by their names' time and found by id or unique prefix from names, reading
 * only the first bytes of the files a name matches (a name carries 8 characters of the id).
 * A resume of Gemini 0.61 leaves a second, small file with the same session id (a stub):
 * the session is its largest file.
 *
 * @module
 */
import { join } from "../../_path.ts";
import { checkSessionId } from "../../record/ids.ts";
import {
  beyondHead,
  type ForeignListing,
  type FoundSession,
  type ListedForeignSession,
  type ListOptions,
  onlyMatch,
  previewedPage,
  type PreviewOptions,
  withStat,
} from "../_find.ts";
import { dirEntries, previewLine, scanHead } from "../_head.ts";
import { str } from "../_line.ts";
import { isIgnoredUserText, textOf } from "./_history.ts";
import { projectRootOf } from "./_subagents.ts";

/** A session file's name: its UTC minute and the first 8 characters of its id. */
export const SESSION_NAME =
  /^session-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-([0-9A-Za-z_-]{1,8})\.jsonl?$/;

/** A subagent's session: `<id>.jsonl` in `chats/<parent id>/`. */
const SUBAGENT_NAME = /^([0-9A-Za-z][0-9A-Za-z_-]*)\.jsonl$/;

/** A session file found by its name. */
interface Named extends FoundSession {
  /** The 8 characters of the id the name carries (the whole id of a subagent's). */
  short: string;
}

/** The project folders of a root (`<root>/<project>/chats`). */
async function projects(root: string): Promise<string[]> {
  return (await dirEntries(root)).filter((e) => e.isDirectory).map((e) => e.name).sort();
}

/** The session files of one project, by name (subagents' too, when asked). */
async function sessionsOf(root: string, project: string, subagents: boolean): Promise<Named[]> {
  const chats = join(root, project, "chats");
  const found: Named[] = [];
  for (const entry of await dirEntries(chats)) {
    const match = SESSION_NAME.exec(entry.name);
    if (entry.isFile && match) {
      const [, day, hour, minute, short] = match;
      found.push({
        format: "gemini",
        id: short!,
        short: short!.toLowerCase(),
        path: join(chats, entry.name),
        created: `${day}T${hour}:${minute}:00.000Z`,
        modified: null,
        sizeBytes: 0,
        project,
      });
    } else if (entry.isDirectory && subagents) {
      for (const file of await dirEntries(join(chats, entry.name))) {
        const id = SUBAGENT_NAME.exec(file.name)?.[1];
        if (!file.isFile || id === undefined) continue;
        const path = join(chats, entry.name, file.name);
        found.push({ ...subagentFound(path, id, project), short: id.toLowerCase() });
      }
    }
  }
  return found;
}

function subagentFound(path: string, id: string, project: string): FoundSession {
  return { format: "gemini", id, path, created: null, modified: null, sizeBytes: 0, project };
}

/** The session id the file's first bytes name (its metadata line), or undefined. */
export async function headSessionId(path: string): Promise<string | undefined> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(4096);
  const read = await file.read(buffer);
  if (read === null) return undefined;
  const text = new TextDecoder().decode(buffer.subarray(0, read));
  return /"sessionId"\s*:\s*"([^"\\]+)"/.exec(text)?.[1];
}

/** Each session once: the largest of the files that carry its id (a resume's stub is small). */
function largestOfEach(files: FoundSession[]): FoundSession[] {
  const byId = new Map<string, FoundSession>();
  for (const file of files) {
    const had = byId.get(file.id);
    if (!had || file.sizeBytes > had.sizeBytes) byId.set(file.id, file);
  }
  return [...byId.values()];
}

/**
 * Finds a session by its id or a unique prefix: names first, then the first bytes of the
 * files whose names match (to learn their whole ids).
 *
 * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
 * @throws {SessionNotFoundError} when no session matches
 * @throws {AmbiguousSessionError} when several match
 */
export async function findGeminiSession(root: string, idOrPrefix: string): Promise<FoundSession> {
  const prefix = checkSessionId(idOrPrefix);
  const candidates: FoundSession[] = [];
  for (const project of await projects(root)) {
    for (const named of await sessionsOf(root, project, true)) {
      const { short, ...found } = named;
      if (!(short.startsWith(prefix) || prefix.startsWith(short))) continue;
      const id = (await headSessionId(found.path)) ?? short;
      if (id.toLowerCase().startsWith(prefix)) candidates.push(await withStat({ ...found, id }));
    }
  }
  const exact = candidates.filter((c) => c.id.toLowerCase() === prefix);
  const matches = largestOfEach(exact.length > 0 ? exact : candidates);
  return onlyMatch(idOrPrefix, root, matches);
}

/** What a session's head tells for a listing: the first real prompt, the model, the id. */
export async function previewGeminiSession(
  session: FoundSession,
  options: PreviewOptions = {},
): Promise<ListedForeignSession> {
  let preview: string | null = null;
  let model: string | null = null;
  let id = session.id;
  let created = session.created;
  let title: string | null = null;
  await scanHead(session.path, (value) => {
    if (typeof value.sessionId === "string" && typeof value.projectHash === "string") {
      id = value.sessionId;
      created = str(value, "startTime") ?? created;
    }
    const set = value.$set;
    if (typeof set === "object" && set !== null && "summary" in set) {
      title = String((set as Record<string, unknown>).summary);
    }
    if (value.type === "gemini") model ??= str(value, "model") ?? null;
    if (value.type === "user" && preview === null) {
      const text = textOf(value.content);
      if (!isIgnoredUserText(text)) preview = text;
    }
    return preview !== null && model !== null;
  });
  const { found, lastAt } = await beyondHead(session, options);
  return {
    ...found,
    id,
    created,
    preview: preview === null ? null : previewLine(preview),
    title,
    cwd: await projectRootOf(session.path),
    gitBranch: null,
    model,
    firstAt: created,
    // The last message's time (the `$set` lines of `lastUpdated` after it hold theirs nested).
    lastAt,
  };
}

/**
 * The sessions of one project: each the largest of the files its short id names (a resume's
 * stub is small), empty files and subagents' sessions left out. Its `id` is the short id.
 */
export async function sessionFiles(root: string, project: string): Promise<FoundSession[]> {
  const named: FoundSession[] = [];
  for (const { short, ...found } of await sessionsOf(root, project, false)) {
    named.push(await withStat({ ...found, id: short }));
  }
  return largestOfEach(named.filter((s) => s.sizeBytes > 0));
}

/**
 * Lists the newest sessions (by the time their names carry, then their modification) with a
 * preview each; subagents' sessions are left out (they are their parents'), and a resume's
 * stub is left out beside its session's file.
 */
export async function listGeminiSessions(
  root: string,
  options: ListOptions = {},
): Promise<ForeignListing> {
  const sessions: FoundSession[] = [];
  for (const project of await projects(root)) sessions.push(...await sessionFiles(root, project));
  sessions.sort((a, b) =>
    (b.created ?? "").localeCompare(a.created ?? "") ||
    (b.modified ?? "").localeCompare(a.modified ?? "") || a.path.localeCompare(b.path)
  );
  const page = await previewedPage(sessions, options, previewGeminiSession);
  return { format: "gemini", root, ...page };
}
