/**
 * Gemini CLI sessions as a search reads them: user prompts (not injected context or slash
 * commands), the model's text, its tool calls' arguments and their results (from the model
 * message's `toolCalls`; the user messages of `functionResponse` parts repeat them and are
 * left out), in message lines and in checkpoints. A turn starts at a user prompt. Each
 * session is its largest file (a resume's stub beside it is left out), with its subagents'.
 *
 * @module
 */
import { join } from "node:path";
import { dirEntries } from "../_head.ts";
import { isObject, type Json, str } from "../_line.ts";
import {
  type FormatSearch,
  type HeadFacts,
  headOfPreview,
  markerCounter,
  type Piece,
  type SessionFiles,
  stringsIn,
} from "../_search.ts";
import { previewGeminiSession, sessionFiles } from "./_find.ts";
import { isIgnoredUser, responseOf, textOf, toolCallsOf } from "./_history.ts";
import { responseText } from "./_turns.ts";

function messagePieces(message: Json): Piece[] {
  const type = str(message, "type");
  if (type === "user") {
    if (isIgnoredUser(message)) return [];
    const text = textOf(message.content);
    return text.length > 0 ? [{ role: "user", text }] : [];
  }
  if (type !== "gemini") return [];
  const pieces: Piece[] = [];
  const text = textOf(message.content);
  if (text.length > 0) pieces.push({ role: "assistant", text });
  for (const call of toolCallsOf(message)) {
    const tool = str(call, "name") ?? "unknown";
    pieces.push({ role: "tool call", text: stringsIn(call.args), tool });
    const results = Array.isArray(call.result) ? call.result : [];
    for (const part of results.filter(isObject)) {
      const fr = responseOf(part);
      if (fr) pieces.push({ role: "tool output", text: responseText(fr.response).output, tool });
    }
  }
  return pieces;
}

/** A user prompt's line, from its raw text: a text part that is not injected or a command. */
const PROMPT = /"type":"user","content":(?:\[\{"text":"|")(?!<session_context>|<hook_context>|\/)/;

async function* walk(root: string): AsyncGenerator<SessionFiles> {
  for (const project of (await dirEntries(root)).filter((e) => e.isDirectory)) {
    for (const session of await sessionFiles(root, project.name)) {
      const folder = (await dirEntries(join(session.path, ".."))).find((e) =>
        e.isDirectory && e.name.toLowerCase().startsWith(session.id.toLowerCase())
      );
      const subagents = folder === undefined
        ? []
        : (await dirEntries(join(session.path, "..", folder.name)))
          .filter((e) => e.isFile && e.name.endsWith(".jsonl"))
          .map((e) => join(session.path, "..", folder.name, e.name)).sort();
      yield { id: session.id, path: session.path, subagents, project: project.name };
    }
  }
}

function head(session: SessionFiles): Promise<HeadFacts> {
  return headOfPreview("gemini", session, previewGeminiSession);
}

/** Gemini CLI's search profile. */
export const geminiSearch: FormatSearch = {
  walk,
  head,
  pieces(value) {
    if (typeof value.id === "string") return messagePieces(value);
    const set = value.$set;
    if (isObject(set) && Array.isArray(set.messages)) {
      return set.messages.filter(isObject).flatMap(messagePieces);
    }
    return [];
  },
  turns: () => markerCounter((line) => PROMPT.test(line)),
};
