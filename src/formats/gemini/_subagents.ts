/**
 * A Gemini CLI session's subagents: their sessions are `chats/<parent session id>/<id>.jsonl`
 * beside the parent's file.
 *
 * @module
 */
import { basename, dirname, join } from "../../_path.ts";
import { dirEntries } from "../_head.ts";
import type { SubagentLink } from "../_types.ts";

/** The subagent sessions of the session `sessionId` whose file is at `path`. */
export async function subagentsOf(path: string, sessionId: string): Promise<SubagentLink[]> {
  const folder = join(dirname(path), sessionId);
  return (await dirEntries(folder))
    .filter((entry) => entry.isFile && entry.name.endsWith(".jsonl"))
    .map((entry) => entry.name).sort()
    .map((name) => ({
      path: join(folder, name),
      agentId: name.replace(/\.jsonl$/, ""),
      style: "folder" as const,
      line: null,
    }));
}

/** The parent session id of a subagent's session file (`chats/<parent id>/<id>.jsonl`), or null. */
export function parentOf(path: string): string | null {
  const folder = dirname(path);
  return basename(dirname(folder)) === "chats" ? basename(folder) : null;
}

/** The project a session file is of: the path `.project_root` beside `chats/` holds, else null. */
export async function projectRootOf(path: string): Promise<string | null> {
  const chats = basename(dirname(path)) === "chats" ? dirname(path) : dirname(dirname(path));
  try {
    return (await Deno.readTextFile(join(dirname(chats), ".project_root"))).trim() || null;
  } catch {
    return null;
  }
}
