/**
 * What finding and listing sessions where other tools keep them share: the listed session's
 * shape, the user's home, and the walk of a `YYYY/MM/DD` tree that tells a root's kind.
 *
 * @module
 */
import { join } from "../_path.ts";
import { AmbiguousSessionError, SessionNotFoundError } from "../errors/mod.ts";
import { dirEntries, lastFieldOf } from "./_head.ts";
import type { ForeignFormat, SessionFormat } from "./_types.ts";

export { type Env, homeDir } from "./_home_dir.ts";

/** A session found from its file's name (and, for Claude Code, its modification time). */
export interface FoundSession {
  /** The tool that wrote it. */
  format: ForeignFormat;
  /** The session id its file name carries. */
  id: string;
  /** The file's path. */
  path: string;
  /** Creation time: from the id or file name (Codex), the first line's time otherwise. */
  created: string | null;
  /** The file's last modification. */
  modified: string | null;
  /** The file's size in bytes. */
  sizeBytes: number;
  /**
   * The project it belongs to: Claude Code's project folder (the working directory with `/`
   * as `-`); in a listing, Codex's working directory from the head; else null.
   */
  project: string | null;
}

/** A session in a listing, with what its head tells. */
export interface ListedForeignSession extends FoundSession {
  /** The first real prompt, on one line, shortened; null when the head holds none. */
  preview: string | null;
  /** A title, when the head has one (Claude Code `summary` lines). */
  title: string | null;
  /** The working directory the head names. */
  cwd: string | null;
  /** The git branch the head names. */
  gitBranch: string | null;
  /** The first model the head names. */
  model: string | null;
  /** The first record's time (ISO 8601) from the head; null when it names none. */
  firstAt?: string | null;
  /**
   * The last record's time (ISO 8601), read from the end of the file (a bounded tail); null
   * when the tail names none.
   */
  lastAt?: string | null;
  /** Its turns, when a full read told them (the catalog's listing); absent: not told. */
  turns?: number | null;
  /**
   * The inspector's verdict in words (`healthy`, `1 orphan call`), when a full read told it
   * (the catalog's listing); absent: not told.
   */
  verdict?: string | null;
}

/** A listing, newest first. */
export interface ForeignListing {
  /** The tool whose sessions these are. */
  format: ForeignFormat;
  /** The root listed. */
  root: string;
  /** The newest sessions first. */
  sessions: ListedForeignSession[];
  /** True when more sessions exist than the limit showed. */
  more: boolean;
}

/** Options of the listings. */
export interface ListOptions {
  /** Sessions listed at most. @default {25} */
  limit?: number;
  /**
   * Read the listed files' heads for their previews. False: every session of the root from
   * names and a `stat` alone (size, modification time), the preview fields null, for a caller
   * that orders them itself and previews the few it shows. @default {true}
   */
  heads?: boolean;
}

/** A found session as a listing holds it before its head is read: the preview fields null. */
export function unpreviewed(session: FoundSession): ListedForeignSession {
  return { ...session, preview: null, title: null, cwd: null, gitBranch: null, model: null };
}

/** A folder recognised as a sessions root, and the root to use (a home resolves to its root). */
export interface SessionsRoot {
  /** Which tool's sessions the folder holds. */
  format: SessionFormat;
  /** The sessions root to use. */
  root: string;
}

/**
 * The name of the first `.jsonl` file in the newest day folder of a `YYYY/MM/DD` tree (Codex's
 * and turnlog's layout), or undefined when the folder is no such tree.
 */
export async function firstDatedFile(root: string): Promise<string | undefined> {
  const sorted = async (dir: string, digits: number) =>
    (await dirEntries(dir)).filter((e) =>
      e.isDirectory && new RegExp(`^\\d{${digits}}$`).test(e.name)
    )
      .map((e) => e.name).sort().reverse();
  for (const year of await sorted(root, 4)) {
    for (const month of await sorted(join(root, year), 2)) {
      for (const day of await sorted(join(root, year, month), 2)) {
        for (const entry of await dirEntries(join(root, year, month, day))) {
          if (entry.isFile && entry.name.endsWith(".jsonl")) return entry.name;
        }
      }
    }
  }
  return undefined;
}

/** The session with its file's size and modification time, from one `stat`. */
export async function withStat(session: FoundSession): Promise<FoundSession> {
  const info = await Deno.stat(session.path);
  return { ...session, sizeBytes: info.size, modified: info.mtime?.toISOString() ?? null };
}

/** Options of a format's session preview (`previewCodexSession` and the others). */
export interface PreviewOptions {
  /**
   * Only what the session's head tells (a search's hit): no `stat` and no read of the file's
   * tail, so its size, modification and last record's time stay as found (0, null, null).
   */
  headOnly?: boolean;
}

/**
 * What a preview adds from outside the head: the file's size and modification time (one
 * `stat`) and its last record's time (a bounded read of its tail), unless `headOnly`.
 */
export async function beyondHead(
  session: FoundSession,
  options: PreviewOptions,
): Promise<{ found: FoundSession; lastAt: string | null }> {
  if (options.headOnly) return { found: session, lastAt: null };
  return { found: await withStat(session), lastAt: await lastFieldOf(session.path) ?? null };
}

/**
 * The one session of `matches`, those a root's names (or heads) matched to `idOrPrefix`.
 *
 * @throws {SessionNotFoundError} when there is none
 * @throws {AmbiguousSessionError} when there are several
 */
export function onlyMatch(
  idOrPrefix: string,
  root: string,
  matches: readonly FoundSession[],
): FoundSession {
  if (matches.length === 0) throw new SessionNotFoundError(idOrPrefix, root);
  if (matches.length > 1) {
    throw new AmbiguousSessionError(
      idOrPrefix,
      matches.map((m) => ({ id: m.id, path: m.path, createdAt: m.created ?? "" })),
    );
  }
  return matches[0]!;
}

/**
 * The first `limit` of `sessions` (already in the listing's order), each previewed by
 * `preview` (with `heads: false`, as found), and whether more were left out.
 */
export async function previewedPage(
  sessions: readonly FoundSession[],
  options: ListOptions,
  preview: (session: FoundSession) => Promise<ListedForeignSession>,
): Promise<{ sessions: ListedForeignSession[]; more: boolean }> {
  const limit = options.limit ?? 25;
  const listed: ListedForeignSession[] = [];
  for (const session of sessions.slice(0, limit)) {
    listed.push(options.heads === false ? unpreviewed(session) : await preview(session));
  }
  return { sessions: listed, more: sessions.length > limit };
}
