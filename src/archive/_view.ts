/**
 * The archive's view: the sessions whose original file is gone, at their latest version, laid
 * out under `view/<format>/` as their home had them, so that every reader (`inspect`,
 * `search`, `serve`, `import`) reads them through the format's own adapter, streaming, as any
 * other home. It is a cache: made again from the archive when missing, emptied of a session
 * whose original is back; the archive's chunks stay the truth.
 *
 * @module
 */
import { dirname, join, relative, resolve, sep } from "node:path";
import { readChunk } from "./_chunks.ts";
import { makePrivateDir, writeWhole } from "./_durable.ts";
import { type ArchivedFile, readIndex } from "./_index.ts";
import { archiveLayout, resolveArchiveRoot } from "./_layout.ts";
import { listArchived } from "./_sessions.ts";

/** A sessions root of the view: the gone sessions of one format. */
export interface ArchiveView {
  /** Their format (`turnlog`, or an adapter's name). */
  format: string;
  /** The root, laid out as the format's home. */
  root: string;
}

async function* filesUnder(dir: string): AsyncIterable<string> {
  let entries: Deno.DirEntry[] = [];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* filesUnder(path);
    else if (entry.isFile) yield path;
  }
}

/**
 * The view's record of which version each of its files holds (`<path under the view>` to the
 * version's sha256), written whole after them: a newer version of the same size (a rewrite in
 * place) is told by its hash, where the file's size alone could not tell it.
 */
const VERSIONS = ".versions.json";

async function readVersions(view: string): Promise<Map<string, string>> {
  try {
    const kept = JSON.parse(await Deno.readTextFile(join(view, VERSIONS)));
    if (typeof kept === "object" && kept !== null && !Array.isArray(kept)) {
      return new Map(
        Object.entries(kept).filter((entry): entry is [string, string] =>
          typeof entry[1] === "string"
        ),
      );
    }
  } catch (error) {
    // A record missing or torn: every file of the view is written again.
    if (!(error instanceof Deno.errors.NotFound) && !(error instanceof SyntaxError)) throw error;
  }
  return new Map();
}

/**
 * Brings the view of the archive at `from` up to date: each gone session's latest files
 * written (whole: a temp renamed) where missing, of another size or of another version than
 * the view's record says, the files of sessions whose original is back taken out; returns the
 * view's roots.
 */
export async function refreshView(from: string): Promise<ArchiveView[]> {
  const layout = archiveLayout(resolve(from));
  const wanted = new Map<string, ArchivedFile>();
  for (const { session, present } of await listArchived(await readIndex(layout))) {
    if (present) continue;
    for (const file of [session.versions.at(-1)!, ...session.subagents]) {
      wanted.set(join(layout.view, file.format, ...file.rel.split("/")), file);
    }
  }
  const tmp = join(layout.view, ".tmp");
  const record = join(layout.view, VERSIONS);
  const kept = await readVersions(layout.view);
  const versions = new Map<string, string>();
  let written = false;
  for (const [path, file] of wanted) {
    const name = relative(layout.view, path);
    versions.set(name, file.sha256);
    const size = await Deno.stat(path).then((info) => info.size, () => -1);
    if (size === file.size && kept.get(name) === file.sha256) continue;
    await makePrivateDir(dirname(path));
    await makePrivateDir(tmp);
    await Deno.remove(path).catch(() => {});
    const parts: Uint8Array[] = [];
    for (const chunk of file.chunks) parts.push(await readChunk(layout, chunk));
    await writeWhole(path, parts, tmp);
    written = true;
  }
  for await (const path of filesUnder(layout.view)) {
    if (!wanted.has(path) && path !== record && !path.startsWith(tmp + sep)) {
      await Deno.remove(path);
    }
  }
  if (written || versions.size !== kept.size) {
    await makePrivateDir(tmp);
    const text = JSON.stringify(Object.fromEntries(versions));
    await writeWhole(record, [new TextEncoder().encode(text)], tmp);
  }
  return viewRoots(layout.view, wanted.values());
}

function viewRoots(view: string, files: Iterable<ArchivedFile>): ArchiveView[] {
  const formats = new Set<string>();
  for (const file of files) formats.add(file.format);
  return [...formats].sort().map((format) => ({ format, root: join(view, format) }));
}

/** The view's roots as they are on disk (for a reader that may not write). */
async function viewOnDisk(view: string): Promise<ArchiveView[]> {
  const roots: ArchiveView[] = [];
  try {
    for await (const entry of Deno.readDir(view)) {
      if (entry.isDirectory && !entry.name.startsWith(".")) {
        roots.push({ format: entry.name, root: join(view, entry.name) });
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return roots.sort((a, b) => a.format.localeCompare(b.format));
}

/**
 * The roots of the sessions only in the archive (`from`, else the default archive), for the
 * readers: none when there is no archive; the view brought up to date when this process may
 * write it, else the view as the last run left it.
 */
export async function archivedViews(from?: string): Promise<ArchiveView[]> {
  let root: string;
  try {
    root = resolveArchiveRoot(from);
  } catch {
    return [];
  }
  const layout = archiveLayout(root);
  const index = await Deno.stat(layout.index).then((info) => info.isDirectory, () => false);
  if (!index) return [];
  const writable = Deno.permissions.querySync({ name: "write", path: layout.view }).state;
  if (writable !== "granted") return await viewOnDisk(layout.view);
  try {
    return await refreshView(root);
  } catch (error) {
    if (error instanceof Deno.errors.PermissionDenied) return await viewOnDisk(layout.view);
    throw error;
  }
}
