/**
 * Where the archive is and how it is laid out: `chunks/<2 hex>/<sha256>.zst` (each a piece of
 * some file's bytes, zstd-compressed, named by the sha256 of the raw bytes), `index/*.jsonl`
 * (one segment a commit, each line a file's version: which chunks make it), `tmp/` (writes in
 * progress, renamed into place whole), `view/<format>/` (the latest bytes of sessions whose
 * original is gone, laid out as their home: a cache) and `lock`.
 *
 * @module
 */
import { dirname, join, relative, resolve } from "../_path.ts";
import { resolveSessionsRoot } from "../store/_layout.ts";

/** The environment variable that names the archive folder. */
export const ARCHIVE_ENV = "TURNLOG_ARCHIVE";

/** A variable, or undefined when it is unset, empty or may not be read. */
function readEnv(variable: string): string | undefined {
  const state = Deno.permissions.querySync({ name: "env", variable }).state;
  return state === "granted" ? Deno.env.get(variable) || undefined : undefined;
}

/**
 * The archive folder: the explicit one (`--to DIR`), else `TURNLOG_ARCHIVE`, else `archive`
 * beside turnlog's sessions folder (`~/.local/share/turnlog/archive` once installed,
 * `./archive` in a checkout).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveArchiveRoot } from "./mod.ts";
 * assert.equal(resolveArchiveRoot("/backups/turnlog"), "/backups/turnlog");
 * ```
 */
export function resolveArchiveRoot(explicit?: string): string {
  if (explicit) return resolve(explicit);
  return resolve(readEnv(ARCHIVE_ENV) ?? join(dirname(resolve(resolveSessionsRoot())), "archive"));
}

/** The archive's folders and files, from its root. */
export interface ArchiveLayout {
  root: string;
  chunks: string;
  index: string;
  tmp: string;
  view: string;
  lock: string;
}

/** The layout of the archive at `root`. */
export function archiveLayout(root: string): ArchiveLayout {
  return {
    root,
    chunks: join(root, "chunks"),
    index: join(root, "index"),
    tmp: join(root, "tmp"),
    view: join(root, "view"),
    lock: join(root, "lock"),
  };
}

/** The file of the chunk whose raw bytes hash to `sha256`. */
export function chunkPath(layout: ArchiveLayout, sha256: string): string {
  return join(layout.chunks, sha256.slice(0, 2), `${sha256}.zst`);
}

/**
 * Whether a path is inside the archive's view (a session only in the archive): here, with the
 * layout alone, so a command asking it loads none of the archive's writing (`node:crypto` and
 * `node:zlib`, about 60 ms of a process's start).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inArchiveView } from "./_layout.ts";
 * assert.equal(inArchiveView("/backups/turnlog/view/codex/a.jsonl", "/backups/turnlog"), true);
 * assert.equal(inArchiveView("/home/ada/.codex/sessions/a.jsonl", "/backups/turnlog"), false);
 * ```
 */
export function inArchiveView(path: string, from?: string): boolean {
  try {
    const view = archiveLayout(resolveArchiveRoot(from)).view;
    const rel = relative(view, resolve(path));
    return rel !== "" && !rel.startsWith("..");
  } catch {
    return false;
  }
}
