/**
 * Where a command looks for sessions: turnlog's own store, a Codex sessions root or a Claude
 * Code projects root, told from a folder's names or from the tools' default homes, and the
 * finder and lister of the foreign ones behind one call each.
 *
 * @module
 */
import { findClaudeSession, listClaudeSessions } from "./claude_code/_find.ts";
import { findCodexSession, listCodexSessions } from "./codex/_find.ts";
import {
  claudeProjectsRoot,
  codexSessionsRoot,
  detectSessionsRoot,
  type Env,
  type ForeignListing,
  type FoundSession,
  type ListOptions,
} from "./_find.ts";
import type { ForeignFormat, SessionFormat } from "./_types.ts";

/** A sessions root and the tool whose sessions it holds. */
export interface SessionSource {
  /** Which tool's sessions the root holds. */
  format: SessionFormat;
  /** The root folder. */
  root: string;
}

/** A Codex sessions root or a Claude Code projects root. */
export interface ForeignSource extends SessionSource {
  /** Which tool's sessions the root holds. */
  format: ForeignFormat;
}

/** What a command was told about where sessions are. */
export interface SourceOptions {
  /** A folder: turnlog's store, a Codex sessions root or home, a Claude Code projects root or home. */
  sessionsDir?: string | undefined;
  /** Codex's default home: `$CODEX_HOME/sessions`, else `~/.codex/sessions`. */
  codex?: boolean | undefined;
  /** Claude Code's default home: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
  claude?: boolean | undefined;
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
 * assert.deepEqual(await foreignSource({ codex: true, env }), {
 *   format: "codex",
 *   root: "/x/.codex/sessions",
 * });
 * ```
 */
export async function foreignSource(options: SourceOptions): Promise<ForeignSource | undefined> {
  const env = options.env ?? Deno.env;
  if (options.codex) return { format: "codex", root: codexSessionsRoot(env) };
  if (options.claude) return { format: "claude-code", root: claudeProjectsRoot(env) };
  if (options.sessionsDir === undefined) return undefined;
  const found = await detectSessionsRoot(options.sessionsDir);
  return found && found.format !== "turnlog"
    ? { format: found.format, root: found.root }
    : undefined;
}

/**
 * Finds a session of a Codex or Claude Code root by id or unique prefix, from names alone.
 *
 * @throws {SessionNotFoundError} when no session matches
 * @throws {AmbiguousSessionError} when several match
 * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
 */
export function findForeignSession(
  source: ForeignSource,
  idOrPrefix: string,
): Promise<FoundSession> {
  return source.format === "codex"
    ? findCodexSession(source.root, idOrPrefix)
    : findClaudeSession(source.root, idOrPrefix);
}

/** Lists a Codex or Claude Code root's newest sessions with a preview each. */
export function listForeignSessions(
  source: ForeignSource,
  options: ListOptions = {},
): Promise<ForeignListing> {
  return source.format === "codex"
    ? listCodexSessions(source.root, options)
    : listClaudeSessions(source.root, options);
}
