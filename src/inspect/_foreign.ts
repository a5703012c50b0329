/**
 * The inspector on another tool's file: a Codex rollout or a Claude Code transcript read by
 * its adapter (src/formats), its entries fed to the same segmenter as turnlog's own lines, and
 * the report completed with what the adapter knows (title, models, branch, tokens, forks,
 * subagents, how the file was read).
 *
 * @module
 */
import { basename } from "node:path";
import {
  type ForeignFacts,
  type ForeignFork,
  type ForeignFormat,
  parseRolloutName,
  previewClaudeSession,
  readForeignSession,
  type SessionValidation,
  type SubagentLink,
  validateSessionFile,
} from "../formats/mod.ts";
import { plural } from "../text/mod.ts";
import { type SegmentedSession, type SegmenterOptions, TurnSegmenter } from "./_segmenter.ts";
import type { InspectFork, InspectSubagent, SessionFacts, Turn } from "./_types.ts";

/** The number of the turn a line is in: the last turn starting at or before it. */
function turnAt(turns: readonly Turn[], line: number | null): number | null {
  if (line === null) return null;
  let found: number | null = null;
  for (const turn of turns) {
    if (turn.startLine > line) break;
    found = turn.index;
  }
  return found;
}

const FORK_WORDS: Record<ForeignFork["kind"], string> = {
  rewind: "a rewind (another prompt)",
  retry: "a retry (another answer)",
  local_command: "a local command",
  sidechain: "a sidechain",
  separate_root: "a separate conversation",
  other: "a branch",
};

function forkOf(fork: ForeignFork, turns: readonly Turn[]): InspectFork {
  const range = fork.firstLine === fork.lastLine
    ? `line ${fork.firstLine}`
    : `lines ${fork.firstLine}-${fork.lastLine}`;
  return {
    id: fork.uuid ?? `line-${fork.firstLine}`,
    kind: fork.kind,
    line: fork.firstLine,
    lastLine: fork.lastLine,
    fromLine: fork.fromLine,
    turn: turnAt(turns, fork.fromLine),
    lines: fork.lines,
    messages: fork.messages,
    title: `${FORK_WORDS[fork.kind]}: ${fork.messages} ${
      fork.messages === 1 ? "message" : "messages"
    } on ${range}`,
  };
}

/** The subagent's task: the first prompt of its transcript's head, or null. */
async function subagentTitle(link: SubagentLink): Promise<string | null> {
  try {
    const listed = await previewClaudeSession({
      format: "claude-code",
      id: link.agentId ?? basename(link.path),
      path: link.path,
      created: null,
      modified: null,
      sizeBytes: 0,
      project: null,
    });
    return listed.preview;
  } catch {
    return null;
  }
}

async function subagentOf(link: SubagentLink, turns: readonly Turn[]): Promise<InspectSubagent> {
  return {
    id: link.agentId ?? basename(link.path).replace(/\.jsonl$/, ""),
    path: link.path,
    style: link.style,
    line: link.line,
    turn: turnAt(turns, link.line),
    title: await subagentTitle(link),
  };
}

const TURN_MARKERS: Record<string, string> = {
  task_events: "turns from task_started and task_complete events",
  turn_context: "turns from the turn ids of turn_context lines (no task events)",
  user_message: "turns from user_message events (no task events, no turn ids)",
  none: "no turn markers in the file",
};

/** How the file was read, for a person. */
function notesOf(facts: ForeignFacts): string[] {
  const notes: string[] = [];
  const { codex, claudeCode: claude } = facts;
  if (codex) {
    notes.push(TURN_MARKERS[codex.turnMarkers] ?? codex.turnMarkers);
    if (codex.forkedFromId) notes.push(`forked from session ${codex.forkedFromId}`);
    for (const rollback of codex.rollbacks) {
      notes.push(
        `line ${rollback.line}: ${
          plural(rollback.turns, "turn")
        } rolled back (they stay in the records)`,
      );
    }
  }
  if (claude) {
    if (claude.leafLine !== null) {
      notes.push(`the conversation is the branch walked back from line ${claude.leafLine}`);
    }
    if (claude.cycleLine !== null) {
      notes.push(`line ${claude.cycleLine}: a cycle of parent links stops the walk back`);
    }
    if (claude.danglingParentLine !== null) {
      notes.push(`line ${claude.danglingParentLine}: its parent is not in the file`);
    }
    for (const join of claude.boundaryJoins) {
      notes.push(
        `line ${join.line}: the compaction's logical parent is not in the file; the ` +
          `conversation before it (back from line ${join.continuesLine}) is its past, in file order`,
      );
    }
    if (claude.supersededLines > 0) {
      notes.push(`${plural(claude.supersededLines, "line")} repeated by a resume passed over`);
    }
    if (claude.sideLines > 0) {
      notes.push(`${plural(claude.sideLines, "hook or progress line")} off the branch not shown`);
    }
    if (claude.turnEnds === "final_answer") {
      notes.push("turns end at a final answer (no turn_duration lines)");
    }
    if (claude.agentId !== null) {
      notes.push(
        `a subagent's transcript (agent ${claude.agentId}${
          claude.parentSessionId ? ` of session ${claude.parentSessionId}` : ""
        })`,
      );
    }
  }
  if (facts.sessionIds.length > 1) {
    notes.push(`its lines carry ${facts.sessionIds.length} session ids (resumed or forked)`);
  }
  return notes;
}

