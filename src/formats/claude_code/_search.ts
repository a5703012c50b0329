/**
 * Claude Code transcripts as a search reads them: user and assistant text, tool_use inputs,
 * tool_result contents and compact summaries; a turn starts at a prompt.
 *
 * @module
 */
import { basename, join } from "../../_path.ts";
import { readFull } from "../../io/forward.ts";
import { previewClaudeSession } from "./_find.ts";
import { dirEntries } from "../_head.ts";
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

const TRANSCRIPT = /^([0-9A-Za-z][0-9A-Za-z_-]*)\.jsonl$/;
const AGENT = /^agent-/;

/**
 * Paths in the order of their names. Only a session's subagent files are put in order (their
 * hits come in this order); the sessions are not, the search orders them by time. Fewer than
 * two need no comparison, which keeps the first `localeCompare` (its collator costs 10-30 ms
 * to load) off a search whose sessions have at most one subagent file each.
 */
function byName(paths: string[]): string[] {
  return paths.length < 2 ? paths : paths.sort((a, b) => basename(a).localeCompare(basename(b)));
}

/** The session id on a file's first line, read from its first 16 KiB only. */
async function headSessionId(path: string): Promise<string | undefined> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(16 * 1024);
  const read = await readFull(file, buffer);
  if (read === 0) return undefined;
  const first = new TextDecoder().decode(buffer.subarray(0, read)).split("\n", 1)[0] ?? "";
  return /"sessionId"\s*:\s*"([^"]+)"/.exec(first)?.[1];
}

/**
 * The sessions of one project folder: each `<id>.jsonl` with its `<id>/subagents/` files and
 * the old-style `agent-*.jsonl` beside it whose first line names it; an agent file whose
 * session is not there is a session of its own.
 */
/**
 * `join(dir, name)` for a folder `join` gave and a name its listing gave (no `/`, never `.` or
 * `..`): a concatenation, as node:path's join costs ~25 ms over a warm walk of a big home.
 */
function inFolder(dir: string, name: string): string {
  return dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`;
}

async function* projectSessions(root: string, project: string): AsyncGenerator<SessionFiles> {
  const dir = join(root, project);
  const sessions = new Map<string, SessionFiles>();
  const agents: string[] = [];
  // The entries that may hold a session's `subagents/` folder: most sessions have none, and a
  // folder not there is an error made and caught (about 0.2 ms each at a process's start).
  const folders = new Set<string>();
  for (const entry of await dirEntries(dir)) {
    if (!entry.isFile) {
      if (entry.isDirectory || entry.isSymlink) folders.add(entry.name);
      continue;
    }
    const id = TRANSCRIPT.exec(entry.name)?.[1];
    if (id === undefined) continue;
    const path = inFolder(dir, entry.name);
    if (AGENT.test(id)) agents.push(path);
    else sessions.set(id, { id, path, subagents: [], project });
  }
  for (const session of sessions.values()) {
    if (!folders.has(session.id)) continue;
    const folder = inFolder(inFolder(dir, session.id), "subagents");
    const files = (await dirEntries(folder)).filter((e) => e.isFile && e.name.endsWith(".jsonl"));
    session.subagents.push(...byName(files.map((entry) => inFolder(folder, entry.name))));
  }
  for (const path of byName(agents)) {
    const owner = sessions.get(await headSessionId(path).catch(() => undefined) ?? "");
    if (owner) owner.subagents.push(path);
    else {
      const id = TRANSCRIPT.exec(path.slice(dir.length + 1))![1]!;
      sessions.set(id, { id, path, subagents: [], project });
    }
  }
  yield* sessions.values();
}

async function* walk(root: string): AsyncGenerator<SessionFiles> {
  for (const entry of await dirEntries(root)) {
    if (entry.isDirectory) yield* projectSessions(root, entry.name);
  }
}

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
