/**
 * The Codex CLI adapter: everything turnlog knows about Codex rollouts, in one object.
 *
 * @module
 */
import { basename } from "../../_path.ts";
import { plural } from "../../text/mod.ts";
import type { FormatAdapter } from "../_adapter.ts";
import { codexWords } from "./_home.ts";
import { codexEdits } from "./_edits.ts";
import { firstDatedFile } from "../_find.ts";
import { type Json, obj, str } from "../_line.ts";
import type { ForeignFacts } from "../_types.ts";
import { analyzeCodex, codexFindings } from "./_check.ts";
import { codexFactsOf } from "./_facts.ts";
import {
  findCodexSession,
  listCodexSessions,
  parseRolloutName,
  previewCodexSession,
  readCodexInstructions,
} from "./_find.ts";
import { CODEX_LINES } from "./_lines.ts";
import { codexSearch } from "./_search.ts";
import { readCodexRollout } from "./_reader.ts";
import { CODEX_PROVIDER, codexUsage } from "./_usage.ts";
import { CodexFollower } from "./_follow.ts";
import { codexResume } from "./_resume.ts";
import { late } from "../../_late.ts";
import { codexRelocation } from "./_relocate.ts";

export { codexSessionsRoot } from "./_home.ts";

const TYPES = new Set(["session_meta", "turn_context", "response_item", "event_msg", "compacted"]);

function codexShape(type: string, payload: Json): boolean {
  switch (type) {
    case "session_meta":
      return "cli_version" in payload || "originator" in payload ||
        (typeof payload.id === "string" && typeof payload.timestamp === "string");
    case "turn_context":
      return "approval_policy" in payload || "sandbox_policy" in payload || "turn_id" in payload;
    case "response_item":
      return Array.isArray(payload.content) || typeof payload.call_id === "string" ||
        payload.type === "reasoning" || payload.type === "web_search_call";
    default:
      return true;
  }
}

const TURN_MARKERS: Record<string, string> = {
  task_events: "turns from task_started and task_complete events",
  turn_context: "turns from the turn ids of turn_context lines (no task events)",
  user_message: "turns from user_message events (no task events, no turn ids)",
  none: "no turn markers in the file",
};

/** How a rollout was read: what marked its turns, its fork, its rollbacks. */
function codexNotes(facts: ForeignFacts): string[] {
  const codex = codexFactsOf(facts);
  if (codex === null) return [];
  const notes = [TURN_MARKERS[codex.turnMarkers] ?? codex.turnMarkers];
  if (codex.forkedFromId) notes.push(`forked from session ${codex.forkedFromId}`);
  const inherited = codex.inherited;
  if (inherited !== null) {
    for (const source of inherited.sources) {
      notes.push(
        `${
          plural(source.lines, "line")
        } of history read from session ${source.threadId} (${source.path})`,
      );
    }
    if (inherited.missing !== null) {
      notes.push(
        `history before ordinal ${
          inherited.endOrdinalExclusive ?? "?"
        } not read: ${inherited.missing}; only what this file holds is shown`,
      );
    }
  }
  for (const rollback of codex.rollbacks) {
    notes.push(
      `line ${rollback.line}: ${
        plural(rollback.turns, "turn")
      } rolled back (they stay in the records)`,
    );
  }
  return notes;
}

/**
 * The repair's modules and the writer's, loaded when a repair is planned or a session written
 * (src/_late.ts): a read or a check loads neither.
 */
const repairModule = () => late<typeof import("./_repair.ts")>("./_repair.ts", import.meta.url);
const writerModule = () => late<typeof import("./_writer.ts")>("./_writer.ts", import.meta.url);

/** Codex CLI rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`. */
export const codexAdapter: FormatAdapter<"codex"> = {
  ...codexWords,
  listing: { time: "created" },
  lines: CODEX_LINES,
  search: codexSearch,
  judgeLine(value) {
    const type = str(value, "type") ?? "";
    const payload = obj(value, "payload");
    if (!payload || typeof value.timestamp !== "string") return undefined;
    if (!TYPES.has(type) || !codexShape(type, payload)) return undefined;
    return { metadata: false, evidence: `a Codex ${type} line` };
  },
  namesFile: (path) => /^rollout-.*\.jsonl(?:\.zst)?$/.test(basename(path)),
  claimsRoot: async (dir) => (await firstDatedFile(dir))?.startsWith("rollout-") === true,
  idFromName: (path) => parseRolloutName(basename(path), ".")?.id ?? null,
  read: (path, sizeBytes, options) => readCodexRollout(path, sizeBytes, options),
  usage: codexUsage,
  priceProvider: CODEX_PROVIDER,
  // A compressed rollout (an archive's) is not written to: it has nothing to follow.
  follow: (path) => path.endsWith(".jsonl") ? new CodexFollower(path) : undefined,
  resume: codexResume,
  find: findCodexSession,
  list: listCodexSessions,
  preview: previewCodexSession,
  notes: codexNotes,
  check: async (path, sizeBytes) => codexFindings(path, await analyzeCodex(path, sizeBytes)),
  edits: codexEdits,
  planRepair: async (path, sizeBytes) => (await repairModule()).planCodexRepair(path, sizeBytes),
  instructions: readCodexInstructions,
  // Codex's resume answers a call its rollout left unanswered with this, in the request only.
  interruptedOutput: "aborted",
  write: async (conversation, options) =>
    (await writerModule()).writeCodexRollout(conversation, options),
  relocate: codexRelocation,
};
