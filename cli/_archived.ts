/**
 * The sessions only in the archive, for `inspect`: their view's root of a format (to list
 * them beside the home's), and a session found there when its home has it no more. Without an
 * archive, asking costs a `stat`: the archive's code loads only when there is one.
 *
 * @module
 */
import type { SessionAdapter } from "../src/formats/mod.ts";
// The archive's layout alone, not its face: a listing where no archive is loads none of it.
import { archiveLayout, resolveArchiveRoot } from "../src/archive/_layout.ts";
import { basename, dirname } from "../src/_path.ts";
import { archiveModule, formatsModule, storeModule } from "./_late_modules.ts";

/**
 * Whether the archive has an index: else it holds no session. Asked synchronously (less than
 * the trip to Deno's I/O thread and back; every listing of a home asks), and where there is
 * none, from its parent folder's entries: Deno makes an error of a `stat` of a path not there,
 * and a process's first costs about 1 ms.
 */
function hasArchive(): boolean {
  const { root, index } = archiveLayout(resolveArchiveRoot());
  const name = basename(root);
  try {
    for (const entry of Deno.readDirSync(dirname(root))) {
      if (entry.name !== name) continue;
      return (entry.isDirectory || entry.isSymlink) && Deno.statSync(index).isDirectory;
    }
    return false;
  } catch {
    return false;
  }
}

/** The root of a format's sessions only in the archive, or undefined. */
export async function archivedRootOf(format: string): Promise<string | undefined> {
  if (!hasArchive()) return undefined;
  const { archivedViews } = await archiveModule();
  return (await archivedViews()).find((view) => view.format === format)?.root;
}

/** A session found only in the archive: its file in the view, and the root it is under. */
export interface ArchivedFind {
  path: string;
  root: string;
  format: string;
  /** The adapter of its format (the archive's index names the format as data). */
  adapter: SessionAdapter;
}

/**
 * The session an id or prefix names among those only in the archive (of `format` alone when
 * given), or undefined when none is there.
 */
export async function findArchivedSession(
  target: string,
  format?: string,
): Promise<ArchivedFind | undefined> {
  if (!hasArchive()) return undefined;
  const { archivedViews } = await archiveModule();
  const { adapterOfData } = await formatsModule();
  const { findSession } = await storeModule();
  const { errorKind } = await import("../src/errors/mod.ts");
  for (const view of await archivedViews()) {
    if (format !== undefined && view.format !== format) continue;
    const adapter = adapterOfData({ format: view.format as SessionAdapter["name"] });
    try {
      const path = adapter.own
        ? (await findSession(view.root, target)).path
        : (await adapter.find(view.root, target)).path;
      return { path, root: view.root, format: view.format, adapter };
    } catch (error) {
      if (errorKind(error) !== "not_found") throw error;
    }
  }
  return undefined;
}
