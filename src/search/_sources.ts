/**
 * Where a search looks: turnlog's store and the Codex and Claude Code homes (the tools' own
 * variables, else the usual folders under `HOME`), or only the ones a command names; and every
 * session under them, most recently written first.
 *
 * @module
 */
import {
  claudeProjectsRoot,
  codexSessionsRoot,
  detectSessionsRoot,
  type Env,
  type SessionFormat,
} from "../formats/mod.ts";
import { TurnlogError } from "../errors/mod.ts";
import { isPostgresUrl, resolveStoreSpec } from "../store/mod.ts";
import type { SessionFiles } from "./_profile.ts";
import { SEARCH_PROFILES } from "./_profiles.ts";

/** A folder of sessions of one format, and the flags that name it to other commands. */
export interface SearchSource {
  /** The format of its sessions. */
  format: SessionFormat;
  /** The sessions root. */
  root: string;
  /** The flags that name this root to `inspect` and `import` (none: the default store). */
  flags: string[];
}

/** What a command named as the places to search; nothing named means all of them. */
export interface SourceChoice {
  /** Codex's home: `$CODEX_HOME/sessions`, else `~/.codex/sessions`. */
  codex?: boolean | undefined;
  /** Claude Code's: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
  claude?: boolean | undefined;
  /** Folders: turnlog stores, Codex or Claude Code roots or homes (told from their names). */
  sessionsDirs?: readonly string[] | undefined;
  /** turnlog's store: a sessions folder. */
  store?: string | undefined;
  /** The environment the homes come from. @default {Deno.env} */
  env?: Env;
}

/** A named folder that is not there. */
export class NoSuchSourceError extends TurnlogError {
  /** An error naming the folder. */
  constructor(dir: string, options?: ErrorOptions) {
    super("not_found", `No such folder: ${dir}`, options);
    this.name = "NoSuchSourceError";
  }
}

async function folderSource(dir: string, flag: string): Promise<SearchSource> {
  const info = await Deno.stat(dir).catch(() => undefined);
  if (!info?.isDirectory) throw new NoSuchSourceError(dir);
  const found = await detectSessionsRoot(dir);
  return { format: found?.format ?? "turnlog", root: found?.root ?? dir, flags: [flag, dir] };
}

function storeSource(spec: string, flags: string[]): SearchSource {
  if (isPostgresUrl(spec)) {
    throw new TurnlogError(
      "usage",
      "search reads a sessions folder: bring the database's sessions out with inspect --export",
    );
  }
  return { format: "turnlog", root: spec, flags };
}

/**
 * The sources a choice names: with nothing named, turnlog's store (`TURNLOG_STORE`, else
 * `TURNLOG_SESSIONS_DIR`, else `./sessions`), Codex's home and Claude Code's.
 *
 * @throws {NoSuchSourceError} for a named folder that is not there
 */
export async function searchSources(choice: SourceChoice = {}): Promise<SearchSource[]> {
  const env = choice.env ?? Deno.env;
  const codex: SearchSource = { format: "codex", root: codexSessionsRoot(env), flags: ["--codex"] };
  const claude: SearchSource = {
    format: "claude-code",
    root: claudeProjectsRoot(env),
    flags: ["--claude"],
  };
  const dirs = choice.sessionsDirs ?? [];
  const named = choice.codex || choice.claude || dirs.length > 0 || choice.store !== undefined;
  // A database named by TURNLOG_STORE stays in the list: the search says it is left out.
  if (!named) return [{ format: "turnlog", root: resolveStoreSpec(), flags: [] }, codex, claude];
  const sources: SearchSource[] = [];
  if (choice.store !== undefined) {
    sources.push(storeSource(choice.store, ["--store", choice.store]));
  }
  for (const dir of dirs) sources.push(await folderSource(dir, "--sessions-dir"));
  if (choice.codex) sources.push(codex);
  if (choice.claude) sources.push(claude);
  return sources;
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

/** For each id, its shortest prefix of at least `min` characters that no other id shares. */
export function uniquePrefixes(ids: readonly string[], min = 8): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const common = (a: string | undefined, b: string) => {
    if (a === undefined) return 0;
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  };
  const prefixes = new Map<string, string>();
  sorted.forEach((id, index) => {
    const shared = Math.max(common(sorted[index - 1], id), common(sorted[index + 1], id));
    prefixes.set(id, id.slice(0, Math.max(min, shared + 1)));
  });
  return prefixes;
}

async function modifiedOf(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}

/**
 * Every session of the sources, most recently written first (a session's subagents count:
 * the newest of its files). Only names are read, and each file stat'ed.
 */
export async function sessionsOf(sources: readonly SearchSource[]): Promise<SourcedSession[]> {
  const all: SourcedSession[] = [];
  for (const source of sources) {
    const found: SessionFiles[] = [];
    for await (const session of SEARCH_PROFILES[source.format].walk(source.root)) {
      found.push(session);
    }
    const prefixes = uniquePrefixes(found.map((session) => session.id));
    for (const session of found) {
      const times = await Promise.all([session.path, ...session.subagents].map(modifiedOf));
      all.push({
        ...session,
        source,
        modified: Math.max(...times),
        shortId: prefixes.get(session.id) ?? session.id,
      });
    }
  }
  return all.sort((a, b) => b.modified - a.modified || b.path.localeCompare(a.path));
}
