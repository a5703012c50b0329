/**
 * Where the session browser looks: turnlog's store and other tools' homes (each an adapter of
 * the formats registry and its sessions root), read-only for the homes. A session is found by
 * id or unique prefix across all of them, from names alone (the store's and each adapter's
 * `find`); what a full read told about a file (its turns, its health) is kept while the file
 * stays as it was.
 *
 * @module
 */
import { resolve } from "node:path";
import {
  ADAPTERS,
  type Env,
  type FormatAdapter,
  type FoundSession,
  homeRoots,
  homesUnsetError,
} from "../formats/mod.ts";
import { homeSourceAt, type SearchSource, storeSource } from "../search/mod.ts";
import {
  AmbiguousSessionError,
  type SessionLocation,
  SessionNotFoundError,
  type SessionStore,
} from "../store/mod.ts";

/** Another tool's home the browser shows, read-only: its adapter and its sessions root. */
export interface BrowseHome {
  /** The tool's adapter (its words, its finder, its lister, its reader). */
  adapter: FormatAdapter;
  /** Its sessions root (`~/.codex/sessions`, `~/.claude/projects`). */
  root: string;
  /**
   * The root is the archive's view of the tool's sessions whose original is gone: the list
   * and their pages say they are only in the archive. @default false
   */
  archived?: boolean;
}

/**
 * The tool a home's sessions are shown under: "Claude Code (only in the archive)" for the
 * archive's view.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { browseHomes, homeTool } from "./mod.ts";
 * const env = { get: (name: string) => (name === "HOME" ? "/home/u" : undefined) };
 * const [codex] = browseHomes(env, ["codex"]);
 * assert.equal(homeTool(codex!), "Codex CLI");
 * assert.equal(homeTool({ ...codex!, archived: true }), "Codex CLI (only in the archive)");
 * ```
 */
export function homeTool(home: BrowseHome): string {
  return home.archived ? `${home.adapter.tool} (only in the archive)` : home.adapter.tool;
}

/**
 * What serve says of a home when it starts: its sessions are only read, and, when it is the home
 * "Continue in…" writes that tool's new sessions into (the one `env` names), that it does.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { browseHomes, homeStartLine } from "./mod.ts";
 * const env = { get: (name: string) => (name === "HOME" ? "/home/u" : undefined) };
 * const [codex] = browseHomes(env, ["codex"]);
 * assert.equal(
 *   homeStartLine(codex!, env),
 *   "Codex CLI: /home/u/.codex/sessions (its sessions only read; Continue in Codex writes new ones here)",
 * );
 * assert.equal(
 *   homeStartLine({ ...codex!, root: "/copy/sessions" }, env),
 *   "Codex CLI: /copy/sessions (its sessions only read)",
 * );
 * ```
 */
export function homeStartLine(home: BrowseHome, env: Env): string {
  const { adapter, root } = home;
  let target: string | undefined;
  try {
    target = adapter.home.root(env);
  } catch {
    target = undefined;
  }
  const writes = !home.archived && target !== undefined && resolve(target) === resolve(root);
  return `${homeTool(home)}: ${root} (its sessions only read${
    writes ? `; Continue in ${adapter.shortTool} writes new ones here` : ""
  })`;
}

/**
 * The homes to browse: each adapter's home as the environment names it (the same discovery
 * as `inspect --codex/--claude`), only those whose flags are in `flags` when it names any.
 *
 * @throws {HomeUnsetError} when nothing names a home (HOME unset): never the current folder
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { browseHomes } from "./mod.ts";
 * const env = { get: (name: string) => (name === "HOME" ? "/home/u" : undefined) };
 * assert.equal(browseHomes(env).length >= 2, true);
 * assert.deepEqual(browseHomes(env, ["codex"]).map((h) => h.root), ["/home/u/.codex/sessions"]);
 * ```
 */
export function browseHomes(env: Env, flags: readonly string[] = []): BrowseHome[] {
  const chosen = flags.length === 0 ? ADAPTERS : ADAPTERS.filter((a) => flags.includes(a.flag));
  const { found, unset } = homeRoots(chosen, env);
  if (unset.length > 0) throw homesUnsetError(unset);
  return found;
}

/**
 * The search sources of a browser's places: its store (its folder's files, or the open store
 * itself when it has none, a database) and the homes.
 */
export function searchSourcesOf(
  store: SessionStore,
  homes: readonly BrowseHome[],
): SearchSource[] {
  const own = store.folder === undefined
    ? { ...storeSource(store.name, ["--store"]), store }
    : storeSource(store.folder, ["--sessions-dir"]);
  return [
    own,
    ...homes.map((home): SearchSource =>
      home.archived
        ? {
          format: home.adapter.name,
          root: home.root,
          flags: ["--sessions-dir", home.root],
          archived: true,
        }
        : homeSourceAt(home.adapter, home.root)
    ),
  ];
}

