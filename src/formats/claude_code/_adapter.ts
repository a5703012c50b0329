/**
 * The Claude Code adapter: everything turnlog knows about Claude Code transcripts, in one
 * object.
 *
 * @module
 */
import { claudeRetention } from "./_retention.ts";
import { basename, dirname, join } from "../../_path.ts";
import { plural } from "../../text/mod.ts";
import type { FormatAdapter } from "../_adapter.ts";
import { claudeCodeWords } from "./_home.ts";
import { claudeEdits } from "./_edits.ts";
import { dirEntries } from "../_head.ts";
import { str } from "../_line.ts";
import type { ForeignFacts } from "../_types.ts";
import { analyzeClaude, claudeFindings } from "./_check.ts";
import { claudeCodeFactsOf } from "./_facts.ts";
import { findClaudeSession, listClaudeSessions, previewClaudeSession } from "./_find.ts";
import { CLAUDE_LINES } from "./_lines.ts";
import { isLocalCommand } from "./_local.ts";
import { claudeCodeSearch } from "./_search.ts";
import { readClaudeTranscript } from "./_transcript.ts";
import { CLAUDE_PROVIDER, claudeUsage } from "./_usage.ts";
import { ClaudeFollower } from "./_follow.ts";
import { claudeCodeResume } from "./_resume.ts";
import { late } from "../../_late.ts";
import { claudeRelocation } from "./_relocate.ts";

export { claudeProjectsRoot } from "./_home.ts";

const CONVERSATION = new Set(["user", "assistant", "system", "progress", "attachment"]);
const METADATA = new Set([
  "summary",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
  "permission-mode",
  "custom-title",
]);
const UUID_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

/** How a transcript was read: the branch, what the walk back met, what was passed over. */
function claudeNotes(facts: ForeignFacts): string[] {
  const claude = claudeCodeFactsOf(facts);
  if (claude === null) return [];
  const notes: string[] = [];
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
  for (const swap of claude.modelSwaps) {
    notes.push(
      `line ${swap.line}: model swap: ${swap.requestedModel ?? "the session's model"} ` +
        `asked for, ${swap.effectiveModel ?? "another model"} used${
          swap.content === null ? "" : ` (${swap.content})`
        }`,
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
    const of = claude.parentSessionId ? ` of session ${claude.parentSessionId}` : "";
    notes.push(`a subagent's transcript (agent ${claude.agentId}${of})`);
  }
  return notes;
}

/** Whether a folder holds project folders of transcripts (`<project>/<id>.jsonl`). */
async function holdsProjects(dir: string): Promise<boolean> {
  const folders = (await dirEntries(dir)).filter((e) => e.isDirectory).map((e) => e.name).sort();
  for (const name of folders) {
    const files = await dirEntries(join(dir, name));
    if (files.some((e) => e.isFile && e.name.endsWith(".jsonl"))) return true;
  }
  return false;
}

/**
 * The repair's modules and the writer's, loaded when a repair is planned or a session written
 * (src/_late.ts): a read or a check loads neither.
 */
const repairModule = () => late<typeof import("./_repair.ts")>("./_repair.ts", import.meta.url);
const writerModule = () => late<typeof import("./_writer.ts")>("./_writer.ts", import.meta.url);

/** Claude Code transcripts: `$CLAUDE_CONFIG_DIR/projects/<project>/<session id>.jsonl`. */
export const claudeCodeAdapter: FormatAdapter<"claude-code"> = {
  ...claudeCodeWords,
  listing: { time: "modified" },
  lines: CLAUDE_LINES,
  search: claudeCodeSearch,
  judgeLine(value) {
    const type = str(value, "type") ?? "";
    if (CONVERSATION.has(type) && ("uuid" in value || "sessionId" in value)) {
      return { metadata: false, evidence: `a Claude Code ${type} line` };
    }
    if (METADATA.has(type)) return { metadata: true, evidence: `a Claude Code ${type} line` };
    return undefined;
  },
  namesFile: (path) =>
    UUID_NAME.test(basename(path)) || /^agent-[0-9A-Za-z_-]+\.jsonl$/.test(basename(path)) ||
    basename(dirname(path)).startsWith("-"),
  claimsRoot: holdsProjects,
  idFromName(path) {
    const stem = basename(path).replace(/\.jsonl$/, "");
    return /^[0-9A-Za-z][0-9A-Za-z_-]*$/.test(stem) ? stem : null;
  },
  read: (path, sizeBytes, options) => readClaudeTranscript(path, sizeBytes, options),
  usage: claudeUsage,
  priceProvider: CLAUDE_PROVIDER,
  follow: (path) => new ClaudeFollower(path),
  resume: claudeCodeResume,
  find: findClaudeSession,
  list: listClaudeSessions,
  preview: previewClaudeSession,
  notes: claudeNotes,
  retention: claudeRetention,
  check: async (path, sizeBytes) => claudeFindings(path, await analyzeClaude(path, sizeBytes)),
  edits: claudeEdits,
  localOnly: isLocalCommand,
  planRepair: async (path, sizeBytes) => (await repairModule()).planClaudeRepair(path, sizeBytes),
  write: async (conversation, options) =>
    (await writerModule()).writeClaudeTranscript(conversation, options),
  passesOverBadLines: true,
  relocate: claudeRelocation,
};
