/**
 * What the archive copies: turnlog's store (a sessions folder) and every adapter's home, each
 * walked from names alone by its own walk (a Claude Code session's subagent files with it).
 *
 * @module
 */
import { ADAPTERS, type Env, type SessionFiles, turnlogAdapter } from "../formats/mod.ts";
import { isPostgresUrl, resolveStoreSpec, walkSessions } from "../store/mod.ts";

/** A sessions root of one format and how to walk it. */
export interface ArchiveSource {
  /** The format of its sessions (`turnlog`, or an adapter's name). */
  format: string;
  /** The sessions root. */
  root: string;
  /** Every session under the root, from names alone. */
  walk(root: string): AsyncIterable<SessionFiles>;
}

async function* turnlogSessions(root: string): AsyncIterable<SessionFiles> {
  for await (const location of walkSessions(root)) {
    yield { id: location.id, path: location.path, subagents: [], project: null };
  }
}

/** turnlog's store as a source; undefined for a database store (it keeps its own copies). */
export function storeSource(spec: string = resolveStoreSpec()): ArchiveSource | undefined {
  if (isPostgresUrl(spec)) return undefined;
  return { format: turnlogAdapter.name, root: spec, walk: turnlogSessions };
}

/** What the archive should copy. */
export interface SourceOptions {
  /** turnlog's store, a folder or a database URL. @default {resolveStoreSpec()} */
  store?: string;
  /** Only these adapters' homes, by flag (`codex`), and not the store. */
  homes?: readonly string[];
  /** turnlog's store alone, no other tool's home. @default {false} */
  storeOnly?: boolean;
  /** The environment the homes come from. @default {Deno.env} */
  env?: Env;
}

/** The sources: turnlog's store and every adapter's home, or the named homes only. */
export function archiveSources(options: SourceOptions = {}): ArchiveSource[] {
  const env = options.env ?? Deno.env;
  const homes = options.homes ?? [];
  const sources: ArchiveSource[] = [];
  if (homes.length === 0) {
    const store = storeSource(options.store ?? resolveStoreSpec());
    if (store) sources.push(store);
  }
  for (const adapter of options.storeOnly ? [] : ADAPTERS) {
    if (homes.length > 0 && !homes.includes(adapter.flag)) continue;
    sources.push({
      format: adapter.name,
      root: adapter.home.root(env),
      walk: (root) => adapter.search.walk(root),
    });
  }
  return sources;
}
