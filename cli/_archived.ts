/**
 * The sessions only in the archive, for `inspect`: their view's root of a format (to list
 * them beside the home's), and a session found there when its home has it no more.
 *
 * @module
 */
import { archivedViews } from "../src/archive/mod.ts";
import { adapterOfData, type SessionAdapter, type SessionFormat } from "../src/formats/mod.ts";
import { findSession } from "../src/store/mod.ts";
import { errorKind } from "../src/errors/mod.ts";

/** The root of a format's sessions only in the archive, or undefined. */
export async function archivedRootOf(format: string): Promise<string | undefined> {
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
  for (const view of await archivedViews()) {
    if (format !== undefined && view.format !== format) continue;
    const adapter = adapterOfData({ format: view.format as SessionFormat });
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
