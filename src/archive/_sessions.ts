/**
 * The archive's sessions: its files grouped by session, and the one an argument names (an id,
 * a unique id prefix, or the path the session's file had).
 *
 * @module
 */
import { resolve } from "node:path";
import { TurnlogError } from "../errors/mod.ts";
import type { ArchivedFile, ArchiveIndex } from "./_index.ts";

/** One archived session: its own file's versions and its subagents' latest versions. */
export interface ArchivedSession {
  /** Its format. */
  format: string;
  /** Its id. */
  id: string;
  /** Its own file's versions, oldest first. */
  versions: ArchivedFile[];
  /** Its subagent files, each at its latest version. */
  subagents: ArchivedFile[];
}

/** The archive's sessions, each with its files. */
export function archivedSessions(index: ArchiveIndex): ArchivedSession[] {
  const sessions = new Map<string, ArchivedSession>();
  const subagents: ArchivedFile[] = [];
  for (const versions of index.versions()) {
    const latest = versions.at(-1)!;
    if (latest.role === "subagent") {
      subagents.push(latest);
      continue;
    }
    sessions.set(`${latest.format}/${latest.session}`, {
      format: latest.format,
      id: latest.session,
      versions,
      subagents: [],
    });
  }
  for (const file of subagents) {
    sessions.get(`${file.format}/${file.session}`)?.subagents.push(file);
  }
  return [...sessions.values()];
}

/**
 * The archived session an argument names: the path its file had, else an id or unique prefix.
 *
 * @throws {TurnlogError} `not_found` when none does, `ambiguous` when more than one does
 */
export function findArchived(
  sessions: readonly ArchivedSession[],
  target: string,
): ArchivedSession {
  const path = resolve(target);
  const byPath = sessions.filter((session) =>
    session.versions.some((file) => resolve(file.root, file.rel) === path)
  );
  if (byPath.length === 1) return byPath[0]!;
  const matches = sessions.filter((session) => session.id.startsWith(target));
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new TurnlogError("not_found", `No archived session has the id or path ${target}`);
  }
  const ids = matches.slice(0, 5).map((session) => `${session.id} (${session.format})`);
  throw new TurnlogError(
    "ambiguous",
    `${matches.length} archived sessions start with ${target}: ${ids.join(", ")}`,
  );
}

/** An archived session as a listing shows it. */
export interface ArchivedListed {
  /** The session. */
  session: ArchivedSession;
  /** Where its file was. */
  original: string;
  /** Whether its file is still there (else it is only in the archive). */
  present: boolean;
}

/**
 * The archive's sessions, newest archived first, each with whether its original file is still
 * where it was (a stat each).
 */
export async function listArchived(index: ArchiveIndex): Promise<ArchivedListed[]> {
  const listed: ArchivedListed[] = [];
  for (const session of archivedSessions(index)) {
    const latest = session.versions.at(-1)!;
    const original = resolve(latest.root, latest.rel);
    const present = await Deno.stat(original).then((info) => info.isFile, () => false);
    listed.push({ session, original, present });
  }
  const time = (entry: ArchivedListed) => entry.session.versions.at(-1)!.mtime;
  return listed.sort((a, b) => time(b) - time(a));
}
