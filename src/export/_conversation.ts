/**
 * The conversation an export carries: a session file of any format read once, streaming, as
 * its resume reads it (the active branch, from its last compaction on, normalized), each item
 * with the time its source line gives; with what the source held that turnlog's history cannot
 * (reasoning, thinking, images, subagents) counted for `degraded`, and the lines skipped. It
 * never writes.
 *
 * @module
 */
import { resolve } from "node:path";
import {
  adapterOfData,
  type Degraded,
  detectFormat,
  ForeignSessionError,
  readForeignSession,
  type TimedItem,
} from "../formats/mod.ts";
import { normalizeHistory, SessionReplay } from "../history/mod.ts";
import {
  type LineProblem,
  type ResponseItem,
  SessionFileError,
  type SessionMeta,
  type TurnContext,
} from "../record/mod.ts";

/** A session file read for an export. */
export interface ReadConversation {
  /** The source's format (`turnlog` or an adapter's name). */
  format: string;
  /** The source file, absolute. */
  path: string;
  /** The source session's id, or null when its file names none. */
  sessionId: string | null;
  /** The folder the source recorded as its workspace, or null. */
  cwd: string | null;
  /** The model that answered last, or null. */
  model: string | null;
  /** The history its resume would send, normalized, each item with its time. */
  items: TimedItem[];
  /** What the source held on that branch that turnlog's history cannot, by kind. */
  degraded: Degraded[];
  /** Lines that are not valid, skipped (`path:line: what`). */
  skipped: LineProblem[];
  /** Outputs made up for calls the source left without one (as its resume does). */
  synthesized: number;
  /** The source's `session_meta` as turnlog reads it (a foreign file's, synthesized). */
  meta: SessionMeta;
  /** The newest turn's context, when it has one. */
  lastTurn: TurnContext | undefined;
}

/** What the source held that cannot be carried, by the reader's kind, in words. */
const NOT_CARRIED: Record<string, { what: string; how: string }> = {
  reasoning: {
    what: "encrypted reasoning",
    how: "left out: only the API that wrote it can read it",
  },
  thinking: {
    what: "signed thinking",
    how: "left out: its signature holds for the API that wrote it only",
  },
  thoughts: {
    what: "thoughts",
    how: "left out: Gemini keeps them for display only",
  },
  image: { what: "images", how: "left out: turnlog's history holds text" },
  compaction: {
    what: "encrypted compaction summaries",
    how: "carried as a note that says the summary could not be read",
  },
  web_search_call: { what: "web searches", how: "left out: a server-side tool of the source" },
  image_generation_call: {
    what: "image generations",
    how: "left out: a server-side tool of the source",
  },
  server_tool_use: { what: "server tool calls", how: "left out: a server-side tool of the source" },
  web_search_tool_result: {
    what: "server tool results",
    how: "left out: a server-side tool of the source",
  },
  document: { what: "documents", how: "left out: turnlog's history holds text" },
};

/**
 * Reads the session file at `path` (any format, told from its head) as its resume would.
 *
 * @throws {ForeignSessionError} when the file is no session file turnlog knows
 * @throws {SessionFileError} when it holds no conversation
 */
export async function readConversation(path: string): Promise<ReadConversation> {
  const detected = await detectFormat(path);
  if ("reason" in detected) throw new ForeignSessionError(detected.reason);
  const session = readForeignSession(path, detected.format, { subagents: true, check: false });
  const replay = new SessionReplay();
  const times = new Map<ResponseItem, string>();
  let counts: Record<string, number> = {};
  for await (const batch of session.batches()) {
    for (const entry of batch) {
      replay.push(entry);
      const record = entry.record;
      if (record?.type === "response_item") {
        const payload = record.payload;
        if (payload.type === "compaction_checkpoint") {
          // What came before the compaction is not sent again: nor are its losses.
          counts = {};
          for (const item of payload.replacementHistory) times.set(item, record.timestamp);
        } else times.set(payload, record.timestamp);
      } else if (entry.ignored !== undefined && entry.ignored in NOT_CARRIED) {
        counts[entry.ignored] = (counts[entry.ignored] ?? 0) + 1;
      }
    }
  }
  const facts = session.facts;
  if (replay.meta === undefined || facts.state !== "records") {
    throw new SessionFileError(
      `${path}: no conversation to export (${
        facts.state === "records" ? "no record could be read" : `${facts.state} file`
      })`,
    );
  }
  const { history, synthesized } = normalizeHistory(replay.history);
  // What the source tool's own resume sends for a call left unanswered, where it says.
  // The detection's data names the format (a path comes in, no adapter travels with it).
  const source = adapterOfData(detected);
  const interrupted = source.own === true ? undefined : source.interruptedOutput;
  let last = replay.meta.createdAt;
  const items = history.map((item) => {
    last = times.get(item) ?? last;
    const mended = item.type === "function_call_output" && item.synthesized &&
        interrupted !== undefined
      ? { ...item, output: interrupted }
      : item;
    return { item: mended, time: last };
  });
  const degraded: Degraded[] = Object.entries(counts).map(([kind, count]) => ({
    ...NOT_CARRIED[kind]!,
    count,
  }));
  if (facts.subagents.length > 0) {
    degraded.push({
      what: "subagent transcripts",
      count: facts.subagents.length,
      how: "left out: the calls that started them and their results are carried",
    });
  }
  return {
    format: detected.format,
    path: resolve(path),
    sessionId: facts.sessionId,
    cwd: facts.cwd ?? (replay.meta.cwd || null),
    model: replay.lastTurn?.model ?? facts.models.at(-1) ?? null,
    items,
    degraded,
    skipped: replay.problems,
    synthesized: synthesized.length,
    meta: replay.meta,
    lastTurn: replay.lastTurn,
  };
}
