/**
 * Links a Claude Code session to its subagents' transcripts: new-style files under
 * `<session id>/subagents/`, and old-style `agent-<id>.jsonl` files beside the session that
 * the session names or whose first line carries its session id.
 *
 * @module
 */
import { basename, dirname, join } from "../../_path.ts";
import type { SubagentLink } from "../_types.ts";

const AGENT_FILE = /^agent-([0-9A-Za-z_-]+)\.jsonl$/;

/** How many old-style agent files a link reads the head of, at most. */
const MAX_HEADS = 2000;
const HEAD_BYTES = 16 * 1024;

async function namesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile) names.push(entry.name);
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return [];
    }
    throw error;
  }
  return names.sort();
}

/** The session id on an agent file's first line, read from its first bytes only. */
async function headSessionId(path: string): Promise<string | undefined> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(HEAD_BYTES);
  const read = await file.read(buffer);
  if (read === null) return undefined;
  const text = new TextDecoder().decode(buffer.subarray(0, read));
  const firstLine = text.split("\n", 1)[0] ?? "";
  return /"sessionId"\s*:\s*"([^"]+)"/.exec(firstLine)?.[1];
}

/**
 * The subagent transcripts of the session at `path`. `agentIds` are the agent ids the session
 * names, with the line naming each; a file that is itself an agent's transcript has none.
 */
export async function findSubagents(
  path: string,
  sessionId: string | null,
  agentIds: ReadonlyMap<string, number>,
): Promise<SubagentLink[]> {
  const dir = dirname(path);
  const stem = basename(path).replace(/\.jsonl$/, "");
  if (AGENT_FILE.test(basename(path))) return [];
  const links: SubagentLink[] = [];
  const folder = join(dir, stem, "subagents");
  for (const name of await namesIn(folder)) {
    const agentId = AGENT_FILE.exec(name)?.[1];
    if (agentId === undefined) continue;
    links.push({
      path: join(folder, name),
      agentId,
      style: "folder",
      line: agentIds.get(agentId) ?? null,
    });
  }
  let heads = 0;
  for (const name of await namesIn(dir)) {
    const agentId = AGENT_FILE.exec(name)?.[1];
    if (agentId === undefined) continue;
    const named = agentIds.has(agentId);
    if (!named) {
      if (sessionId === null || heads++ >= MAX_HEADS) continue;
      if (await headSessionId(join(dir, name)) !== sessionId) continue;
    }
    links.push({
      path: join(dir, name),
      agentId,
      style: "sidecar",
      line: agentIds.get(agentId) ?? null,
    });
  }
  return links;
}
