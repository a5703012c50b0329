/**
 * Claude Code transcripts as a search reads them: user and assistant text, tool_use inputs,
 * tool_result contents and compact summaries; a turn starts at a prompt.
 *
 * @module
 */
import { previewClaudeSession } from "./_find.ts";
import { claudeCodeWalk as walk } from "./_walk.ts";
import { isObject, type Json, obj, str } from "../_line.ts";
import {
  type FormatSearch,
  type HeadFacts,
  headOfPreview,
  type Piece,
  type SessionFiles,
  stringsIn,
  type TurnCounter,
} from "../_search.ts";

/** A tool_result's content: a string, or blocks whose text counts. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter((b) => isObject(b) && typeof b.text === "string")
    .map((b) => (b as Json).text as string).join("\n");
}

function userPieces(value: Json, content: unknown): Piece[] {
  if (value.isMeta === true) return [];
  const role = value.isCompactSummary === true ? "summary" : "user";
  if (typeof content === "string") return [{ role, text: content }];
  if (!Array.isArray(content)) return [];
  const pieces: Piece[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") {
      pieces.push({ role, text: block.text });
    } else if (block.type === "tool_result") {
      pieces.push({ role: "tool output", text: resultText(block.content) });
    }
  }
  return pieces;
}

function assistantPieces(content: unknown): Piece[] {
  if (typeof content === "string") return [{ role: "assistant", text: content }];
  if (!Array.isArray(content)) return [];
  const pieces: Piece[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") {
      pieces.push({ role: "assistant", text: block.text });
    } else if (block.type === "tool_use") {
      const name = str(block, "name");
      pieces.push({
        role: "tool call",
        text: stringsIn(block.input),
        ...(name === undefined ? {} : { tool: name }),
      });
    }
  }
  return pieces;
}

/** A prompt: a user line that is not a tool result, injected, a summary or a local command. */
const USER = '"type":"user"';
const ASSISTANT = '"type":"assistant"';
const NOT_PROMPT = /"tool_result"|"isMeta":true|"isCompactSummary":true/;
const COMMAND_TEXT =
  /"content":"\s*(?:<|Caveat: |\[Request interrupted)|"text":"\[Request interrupted/;

function head(session: SessionFiles): Promise<HeadFacts> {
  return headOfPreview("claude-code", session, previewClaudeSession);
}

/** What lets the next prompt open a turn: an answer, a turn's duration, an interruption. */
const TURN_END = /"type":"assistant"|"subtype":"turn_duration"|\[Request interrupted/;
const TURN_DURATION = '"subtype":"turn_duration"';
const INTERRUPTED = "[Request interrupted";

/**
 * A turn opens at the first conversation line, and again at a prompt once the model has
 * answered in the turn before (a prompt after local commands alone belongs to their turn).
 */
function claudeTurns(): TurnCounter {
  let turn = 0;
  let open = false;
  return {
    // A line that holds none of these is neither a conversation line nor a turn's end.
    markers: [USER, ASSISTANT, TURN_DURATION, INTERRUPTED],
    // Each pass over the line only where its answer can move the count: a prompt is looked
    // for only while no turn is open, a turn's end only while one is (most lines are neither).
    turnOf(line) {
      if (turn === 0) {
        if (line.includes(USER) || line.includes(ASSISTANT)) {
          turn = 1;
          open = true;
        }
      } else if (
        !open && line.includes(USER) && !NOT_PROMPT.test(line) && !COMMAND_TEXT.test(line)
      ) {
        turn++;
        open = true;
      }
      const current = turn;
      if (open && TURN_END.test(line)) open = false;
      return current;
    },
  };
}

/** Claude Code's search profile. */
export const claudeCodeSearch: FormatSearch = {
  walk,
  head,
  pieces(value) {
    const message = obj(value, "message");
    if (!message) return [];
    if (value.type === "user") return userPieces(value, message.content);
    if (value.type === "assistant") return assistantPieces(message.content);
    return [];
  },
  turns: claudeTurns,
};
