/**
 * Finding a session by id or unique id prefix from file names alone: no file is opened.
 *
 * @module
 */
import { AmbiguousSessionError, SessionNotFoundError, TurnlogError } from "../errors/mod.ts";

export { AmbiguousSessionError, SessionNotFoundError };
import { checkSessionId, idTime, prefixTimeRange } from "../record/mod.ts";
import { basename, dirname, resolve } from "../_path.ts";
import {
  dayFolders,
  impliedSessionsRoot,
  parseSessionFileName,
  sessionFilePath,
  type SessionLocation,
  sessionsIn,
} from "./_layout.ts";

/**
 * Finds a session by full id or unique prefix, from file names alone. A session id is a
 * UUIDv7, so the id's leading digits name the only date folders that can hold it; no file
 * is opened.
 *
 * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
 * @throws {SessionNotFoundError} when no session matches
 * @throws {AmbiguousSessionError} when several match
 */
export async function findSession(root: string, idOrPrefix: string): Promise<SessionLocation> {
  const prefix = checkSessionId(idOrPrefix);
  const exact = atItsTime(root, prefix);
  if (exact) return exact;
  const matches: SessionLocation[] = [];
  for await (const dir of dayFolders(root, prefixTimeRange(prefix))) {
    for (const location of await sessionsIn(dir)) {
      if (location.id === prefix) return location;
      if (location.id.startsWith(prefix)) matches.push(location);
    }
  }
  if (matches.length === 0) throw new SessionNotFoundError(idOrPrefix, root);
  if (matches.length > 1) throw new AmbiguousSessionError(idOrPrefix, matches);
  return matches[0]!;
}

/**
 * A whole UUIDv7's file where the store writes it (its creation time is the id's time): one
 * `stat` instead of listing the date folders. Undefined for a prefix, or when the file is
 * elsewhere (the listing then finds it).
 */
function atItsTime(root: string, id: string): SessionLocation | undefined {
  const time = idTime(id);
  if (time === undefined) return undefined;
  const path = sessionFilePath(root, id, time);
  try {
    if (!Deno.statSync(path).isFile) return undefined;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  return parseSessionFileName(basename(path), dirname(path));
}

/**
 * The shortest prefix of `id`, at least `min` characters and not ending in `-`, that finds
 * only this session in `root`; the whole id when no shorter one does.
 */
export async function shortestUniquePrefix(root: string, id: string, min = 8): Promise<string> {
  for (let length = Math.min(min, id.length); length < id.length; length++) {
    const prefix = id.slice(0, length);
    if (prefix.endsWith("-")) continue;
    try {
      if ((await findSession(root, prefix)).id === id) return prefix;
    } catch (error) {
      if (!(error instanceof AmbiguousSessionError)) throw error;
    }
  }
  return id;
}

/** Where a session file continues from: its store and the shortest id prefix found there. */
export interface ContinuePoint {
  /** The store that finds the session under its id: a sessions root, or a database's name. */
  root: string;
  /** The shortest unique id prefix (at least 8 characters) in that root. */
  prefix: string;
}

/**
 * The store a session file is in under its id, and the shortest prefix that finds it there;
 * undefined when the file is not where that store would find it (a copy elsewhere, a renamed
 * file, an id the store cannot look up).
 */
export async function continuePoint(
  path: string,
  id: string,
  root?: string,
): Promise<ContinuePoint | undefined> {
  const store = root ?? impliedSessionsRoot(path);
  if (store === undefined) return undefined;
  try {
    const found = await findSession(store, id);
    if (resolve(found.path) !== resolve(path)) return undefined;
    return { root: store, prefix: await shortestUniquePrefix(store, id) };
  } catch (error) {
    if (error instanceof TurnlogError) return undefined;
    throw error;
  }
}
