/**
 * The file store's layout: `<root>/YYYY/MM/DD/<time>-<id>.jsonl`. A session id is a UUIDv7, so
 * its leading digits name the date folders that can hold its file, and every listing walks the
 * date folders newest first from their names alone.
 *
 * @module
 */
import { basename, dirname, join } from "../_path.ts";
import { HomeUnsetError } from "../errors/mod.ts";

/** The environment variable that overrides the default sessions root. */
export const SESSIONS_DIR_ENV = "TURNLOG_SESSIONS_DIR";

/** Where a session's file is, as its name tells. */
export interface SessionLocation {
  /** The session id. */
  id: string;
  /** The session file's path; in a database store, `<store's name>#<id>`. */
  path: string;
  /** Creation time, ISO 8601, from the file name. */
  createdAt: string;
}

/**
 * Set by the installed `turnlog` command (the npm package's launcher) to how it is run
 * (`turnlog`, `npx turnlog`): its sessions then live in the user's data folder, never in the
 * current one.
 */
export const INSTALLED_ENV = "TURNLOG_INSTALLED";

/** How the installed command is run (`turnlog`), or undefined in a checkout. */
export function installedCommand(): string | undefined {
  return readEnv(INSTALLED_ENV);
}

/** A variable, or undefined when it is unset, empty or may not be read. */
function readEnv(variable: string): string | undefined {
  const state = Deno.permissions.querySync({ name: "env", variable }).state;
  return state === "granted" ? Deno.env.get(variable) || undefined : undefined;
}

/**
 * The user's sessions folder: `$XDG_DATA_HOME/turnlog/sessions`, else
 * `~/.local/share/turnlog/sessions` (`%LOCALAPPDATA%\turnlog\sessions` on Windows).
 *
 * @throws {HomeUnsetError} when none of them is set: never the current folder
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { userSessionsRoot } from "./mod.ts";
 * assert.equal(userSessionsRoot({ HOME: "/home/ada" }), "/home/ada/.local/share/turnlog/sessions");
 * ```
 */
export function userSessionsRoot(
  env: Readonly<Record<string, string | undefined>> = {
    XDG_DATA_HOME: readEnv("XDG_DATA_HOME"),
    HOME: readEnv("HOME"),
    LOCALAPPDATA: readEnv("LOCALAPPDATA"),
  },
): string {
  const data = env.XDG_DATA_HOME || (env.HOME ? join(env.HOME, ".local", "share") : undefined) ||
    env.LOCALAPPDATA;
  if (data === undefined) {
    throw new HomeUnsetError("the sessions folder", [SESSIONS_DIR_ENV, "XDG_DATA_HOME", "HOME"]);
  }
  return join(data, "turnlog", "sessions");
}

/**
 * The sessions root: the explicit one (a `--sessions-dir` flag), else `TURNLOG_SESSIONS_DIR`,
 * else, for the installed command, {@linkcode userSessionsRoot}, else `./sessions` (a
 * checkout's). An empty value counts as unset.
 */
export function resolveSessionsRoot(explicit?: string): string {
  return explicit || Deno.env.get(SESSIONS_DIR_ENV) ||
    (installedCommand() ? userSessionsRoot() : "sessions");
}

const FILE_NAME =
  /^(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z)-([0-9A-Za-z][0-9A-Za-z_-]*)\.jsonl$/;

/** `2026-11-30T02:48:20.123Z` written as `2026-11-30T02-48-20-123Z`, safe in any file system. */
function fileTime(time: Date): string {
  return time.toISOString().replace(/[:.]/g, "-");
}

function parseFileTime(text: string): string {
  const [date, rest] = text.split("T") as [string, string];
  const [h, m, s, ms] = rest.slice(0, -1).split("-");
  return `${date}T${h}:${m}:${s}.${ms}Z`;
}

/** Parses a session file name, or returns undefined for any other file. */
export function parseSessionFileName(name: string, dir: string): SessionLocation | undefined {
  const match = FILE_NAME.exec(name);
  if (!match) return undefined;
  return { id: match[2]!, path: join(dir, name), createdAt: parseFileTime(match[1]!) };
}

/** The path of a session file from its id and creation time. */
export function sessionFilePath(root: string, id: string, createdAt: Date): string {
  const iso = createdAt.toISOString();
  return join(
    root,
    iso.slice(0, 4),
    iso.slice(5, 7),
    iso.slice(8, 10),
    `${fileTime(createdAt)}-${id}.jsonl`,
  );
}

/** The UTC time span one date folder covers: a year, a month or a day. */
function folderSpan(year: number, month?: number, day?: number): { from: number; to: number } {
  if (month === undefined) return { from: Date.UTC(year, 0, 1), to: Date.UTC(year + 1, 0, 1) - 1 };
  if (day === undefined) {
    return { from: Date.UTC(year, month - 1, 1), to: Date.UTC(year, month, 1) - 1 };
  }
  return { from: Date.UTC(year, month - 1, day), to: Date.UTC(year, month - 1, day + 1) - 1 };
}

async function numberedDirs(dir: string, digits: number): Promise<number[]> {
  const pattern = new RegExp(`^\\d{${digits}}$`);
  const found: number[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory && pattern.test(entry.name)) found.push(Number(entry.name));
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return found.sort((a, b) => b - a);
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * Yields the day folders of the store, newest first, skipping every folder whose time span
 * cannot hold a session created within `range`.
 */
export async function* dayFolders(
  root: string,
  range?: { from: number; to: number },
): AsyncGenerator<string> {
  const overlaps = (span: { from: number; to: number }) =>
    !range || (span.from <= range.to && span.to >= range.from);
  for (const year of await numberedDirs(root, 4)) {
    if (!overlaps(folderSpan(year))) continue;
    const yearDir = join(root, String(year));
    for (const month of await numberedDirs(yearDir, 2)) {
      if (!overlaps(folderSpan(year, month))) continue;
      const monthDir = join(yearDir, pad(month));
      for (const day of await numberedDirs(monthDir, 2)) {
        if (overlaps(folderSpan(year, month, day))) yield join(monthDir, pad(day));
      }
    }
  }
}

/** The session files of one day folder, newest first, from their names. */
export async function sessionsIn(dir: string): Promise<SessionLocation[]> {
  const found: SessionLocation[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const location = parseSessionFileName(entry.name, dir);
      if (location) found.push(location);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return found.sort((
    a,
    b,
  ) => (a.createdAt === b.createdAt
    ? b.id.localeCompare(a.id)
    : b.createdAt.localeCompare(a.createdAt))
  );
}

/**
 * Yields every session of the store, newest first, from folder and file names alone.
 */
export async function* walkSessions(root: string): AsyncGenerator<SessionLocation> {
  for await (const dir of dayFolders(root)) yield* await sessionsIn(dir);
}

/**
 * The sessions root a session file's path implies: `<root>/YYYY/MM/DD/<time>-<id>.jsonl`,
 * or undefined when the path does not have that shape.
 */
export function impliedSessionsRoot(path: string): string | undefined {
  const location = parseSessionFileName(basename(path), dirname(path));
  if (!location) return undefined;
  const day = dirname(path);
  const [y, m, d] = location.createdAt.slice(0, 10).split("-");
  if (basename(day) !== d || basename(dirname(day)) !== m) return undefined;
  if (basename(dirname(dirname(day))) !== y) return undefined;
  return dirname(dirname(dirname(day)));
}
