/**
 * A Codex home and a Claude Code home as those tools leave them on disk, written from the
 * project's own fixtures: `<home>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` and
 * `<home>/projects/<project>/<id>.jsonl` (with subagents, an empty file and a metadata-only
 * one), for the tests, the notebook and trying the CLI.
 *
 * @module
 */
import { join } from "node:path";
import { CODEX_SESSION_ID } from "./codex_builder.ts";
import { codexCompaction, codexOrphans, codexTurnIds } from "./codex_fixtures.ts";
import { claudeCompaction, claudeForks, writeClaudeProject } from "./claude_fixtures.ts";
import { CLAUDE_SESSION_ID } from "./claude_builder.ts";

/** A rollout of a Codex home. */
export interface CodexHomeSession {
  /** The session id (a UUIDv7, in the file name). */
  id: string;
  /** The rollout's path. */
  path: string;
  /** The fixture it holds. */
  fixture: "turn_ids" | "orphans" | "compaction";
}

/** The rollouts of {@linkcode writeCodexHome}, oldest first. */
export const CODEX_HOME_SESSIONS = [
  {
    id: "019c8a4c-ed82-79a1-aa28-7738fc5ab61a",
    name: "2026/02/23/rollout-2026-02-23T12-40-23-",
    fixture: "turn_ids",
  },
  {
    id: "019c8a70-dda7-7f33-98ea-f30553347322",
    name: "2026/02/23/rollout-2026-02-23T13-19-38-",
    fixture: "orphans",
  },
  {
    id: "019c8bfe-ec25-79e0-97d7-bda6a9c575ff",
    name: "2026/02/24/rollout-2026-02-24T20-34-25-",
    fixture: "compaction",
  },
] as const;

const CODEX_TEXTS = { turn_ids: codexTurnIds, orphans: codexOrphans, compaction: codexCompaction };

/**
 * Writes a Codex home under `home`: three rollouts in their day folders (each its own session
 * id), oldest first in the returned list.
 */
export async function writeCodexHome(home: string): Promise<CodexHomeSession[]> {
  const written: CodexHomeSession[] = [];
  for (const { id, name, fixture } of CODEX_HOME_SESSIONS) {
    const path = join(home, "sessions", `${name}${id}.jsonl`);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, CODEX_TEXTS[fixture]().replaceAll(CODEX_SESSION_ID, id));
    written.push({ id, path, fixture });
  }
  return written;
}

/** The transcripts of {@linkcode writeClaudeHome}. */
export interface ClaudeHome {
  /** The projects root. */
  projects: string;
  /** The session that ran a subagent (project `-work-project`). */
  session: string;
  /** Its id. */
  sessionId: string;
  /** A transcript with forks, an orphan output and an orphan call. */
  forks: string;
  /** A transcript with two compactions. */
  compaction: string;
  /** An empty transcript. */
  empty: string;
  /** A transcript of titles and file-history lines only. */
  metadataOnly: string;
}

/** The ids of the extra transcripts of {@linkcode writeClaudeHome}. */
export const CLAUDE_HOME_IDS = {
  forks: "5f0e1d2c-0000-4000-8000-000000000002",
  compaction: "6a7b8c9d-0000-4000-8000-000000000003",
} as const;

/**
 * Writes a Claude Code home under `home`: the project folder of `writeClaudeProject` (a
 * session with subagents, an empty and a metadata-only file) and a second project holding a
 * transcript with forks and one with compactions, each written after the first project.
 */
export async function writeClaudeHome(home: string): Promise<ClaudeHome> {
  const projects = join(home, "projects");
  const project = await writeClaudeProject(projects);
  const other = join(projects, "-work-other");
  await Deno.mkdir(other, { recursive: true });
  const forks = join(other, `${CLAUDE_HOME_IDS.forks}.jsonl`);
  const compaction = join(other, `${CLAUDE_HOME_IDS.compaction}.jsonl`);
  await Deno.writeTextFile(forks, claudeForks());
  await Deno.writeTextFile(compaction, claudeCompaction());
  // Modification times order a Claude listing: the compaction is the newest.
  const base = Date.UTC(2026, 1, 23, 12, 0, 0) / 1000;
  const times: [string, number][] = [
    [project.session, base],
    [project.empty, base + 60],
    [project.metadataOnly, base + 120],
    [forks, base + 180],
    [compaction, base + 240],
  ];
  for (const [path, seconds] of times) await Deno.utime(path, seconds, seconds);
  return {
    projects,
    session: project.session,
    sessionId: CLAUDE_SESSION_ID,
    forks,
    compaction,
    empty: project.empty,
    metadataOnly: project.metadataOnly,
  };
}
