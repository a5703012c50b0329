/**
 * Where a command looks for sessions: turnlog's own store or another tool's sessions root,
 * told from a folder's names or from a tool's default home, and the finder and lister of the
 * foreign ones behind one call each (each asked of the root's adapter).
 *
 * @module
 */
import { join } from "../_path.ts";
import {
  firstDatedFile,
  type ForeignListing,
  type FoundSession,
  type ListOptions,
  type SessionsRoot,
} from "./_find.ts";
import { HomeUnsetError } from "../errors/mod.ts";
import type { FormatAdapter } from "./_adapter.ts";
import type { Env } from "./_find.ts";
import { dirEntries } from "./_head.ts";
import { type ForeignFormat, type SessionFormat, TURNLOG_FORMAT } from "./_types.ts";
import { adapterFor, adapterOf, ADAPTERS, turnlogAdapter } from "./registry.ts";

/** A sessions root and the tool whose sessions it holds. */
export interface SessionSource {
  /** Which tool's sessions the root holds. */
  format: SessionFormat;
  /** The root folder. */
  root: string;
}

/** Another tool's sessions root (a Codex sessions root, a Claude Code projects root). */
export interface ForeignSource extends SessionSource {
  /** Which tool's sessions the root holds. */
  format: ForeignFormat;
}

/** What a command was told about where sessions are. */
export interface SourceOptions {
  /** A folder: turnlog's store, or another tool's sessions root or home. */
  sessionsDir?: string | undefined;
  /**
   * A tool whose default home to use, by its format's name (`codex`: `$CODEX_HOME/sessions`,
   * else `~/.codex/sessions`; see each adapter's `home`).
   */
  home?: ForeignFormat | undefined;
  /** The environment the homes come from (injectable for tests). @default {Deno.env} */
  env?: Env;
}

/**
 * The foreign source the options name: a tool's default home, or a folder that holds a tool's
 * sessions; undefined when they name turnlog's own store (or nothing).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { foreignSource } from "./mod.ts";
 * const env = { get: (name: string) => (name === "CODEX_HOME" ? "/x/.codex" : undefined) };
 * assert.deepEqual(await foreignSource({ home: "codex", env }), {
 *   format: "codex",
 *   root: "/x/.codex/sessions",
 * });
 * ```
 */
export async function foreignSource(options: SourceOptions): Promise<ForeignSource | undefined> {
  const env = options.env ?? Deno.env;
  if (options.home !== undefined) {
    const adapter = adapterFor(options.home);
    return { format: adapter.name, root: adapter.home.root(env) };
  }
  if (options.sessionsDir === undefined) return undefined;
  const found = await foreignRootOf(options.sessionsDir);
  return found && { format: found.adapter.name, root: found.root };
}

/**
 * The other tool whose sessions a folder holds (its home, or its sessions root), as its
 * adapter and sessions root, from names alone; undefined for turnlog's store or a folder no
 * adapter claims.
 */
export async function foreignRootOf(
  dir: string,
): Promise<{ adapter: FormatAdapter; root: string } | undefined> {
  const found = await detectSessionsRoot(dir);
  const adapter = found && adapterOf(found.format);
  return found && adapter && !adapter.own ? { adapter, root: found.root } : undefined;
}

/** Whether a folder is turnlog's own store: date folders of turnlog session files. */
async function turnlogRoot(dir: string): Promise<boolean> {
  const first = await firstDatedFile(dir);
  return first !== undefined &&
    (turnlogAdapter.namesFile(first) || !ADAPTERS.some((a) => a.namesFile(first)));
}

/**
 * Which tool's sessions a folder holds, from names alone: turnlog's store (date folders of
 * turnlog files), else the first adapter that claims it (Codex: date folders of
 * `rollout-*.jsonl`; Claude Code: project folders of `<id>.jsonl`). A tool's home (`~/.codex`,
 * `~/.claude`) resolves to its sessions root.
 */
