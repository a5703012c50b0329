/**
 * turnlog's own session files as a search reads them: user and assistant messages, calls'
 * arguments, outputs and compaction summaries; a turn starts at a `turn_context` record.
 *
 * @module
 */
import { walkSessions } from "../store/mod.ts";
import {
  argumentText,
  type HeadFacts,
  type Json,
  markerCounter,
  obj,
  type Piece,
  previewText,
  scanHead,
  type SessionFiles,
  str,
  TURNLOG_FORMAT,
} from "../formats/mod.ts";
import type { SearchProfile } from "./_profile.ts";

function itemPieces(item: Json): Piece[] {
  const name = str(item, "name") ?? str(item, "toolName");
  const tool = name === undefined ? {} : { tool: name };
  switch (item.type) {
    case "message": {
      const role = item.role;
      if (role !== "user" && role !== "assistant") return [];
      return [{ role, text: str(item, "content") ?? "" }];
    }
    case "function_call":
      return [{ role: "tool call", text: argumentText(str(item, "arguments") ?? ""), ...tool }];
    case "function_call_output":
      return [{ role: "tool output", text: str(item, "output") ?? "", ...tool }];
    case "compaction_summary":
      return [{ role: "summary", text: str(item, "content") ?? "" }];
    default:
      return [];
  }
}

/** A record's own `"type"`: inside a string, JSON escapes the quotes. */
const TURN_CONTEXT = '"type":"turn_context"';

async function* walk(root: string): AsyncGenerator<SessionFiles> {
  for await (const location of walkSessions(root)) {
    yield { id: location.id, path: location.path, subagents: [], project: null };
  }
}

/** The session's start and cwd from its `session_meta`, and its first user message. */
async function head(session: SessionFiles): Promise<HeadFacts> {
  const facts: HeadFacts = { started: null, cwd: null, firstPrompt: null, title: null };
  await scanHead(session.path, (value) => {
    const payload = obj(value, "payload");
    if (!payload) return false;
    if (value.type === "session_meta") {
      facts.started = str(payload, "createdAt") ?? null;
      facts.cwd = str(payload, "cwd") ?? null;
      return false;
    }
    if (payload.type !== "message" || payload.role !== "user") return false;
    facts.firstPrompt = previewText(str(payload, "content") ?? "");
    return true;
  });
  return facts;
}

/** turnlog's search profile. */
export const turnlogSearch: SearchProfile = {
  tool: TURNLOG_FORMAT,
  continuedBy: "resume",
  walk,
  head,
  pieces(value) {
    const payload = obj(value, "payload");
    return value.type === "response_item" && payload ? itemPieces(payload) : [];
  },
  turns: () => markerCounter([TURN_CONTEXT]),
};
