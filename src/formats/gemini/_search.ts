/**
 * Gemini CLI sessions as a search reads them: user prompts (not injected context or slash
 * commands), the model's text, its tool calls' arguments and their results (from the model
 * message's `toolCalls`; the user messages of `functionResponse` parts repeat them and are
 * left out), in message lines and in checkpoints. A turn starts at a user prompt. Each
 * session is its largest file (a resume's stub beside it is left out), with its subagents'.
 *
 * @module
 */
import { join } from "../../_path.ts";
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
/** What every line {@linkcode PROMPT} matches holds. */
const PROMPT_MARKER = '"type":"user","content":';

/** The subagents' files of a session: those in the folder its short id starts. */
async function subagentsOf(
  folders: readonly string[],
  chats: string,
  id: string,
): Promise<string[]> {
  const folder = folders.find((name) => name.toLowerCase().startsWith(id.toLowerCase()));
  if (folder === undefined) return [];
  return (await dirEntries(join(chats, folder)))
    .filter((e) => e.isFile && e.name.endsWith(".jsonl"))
    .map((e) => join(chats, folder, e.name)).sort();
}

async function* walk(root: string): AsyncGenerator<SessionFiles> {
  for (const project of (await dirEntries(root)).filter((e) => e.isDirectory)) {
    // Each folder holding sessions is listed once, not once per session in it.
    const listed = new Map<string, string[]>();
    for (const session of await sessionFiles(root, project.name)) {
      const chats = join(session.path, "..");
      let folders = listed.get(chats);
      if (folders === undefined) {
        folders = (await dirEntries(chats)).filter((e) => e.isDirectory).map((e) => e.name);
        listed.set(chats, folders);
      }
      const subagents = await subagentsOf(folders, chats, session.id);
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
      return set.messages.filter(isObject).flatMap(messagePieces)
        .map((piece) => ({ ...piece, again: true }));
    }
    return [];
  },
  turns: () => markerCounter([PROMPT_MARKER], (line) => PROMPT.test(line)),
};