export async function detectSessionsRoot(dir: string): Promise<SessionsRoot | undefined> {
  const entries = await dirEntries(dir);
  const names = new Set(entries.filter((e) => e.isDirectory).map((e) => e.name));
  // A home: the folder of it that holds the sessions, for the tools that keep them there.
  const insides = [...new Set(ADAPTERS.map((adapter) => adapter.home.inside))];
  for (const inside of insides.filter((name) => names.has(name))) {
    const inner = await detectSessionsRoot(join(dir, inside));
    const owners = ADAPTERS.filter((adapter) => adapter.home.inside === inside);
    const own = inner && (owners.some((a) => a.name === inner.format) ||
      (inside === "sessions" && inner.format === TURNLOG_FORMAT));
    if (own) return inner;
  }
  if (await turnlogRoot(dir)) return { format: TURNLOG_FORMAT, root: dir };
  for (const adapter of ADAPTERS) {
    if (await adapter.claimsRoot(dir)) return { format: adapter.name, root: dir };
  }
  return undefined;
}

/**
 * Finds a session of another tool's root by id or unique prefix, from names alone.
 *
 * @throws {SessionNotFoundError} when no session matches
 * @throws {AmbiguousSessionError} when several match
 * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
 */
export function findForeignSession(
  source: ForeignSource,
  idOrPrefix: string,
): Promise<FoundSession> {
  return adapterFor(source.format).find(source.root, idOrPrefix);
}

/** Lists another tool's root's newest sessions with a preview each. */
export function listForeignSessions(
  source: ForeignSource,
  options: ListOptions = {},
): Promise<ForeignListing> {
  return adapterFor(source.format).list(source.root, options);
}

/** The homes {@linkcode homeRoots} found, and those it could not (HOME unset). */
export interface HomeRoots {
  /** Each adapter whose home the environment names, with its sessions root. */
  found: { adapter: FormatAdapter; root: string }[];
  /** The adapters whose home nothing names (HOME and their own variable unset). */
  unset: FormatAdapter[];
}

/**
 * The sessions roots of `adapters`' homes as `env` names them; a home nothing names (HOME
 * unset, and the tool's own variable too) is in `unset`, never looked for in the current
 * folder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ADAPTERS, homeRoots } from "./mod.ts";
 * const env = { get: (name: string) => (name === "CODEX_HOME" ? "/x/.codex" : undefined) };
 * const { found, unset } = homeRoots(ADAPTERS, env);
 * assert.deepEqual(found.map((home) => home.root), ["/x/.codex/sessions"]);
 * assert.equal(unset.length, ADAPTERS.length - 1);
 * ```
 */
export function homeRoots(adapters: readonly FormatAdapter[], env: Env): HomeRoots {
  const found: HomeRoots["found"] = [];
  const unset: FormatAdapter[] = [];
  for (const adapter of adapters) {
    try {
      found.push({ adapter, root: adapter.home.root(env) });
    } catch (error) {
      if (!(error instanceof HomeUnsetError)) throw error;
      unset.push(adapter);
    }
  }
  return { found, unset };
}

/**
 * The error for homes nothing names: one line naming each tool's own variable and HOME.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ADAPTERS, homesUnsetError } from "./mod.ts";
 * assert.match(homesUnsetError(ADAPTERS).message, /^HOME is unset, so nothing names Codex's, /);
 * ```
 */
export function homesUnsetError(adapters: readonly FormatAdapter[]): HomeUnsetError {
  const owners = adapters.map((adapter) => `${adapter.shortTool}'s`);
  const what = owners.length === 1
    ? `${owners[0]} home`
    : `${owners.slice(0, -1).join(", ")} and ${owners.at(-1)} homes`;
  const variables = [...new Set(adapters.flatMap((adapter) => adapter.home.variables))];
  // HOME, which names every one of them, last.
  return new HomeUnsetError(what, [...variables.filter((v) => v !== "HOME"), "HOME"]);
}
