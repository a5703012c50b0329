/**
 * The example sessions a checkout ships (listed in its sessions folder's `examples.json`) are
 * never written by the commands the docs show: continuing one continues a copy, in a
 * workspace of the example's files in the sessions folder, and the example stays as shipped.
 *
 * @module
 */
import { join } from "node:path";
import { forkSession } from "../src/resume/mod.ts";
import type { SessionStore } from "../src/store/mod.ts";
import { visible } from "../src/text/mod.ts";
import { writeDemoWorkspace } from "./_demo_workspace.ts";
import type { Write } from "./_output.ts";

/** The folder, in a sessions folder, that the copies of its examples work in. */
export const EXAMPLES_WORKSPACE = "examples-workspace";

/** Whether the session `id` is one the sessions folder ships (its `examples.json` lists it). */
export async function isShippedExample(folder: string, id: string): Promise<boolean> {
  let index: unknown;
  try {
    index = JSON.parse(await Deno.readTextFile(join(folder, "examples.json")));
  } catch {
    return false;
  }
  const sessions = (index as { sessions?: unknown })?.sessions;
  return Array.isArray(sessions) &&
    sessions.some((entry) => (entry as { id?: unknown })?.id === id);
}

/**
 * The session a turn continues, when `id` is a shipped example: a copy of it (every turn) made
 * now, working in `<folder>/examples-workspace` (the example's files, written when missing)
 * unless `workspace` names another; said on one line. Undefined when `id` is no example.
 */
export async function copyOfExample(
  store: SessionStore,
  id: string,
  options: { workspace: string | undefined; write: Write | undefined },
): Promise<{ sessionId: string; workspace: string } | undefined> {
  const folder = store.folder;
  if (folder === undefined || !(await isShippedExample(folder, id))) return undefined;
  let workspace = options.workspace;
  if (workspace === undefined) {
    workspace = join(folder, EXAMPLES_WORKSPACE);
    const made = await Deno.stat(workspace).then(() => true, () => false);
    if (!made) await writeDemoWorkspace(workspace);
  }
  const copy = await forkSession(id, { store, cwd: workspace });
  options.write?.(
    `Session ${visible(id)} is an example shipped with turnlog: continued as a copy, ` +
      `session ${visible(copy.meta.id)}; the example is unchanged\n`,
  );
  return { sessionId: copy.meta.id, workspace };
}