/** A session the browser found: in turnlog's store, or in a home (read-only). */
export type Located =
  | { kind: "store"; id: string; location: SessionLocation }
  | { kind: "home"; id: string; home: BrowseHome; found: FoundSession };

/** The sessions a place has for `raw`: one found, the candidates of an ambiguous prefix, or none. */
async function matchesOf(
  find: () => Promise<Located>,
  candidates: (location: SessionLocation) => Located,
): Promise<Located[]> {
  try {
    return [await find()];
  } catch (error) {
    if (error instanceof SessionNotFoundError) return [];
    if (error instanceof AmbiguousSessionError) return error.candidates.map(candidates);
    throw error;
  }
}

/**
 * Finds a session by id or unique prefix in the store and every home at once, from names
 * alone. An id found whole wins over prefixes elsewhere.
 *
 * @throws {InvalidSessionIdError} when `raw` is not a plain id
 * @throws {SessionNotFoundError} when no place has it
 * @throws {AmbiguousSessionError} when the prefix matches several sessions, anywhere
 */
export async function locateAnywhere(
  store: SessionStore,
  homes: readonly BrowseHome[],
  raw: string,
): Promise<Located> {
  const inStore = matchesOf(
    async () => {
      const location = await store.find(raw);
      return { kind: "store", id: location.id, location };
    },
    (location) => ({ kind: "store", id: location.id, location }),
  );
  const inHomes = homes.map((home) =>
    matchesOf(
      async () => {
        const found = await home.adapter.find(home.root, raw);
        return { kind: "home", id: found.id, home, found };
      },
      (location) => ({
        kind: "home",
        id: location.id,
        home,
        found: foundOf(home.adapter, location),
      }),
    )
  );
  const all = (await Promise.all([inStore, ...inHomes])).flat();
  const whole = all.filter((match) => match.id.toLowerCase() === raw.toLowerCase());
  if (whole.length === 1) return whole[0]!;
  if (all.length === 1) return all[0]!;
  if (all.length === 0) throw new SessionNotFoundError(raw, placesInWords(store, homes));
  throw new AmbiguousSessionError(raw, all.map(locationOf));
}

/** An ambiguous prefix's candidate in a home, as a found session (its size unknown yet). */
function foundOf(adapter: FormatAdapter, location: SessionLocation): FoundSession {
  return {
    format: adapter.name,
    id: location.id,
    path: location.path,
    created: location.createdAt || null,
    modified: null,
    sizeBytes: 0,
    project: null,
  };
}

function locationOf(match: Located): SessionLocation {
  if (match.kind === "store") return match.location;
  const { found } = match;
  return { id: found.id, path: found.path, createdAt: found.created ?? found.modified ?? "" };
}

function placesInWords(store: SessionStore, homes: readonly BrowseHome[]): string {
  return [store.name, ...homes.map((home) => home.root)].join(", ");
}

/** What a full read of a session file told: its turns and whether it is healthy. */
export interface SessionFacts {
  /** Turns, as the inspector counts them. */
  turns: number;
  /** The inspector's verdict. */
  healthy: boolean;
}

/** The facts of files as a full read told them, each kept while its file keeps its size. */
export class FactsMemo {
  readonly #byPath = new Map<string, { sizeBytes: number; facts: SessionFacts }>();

  /** The facts of `path` at `sizeBytes`, or undefined when no read of that size told them. */
  get(path: string, sizeBytes: number): SessionFacts | undefined {
    const kept = this.#byPath.get(path);
    return kept?.sizeBytes === sizeBytes ? kept.facts : undefined;
  }

  /** Keeps what a read of `path` at `sizeBytes` told. */
  set(path: string, sizeBytes: number, facts: SessionFacts): void {
    this.#byPath.set(path, { sizeBytes, facts });
  }

  readonly #queued = new Set<string>();
  #running: Promise<void> = Promise.resolve();

  /**
   * Reads the files whose facts are unknown, one at a time, after the caller has answered
   * (`read` tells a file's facts and the size it read); a file that cannot be read is left
   * unknown. Nothing is read once `signal` aborts.
   */
  readLater(
    files: readonly { path: string; sizeBytes: number }[],
    read: (path: string) => Promise<SessionFacts & { sizeBytes: number }>,
    signal?: AbortSignal,
  ): void {
    for (const file of files) {
      if (this.get(file.path, file.sizeBytes) !== undefined || this.#queued.has(file.path)) {
        continue;
      }
      this.#queued.add(file.path);
      this.#running = this.#running.then(async () => {
        try {
          if (signal?.aborted) return;
          const { sizeBytes, ...facts } = await read(file.path);
          this.set(file.path, sizeBytes, facts);
        } catch {
          // Gone, unreadable, or not a session: the list keeps saying "not checked yet".
        } finally {
          this.#queued.delete(file.path);
        }
      });
    }
  }

  /** Resolves once every file queued so far has been read. */
  idle(): Promise<void> {
    return this.#running;
  }
}
