/**
 * The temp files a repair writes beside a session file before renaming one over it: their
 * names, and their removal when an interrupted repair left one behind.
 *
 * @module
 */
import { basename, dirname, join } from "../_path.ts";

/** A new temp file name for a repair of `path`, beside it: `.<name>.repair-<uuid>.tmp`. */
export function repairTempPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.repair-${crypto.randomUUID()}.tmp`);
}

/** The temp files a repair of `path` writes beside it (see {@linkcode repairTempPath}). */
export function repairTempPattern(path: string): RegExp {
  const name = basename(path).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\.${name}\\.repair-[0-9a-f-]+\\.tmp$`);
}

/**
 * Removes the temp files an interrupted repair left beside `path`. Called under the file's
 * lock, which every repair holds while its temp file exists: any such file is stale.
 */
export async function removeStaleRepairFiles(path: string): Promise<void> {
  const pattern = repairTempPattern(path);
  for await (const entry of Deno.readDir(dirname(path))) {
    if (entry.isFile && pattern.test(entry.name)) {
      await Deno.remove(join(dirname(path), entry.name)).catch(() => {});
    }
  }
}
