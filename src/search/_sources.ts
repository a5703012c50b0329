/**
 * Where a search looks: turnlog's store and every other tool's home (each adapter's, from the
 * tool's own variables, else the usual folder under `HOME`), or only the ones a command names;
 * and every session under them, most recently written first.
 *
 * @module
 */
import type { Env, SessionFiles, SessionFormat, ToolHome, ToolWords } from "../formats/mod.ts";
import { HomeUnsetError, TurnlogError } from "../errors/mod.ts";
import type { SessionStore } from "../store/mod.ts";
// The homes, the store's names and the archive's layout, not their faces: a search of the
// homes loads no reader, no store and no archive (each is imported where it is needed).
import { TOOL_HOMES, turnlogAdapter } from "../formats/homes.ts";
import { prefixBeside } from "../store/_prefix.ts";
import { isPostgresUrl, resolveStoreSpec, storeName } from "../store/_spec.ts";
import { archiveLayout, resolveArchiveRoot } from "../archive/_layout.ts";
import { searchProfile } from "./_profiles.ts";
import { late } from "../_late.ts";

/**
 * The readers (to tell a folder's format) and the archive, loaded when a search needs them, out
 * of Deno's sight at start (src/_late.ts).
 */
const formatsModule = () =>
  late<typeof import("../formats/mod.ts")>("../formats/mod.ts", import.meta.url);
const archiveModule = () =>
  late<typeof import("../archive/mod.ts")>("../archive/mod.ts", import.meta.url);

/** A place of sessions of one format (a folder, or turnlog's store), and the flags that name it. */
export interface SearchSource {
  /** The format of its sessions. */
  format: SessionFormat;
  /** The sessions root. */
  root: string;
  /** The flags that name this root to `inspect` and `import` (none: the default store). */
  flags: string[];
  /**
   * turnlog's store, already open, searched in place of opening `root` (the session browser's
   * store, a database among them); the search leaves it open.
   */
  store?: SessionStore;
  /** The sessions only in the archive (their originals are gone): results say so. */
  archived?: boolean;
}

/**
 * The sources a catalog indexes: folders of session files, not an open store (the browser's)
 * nor a database.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { catalogFolders } from "./mod.ts";
 * const sources = [
 *   { format: "codex" as const, root: "/home/me/.codex/sessions", flags: ["--codex"] },
 *   { format: "turnlog" as const, root: "postgres://localhost/turnlog", flags: [] },
 * ];
 * assert.deepEqual(catalogFolders(sources), [sources[0]]);
 * ```
 */
export function catalogFolders(sources: readonly SearchSource[]): SearchSource[] {
  return sources.filter((source) => source.store === undefined && !isPostgresUrl(source.root));
}

/** What a command named as the places to search; nothing named means all of them. */
export interface SourceChoice {
  /**
   * Other tools' homes, by their adapters' flags (`codex` for Codex's home,
   * `$CODEX_HOME/sessions`, else `~/.codex/sessions`).
   */
  homes?: readonly string[] | undefined;
  /** Folders: turnlog stores, other tools' roots or homes (told from their names). */
  sessionsDirs?: readonly string[] | undefined;
  /** turnlog's store: a sessions folder or a `postgres://` URL. */
  store?: string | undefined;
  /** The environment the homes come from. @default {Deno.env} */
  env?: Env;
}

/** A named folder that is not there, or is not a folder. */
export class NoSuchSourceError extends TurnlogError {
  /** An error naming the folder (`what`: what is there instead, if anything). */
  constructor(dir: string, options?: ErrorOptions & { what?: string }) {
    const message = options?.what === undefined
      ? `No such folder: ${dir}`
      : `Not a folder: ${dir} is ${options.what}`;
    super("not_found", message, options);
    this.name = "NoSuchSourceError";
  }
}

async function folderSource(dir: string, flag: string): Promise<SearchSource> {
  const info = statOrUndefined(dir);
  if (info === undefined) throw new NoSuchSourceError(dir);
  if (!info.isDirectory) {
    throw new NoSuchSourceError(dir, {
      what: info.isFile ? `a file (${flag} takes the folder that holds it)` : "a special file",
    });
  }
  const { detectSessionsRoot } = await formatsModule();
  const found = await detectSessionsRoot(dir);
  return {
    format: found?.format ?? turnlogAdapter.name,
    root: found?.root ?? dir,
    flags: [flag, dir],
  };
}

/** turnlog's store: a sessions folder, or a database (named without its password). */
export function storeSource(spec: string, flags: string[]): SearchSource {
  const named = flags.length === 0 ? [] : [flags[0]!, storeName(spec)];
  return { format: turnlogAdapter.name, root: spec, flags: named };
}

/** A root of an adapter's sessions as a source, named by the adapter's home flag (`--codex`). */
export function homeSourceAt(adapter: ToolWords, root: string): SearchSource {
  return { format: adapter.name, root, flags: [`--${adapter.flag}`] };
}

/** An adapter's home, as the environment names it, as a source. */
function homeSource(adapter: ToolHome, env: Env): SearchSource {
  return homeSourceAt(adapter, adapter.home.root(env));
}

/** The adapter of a home flag a choice names. */
function homeAdapter(flag: string): ToolHome {
  const adapter = TOOL_HOMES.find((home) => home.flag === flag);
  if (adapter === undefined) {
    const known = TOOL_HOMES.map((a) => a.flag).join(", ");
    throw new TurnlogError("usage", `No tool's home is named ${flag} (known: ${known})`);
  }
  return adapter;
}

