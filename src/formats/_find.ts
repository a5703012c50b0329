/**
 * What finding and listing sessions where other tools keep them share: the listed session's
 * shape, the default homes, the head reader for previews, and which kind of root a folder is.
 *
 * @module
 */
import { join } from "node:path";
import { dirEntries } from "./_head.ts";
import type { ForeignFormat, SessionFormat } from "./_types.ts";

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
  /** Claude Code's project folder (the working directory with `/` as `-`), else null. */
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
}

/** Reads `env` the way Deno's environment does (injectable for tests). */
export type Env = { get(name: string): string | undefined };

function home(env: Env): string {
  return env.get("HOME") ?? env.get("USERPROFILE") ?? ".";
}

/** Codex's sessions root: `$CODEX_HOME/sessions`, else `~/.codex/sessions`. */
export function codexSessionsRoot(env: Env = Deno.env): string {
  return join(env.get("CODEX_HOME") ?? join(home(env), ".codex"), "sessions");
}

/** Claude Code's projects root: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function claudeProjectsRoot(env: Env = Deno.env): string {
  return join(env.get("CLAUDE_CONFIG_DIR") ?? join(home(env), ".claude"), "projects");
}

/** A folder recognised as a sessions root, and the root to use (a home resolves to its root). */
export interface SessionsRoot {
  /** Which tool's sessions the folder holds. */
  format: SessionFormat;
  /** The sessions root to use. */
  root: string;
}

async function dayFolderFormat(root: string): Promise<SessionFormat | undefined> {
  const sorted = async (dir: string, digits: number) =>
    (await dirEntries(dir)).filter((e) =>
      e.isDirectory && new RegExp(`^\\d{${digits}}$`).test(e.name)
    )
      .map((e) => e.name).sort().reverse();
  for (const year of await sorted(root, 4)) {
    for (const month of await sorted(join(root, year), 2)) {
      for (const day of await sorted(join(root, year, month), 2)) {
        for (const entry of await dirEntries(join(root, year, month, day))) {
          if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
          return entry.name.startsWith("rollout-") ? "codex" : "turnlog";
        }
      }
    }
  }
  return undefined;
}

/**
 * Which tool's sessions a folder holds, from names alone: date folders of `rollout-*.jsonl`
 * (Codex), date folders of turnlog files, or project folders of `<id>.jsonl` (Claude Code).
 * A tool's home (`~/.codex`, `~/.claude`) resolves to its sessions root.
 */
export async function detectSessionsRoot(dir: string): Promise<SessionsRoot | undefined> {
  const entries = await dirEntries(dir);
  const names = new Set(entries.filter((e) => e.isDirectory).map((e) => e.name));
  if (names.has("sessions")) {
    const inner = await detectSessionsRoot(join(dir, "sessions"));
    if (inner) return inner;
  }
  if (names.has("projects")) {
    const inner = await detectSessionsRoot(join(dir, "projects"));
    if (inner?.format === "claude-code") return inner;
  }
  if ([...names].some((name) => /^\d{4}$/.test(name))) {
    const format = await dayFolderFormat(dir);
    if (format) return { format, root: dir };
  }
  for (const name of [...names].sort()) {
    const files = await dirEntries(join(dir, name));
    if (files.some((e) => e.isFile && e.name.endsWith(".jsonl"))) {
      return { format: "claude-code", root: dir };
    }
  }
  return undefined;
}
