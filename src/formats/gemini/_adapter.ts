/**
 * The Gemini CLI adapter: everything turnlog knows about Gemini CLI session files, in one
 * object.
 *
 * @module
 */
import { basename, join } from "../../_path.ts";
import { plural } from "../../text/mod.ts";
import type { FormatAdapter } from "../_adapter.ts";
import { geminiWords } from "./_home.ts";
import { dirEntries } from "../_head.ts";
import type { ForeignFacts } from "../_types.ts";
import { analyzeGemini, geminiFindings } from "./_check.ts";
import { geminiFactsOf } from "./_facts.ts";
import {
  findGeminiSession,
  listGeminiSessions,
  previewGeminiSession,
  SESSION_NAME,
} from "./_find.ts";
import { GEMINI_LINES } from "./_lines.ts";
import { readGeminiBatches } from "./_reader.ts";
import { GEMINI_PROVIDER, geminiUsage } from "./_usage.ts";
import { roleOf } from "./_replay.ts";
import { geminiSearch } from "./_search.ts";
import { late } from "../../_late.ts";
import { geminiRelocation } from "./_relocate.ts";

export { geminiSessionsRoot } from "./_home.ts";

const MESSAGE_TYPES = new Set(["user", "gemini", "info", "error", "warning"]);

/** How a session file was read: the copies and messages its replay passed over. */
function geminiNotes(facts: ForeignFacts): string[] {
  const gemini = geminiFactsOf(facts);
  if (gemini === null) return [];
  const notes: string[] = [];
  if (gemini.supersededCopies > 0) {
    notes.push(
      `${plural(gemini.supersededCopies, "line")} passed over: an earlier copy of a message ` +
        "(the last copy of a message id wins)",
    );
  }
  if (gemini.replacedByCheckpoint > 0) {
    notes.push(
      `${plural(gemini.replacedByCheckpoint, "message")} replaced by a later checkpoint ` +
        "($set of messages)",
    );
  }
  if (gemini.rewound > 0) notes.push(`${plural(gemini.rewound, "message")} rewound ($rewindTo)`);
  if (gemini.parentSessionId !== null) {
    notes.push(`a subagent's session (of session ${gemini.parentSessionId})`);
  }
  if (gemini.legacy) notes.push("a legacy single-object session file (before 0.39)");
  return notes;
}

/** Whether a folder holds project folders of Gemini chats (`<project>/chats/session-*`). */
async function holdsChats(dir: string): Promise<boolean> {
  for (const project of (await dirEntries(dir)).filter((e) => e.isDirectory)) {
    const chats = await dirEntries(join(dir, project.name, "chats"));
    if (chats.some((e) => e.isFile && SESSION_NAME.test(e.name))) return true;
  }
  return false;
}

/**
 * The repair's modules and the writer's, loaded when a repair is planned or a session written
 * (src/_late.ts): a read or a check loads neither.
 */
const repairModule = () => late<typeof import("./_repair.ts")>("./_repair.ts", import.meta.url);
const writerModule = () => late<typeof import("./_writer.ts")>("./_writer.ts", import.meta.url);

/** Gemini CLI sessions: `$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-*.jsonl`. */
export const geminiAdapter: FormatAdapter<"gemini"> = {
  ...geminiWords,
  listing: { time: "created" },
  lines: GEMINI_LINES,
  search: geminiSearch,
  judgeLine(value) {
    switch (roleOf(value)) {
      case "metadata":
        return { metadata: true, evidence: "a Gemini CLI session's metadata line" };
      case "message":
        return MESSAGE_TYPES.has(String(value.type)) && "timestamp" in value
          ? { metadata: false, evidence: `a Gemini CLI ${value.type} message` }
          : undefined;
      case "checkpoint":
        return { metadata: false, evidence: "a Gemini CLI checkpoint ($set of messages)" };
      default:
        return undefined;
    }
  },
  namesFile: (path) => SESSION_NAME.test(basename(path)),
  claimsRoot: holdsChats,
  idFromName: (path) => SESSION_NAME.exec(basename(path))?.[4] ?? null,
  read: (path, sizeBytes, options) => readGeminiBatches(path, sizeBytes, options),
  usage: geminiUsage,
  priceProvider: GEMINI_PROVIDER,
  find: findGeminiSession,
  list: listGeminiSessions,
  preview: previewGeminiSession,
  notes: geminiNotes,
  check: async (path, sizeBytes) => geminiFindings(path, await analyzeGemini(path, sizeBytes)),
  planRepair: async (path, sizeBytes) => (await repairModule()).planGeminiRepair(path, sizeBytes),
  write: async (conversation, options) =>
    (await writerModule()).writeGeminiSession(conversation, options),
  relocate: geminiRelocation,
};