/**
 * The sources a choice names: with nothing named, turnlog's store (`TURNLOG_STORE`, else
 * `TURNLOG_SESSIONS_DIR`, else `./sessions`), every adapter's home and the sessions only in
 * the archive (its view: `archivedSources`).
 *
 * @throws {NoSuchSourceError} for a named folder that is not there
 */
export async function searchSources(choice: SourceChoice = {}): Promise<SearchSource[]> {
  const env = choice.env ?? Deno.env;
  const homes = choice.homes ?? [];
  const dirs = choice.sessionsDirs ?? [];
  const named = homes.length > 0 || dirs.length > 0 || choice.store !== undefined;
  if (!named) {
    const found: { home: ToolHome; root: string }[] = [];
    const unset: string[] = [];
    for (const home of TOOL_HOMES) {
      try {
        found.push({ home, root: home.home.root(env) });
      } catch (error) {
        if (!(error instanceof HomeUnsetError)) throw error;
        unset.push(home.name);
      }
    }
    // HOME unset: the homes are named by no variable, and never taken to be the current folder.
    if (unset.length > 0) {
      const { ADAPTERS, homesUnsetError } = await formatsModule();
      throw homesUnsetError(ADAPTERS.filter((adapter) => unset.includes(adapter.name)));
    }
    return [
      storeSource(resolveStoreSpec(), []),
      ...found.map(({ home, root }) => homeSourceAt(home, root)),
      ...(await archivedSources()),
    ];
  }
  const sources: SearchSource[] = [];
  if (choice.store !== undefined) {
    sources.push(storeSource(choice.store, ["--store", choice.store]));
  }
  for (const dir of dirs) sources.push(await folderSource(dir, "--sessions-dir"));
  for (const flag of homes) sources.push(homeSource(homeAdapter(flag), env));
  return sources;
}

/**
 * The sessions only in the archive (`TURNLOG_ARCHIVE`, else the default one), one source per
 * format, each named by `--sessions-dir` so that `inspect` and `import` open them; none when
 * there is no archive.
 */
export async function archivedSources(from?: string): Promise<SearchSource[]> {
  if (!await hasArchive(from)) return [];
  const { archivedViews } = await archiveModule();
  const views = await archivedViews(from);
  return views.map(({ format, root }) => ({
    format,
    root,
    flags: ["--sessions-dir", root],
    archived: true,
  }));
}

/** Whether the archive has an index (else it holds no session): a `stat`, no archive loaded. */
async function hasArchive(from?: string): Promise<boolean> {
  let root: string;
  try {
    root = resolveArchiveRoot(from);
  } catch {
    return false;
  }
  return await Deno.stat(archiveLayout(root).index).then((info) => info.isDirectory, () => false);
}

/** A session to search: its files, where it came from, when it was last written. */
export interface SourcedSession extends SessionFiles {
  /** Its source. */
  source: SearchSource;
  /** Its file's last modification, ms since the epoch (0 when unknown). */
  modified: number;
  /** The shortest prefix of its id (at least 8 characters) no other session of its source has. */
  shortId: string;
}

/**
 * For each id, its shortest prefix of at least `min` characters, not ending in `-`, that no
 * other id shares (`prefixBeside` its neighbours in id order).
 */
export function uniquePrefixes(ids: readonly string[], min = 8): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const prefixes = new Map<string, string>();
  sorted.forEach((id, index) => {
    const neighbours = [sorted[index - 1] ?? null, sorted[index + 1] ?? null];
    prefixes.set(id, prefixBeside(id, neighbours, min));
  });
  return prefixes;
}

/** A stat taken synchronously (less than a trip to Deno's I/O thread), or undefined. */
function statOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(path);
  } catch {
    return undefined;
  }
}

function modifiedOf(path: string): number {
  return statOrUndefined(path)?.mtime?.getTime() ?? 0;
}

/** A session a walk found, with its files' last write (ms since the epoch, 0 unknown). */
export interface WalkedFiles extends SessionFiles {
  /** The last write of its files (its own and its subagents'). */
  modified: number;
}

/**
 * The sessions of a source as a walk just found them (the catalog's update), or undefined for
 * a source to walk.
 */
export type WalkedSources = (source: SearchSource) => readonly WalkedFiles[] | undefined;

/**
 * Every session of the sources, most recently written first (a session's subagents count:
 * the newest of its files). Only names are read, and each file stat'ed; a source `walked`
 * gives (the catalog's update walked it just before) is not walked again.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sessionsOf } from "./mod.ts";
 *
 * const source = { format: "codex", root: "/nowhere", flags: [] };
 * const walked = [{ id: "019c8a4c-0000-7000", path: "/nowhere/a.jsonl", subagents: [], project: null, modified: 5 }];
 * const [session] = await sessionsOf([source], () => walked);
 * assert.deepEqual(session, { ...walked[0], source, shortId: "019c8a4c" });
 * ```
 */
export async function sessionsOf(
  sources: readonly SearchSource[],
  walked?: WalkedSources,
): Promise<SourcedSession[]> {
  const all: SourcedSession[] = [];
  for (const source of sources) {
    let found: readonly WalkedFiles[] | undefined = walked?.(source);
    if (found === undefined) {
      const walking: WalkedFiles[] = [];
      for await (const session of searchProfile(source.format).walk(source.root)) {
        const times = [session.path, ...session.subagents].map(modifiedOf);
        walking.push({ ...session, modified: Math.max(...times) });
      }
      found = walking;
    }
    const prefixes = uniquePrefixes(found.map((session) => session.id));
    for (const session of found) {
      all.push({ ...session, source, shortId: prefixes.get(session.id) ?? session.id });
    }
  }
  return all.sort((a, b) => b.modified - a.modified || b.path.localeCompare(a.path));
}