/** Notes shown at most for the validator's findings; the rest are counted. */
const CHECK_NOTES = 5;

/** What the format's validator finds beyond bad lines (those are problems already), as notes. */
function checkNotes(validation: SessionValidation): string[] {
  const tool = validation.format === "codex" ? "Codex" : "Claude Code";
  const found = validation.findings.filter((finding) => finding.kind !== "bad_line");
  const notes = found.slice(0, CHECK_NOTES).map((finding) =>
    `${tool}'s check, line ${finding.line}: ${
      finding.message.slice(`${validation.path}:${finding.line}: `.length)
    }`
  );
  if (found.length > CHECK_NOTES) {
    notes.push(
      `${plural(found.length - CHECK_NOTES, "more such line")} (inspect --repair lists them)`,
    );
  }
  return notes;
}

/** The id a file's name gives when the file itself names none (an empty file). */
function idFromName(path: string, format: ForeignFormat): string | null {
  const name = basename(path);
  if (format === "codex") return parseRolloutName(name, ".")?.id ?? null;
  const stem = name.replace(/\.jsonl$/, "");
  return /^[0-9A-Za-z][0-9A-Za-z_-]*$/.test(stem) ? stem : null;
}

function sessionOf(segmented: SegmentedSession, facts: ForeignFacts): SessionFacts {
  const session = segmented.session;
  return {
    ...session,
    id: facts.sessionId ?? session.id ?? idFromName(facts.path, facts.format as ForeignFormat),
    format: facts.format,
    state: facts.state,
    lines: facts.lines,
    title: facts.title,
    firstPrompt: facts.firstPrompt ?? session.firstPrompt,
    models: facts.models.length > 0 ? facts.models : session.models,
    cwd: facts.cwd ?? session.cwd,
    gitBranch: facts.gitBranch,
    created: facts.created ?? session.created,
    updated: facts.updated ?? session.updated,
    toolVersion: facts.version,
    approvalSource: facts.approval.source,
    tokens: facts.tokens,
    notes: notesOf(facts),
  };
}

/**
 * Reads another tool's session file with its adapter and segments its entries as the
 * inspector segments a turnlog file: records and problems with their lines, the things
 * turnlog's model cannot hold counted in their turns. The format's validator runs too: what it
 * finds is noted, and a file it does not pass is not healthy.
 */
export async function inspectForeignFile(
  path: string,
  format: ForeignFormat,
  options: SegmenterOptions = {},
): Promise<SegmentedSession> {
  const session = readForeignSession(path, format);
  const segmenter = new TurnSegmenter(path, options);
  for await (const entry of session) {
    if (entry.record) segmenter.push({ line: entry.line, record: entry.record }, entry);
    else if (entry.problem) segmenter.push({ line: entry.line, problem: entry.problem }, entry);
    else segmenter.ignore(entry.line, entry.ignored);
  }
  const facts = session.facts;
  const segmented = segmenter.finish({ sizeBytes: facts.sizeBytes, state: facts.state });
  const subagents: InspectSubagent[] = [];
  for (const link of facts.subagents) subagents.push(await subagentOf(link, segmented.turns));
  const validation = await validateSessionFile(path, format);
  const about = sessionOf(segmented, facts);
  return {
    ...segmented,
    healthy: segmented.healthy && validation.valid,
    session: { ...about, notes: [...about.notes, ...checkNotes(validation)] },
    forks: facts.forks.map((fork) => forkOf(fork, segmented.turns)),
    subagents,
  };
}
