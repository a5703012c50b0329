/**
 * Codex rollouts as a search reads them: the model-visible items (user and assistant
 * messages without injected context, calls' arguments, outputs) and compaction summaries;
 * the display copies in `event_msg` lines are left out, so a hit is not found twice. A turn
 * starts at a `task_started` event, else at a `turn_context` of a new turn id, else at a
 * `user_message` event.
 *
 * @module
 */
import { isObject, type Json, numberOf, obj, objectOf, str } from "../_line.ts";
import { basename, dirname } from "../../_path.ts";
import { parseRolloutName, previewCodexSession, walkCodexSessions } from "./_find.ts";
import { type CodexHistoryBase, findBaseRollout, historyBaseOf } from "./_base.ts";
import { scanHead } from "../_head.ts";
import {
  argumentText,
  type FormatSearch,
  type HeadFacts,
  type InheritedHistory,
  type InheritedPart,
  type Piece,
  type SessionFiles,
  type TurnCounter,
} from "../_search.ts";

/** Injected context (environment, instructions) is not what the user said. */
const INJECTED = /^\s*(<|# AGENTS\.md)/;

function messagePieces(payload: Json): Piece[] {
  const role = payload.role;
  if (role !== "user" && role !== "assistant") return [];
  const content = Array.isArray(payload.content) ? payload.content : [];
  return content.flatMap((part): Piece[] => {
    const text = isObject(part) ? str(part, "text") : undefined;
    if (text === undefined || (role === "user" && INJECTED.test(text))) return [];
    return [{ role, text }];
  });
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (isObject(output) && typeof output.content === "string") return output.content;
  return output === undefined ? "" : JSON.stringify(output);
}

function itemPieces(payload: Json): Piece[] {
  const name = str(payload, "name");
  const tool = name === undefined ? {} : { tool: name };
  const action = obj(payload, "action") ?? {};
  switch (payload.type) {
    case "message":
      return messagePieces(payload);
    case "function_call":
      return [{ role: "tool call", text: argumentText(str(payload, "arguments") ?? ""), ...tool }];
    case "custom_tool_call":
      return [{ role: "tool call", text: str(payload, "input") ?? "", ...tool }];
    case "local_shell_call": {
      const command = Array.isArray(action.command) ? action.command.join(" ") : "";
      return [{ role: "tool call", text: command, tool: "shell" }];
    }
    case "web_search_call":
      return [{ role: "tool call", text: str(action, "query") ?? "", tool: "web_search" }];
    case "function_call_output":
    case "custom_tool_call_output":
      return [{ role: "tool output", text: outputText(payload.output) }];
    default:
      return [];
  }
}

const TASK_STARTED = '"type":"task_started"';
const TURN_CONTEXT = '"type":"turn_context"';
const USER_MESSAGE = '"type":"user_message"';
const TASK_COMPLETE = '"type":"task_complete"';
const TURN_ABORTED = '"type":"turn_aborted"';
const TYPE = '"type":"';
const TURN_ID = /"turn_id":"([^"]*)"/;
/** A message that is not the model's: between turns it waits for the turn it opens. */
const WAITING = /"type":"response_item".*"role":"(?:user|developer)"/;

/** What {@linkcode typesIn} found: one bit for each type a counter asks about. */
const STARTED = 1, COMPLETE = 2, ABORTED = 4, CONTEXT = 8, USER = 16, ITEM = 32;
/** The first letters of those types' names. */
const T = 0x74, U = 0x75, R = 0x72;

/**
 * Which of the counter's `"type":"…"` texts a line holds, in one pass over it: each
 * `"type":"` it holds (a few a line: inside a string the quotes are escaped) is looked at
 * once, where a search of each text was a pass over the whole line each.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const line = '{"type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}';
 * assert.equal(typesIn(line), 1);
 * assert.equal(typesIn('{"type":"response_item","payload":{"type":"message"}}'), 32);
 * ```
 */
export function typesIn(line: string): number {
  let found = 0;
  for (let at = line.indexOf(TYPE); at !== -1; at = line.indexOf(TYPE, at + 1)) {
    const after = at + TYPE.length;
    // Told apart by their first letter: most types a line holds are none of these, and one
    // comparison sends them on (a loop over every name for each cost the counter a third).
    switch (line.charCodeAt(after)) {
      case T:
        if (line.startsWith('task_started"', after)) found |= STARTED;
        else if (line.startsWith('task_complete"', after)) found |= COMPLETE;
        else if (line.startsWith('turn_aborted"', after)) found |= ABORTED;
        else if (line.startsWith('turn_context"', after)) found |= CONTEXT;
        break;
      case U:
        if (line.startsWith('user_message"', after)) found |= USER;
        break;
      case R:
        if (line.startsWith('response_item"', after)) found |= ITEM;
        break;
    }
  }
  return found;
}

function codexTurns(): TurnCounter {
  let turn = 0;
  let open = false;
  let tasks = false;
  let ids = false;
  let current: string | undefined;
  const start = (id: string | undefined) => {
    open = true;
    if (id !== undefined && id === current) return;
    current = id;
    turn++;
  };
  const see = (line: string, types: number) => {
    if (types & STARTED) {
      tasks = true;
      start(TURN_ID.exec(line)?.[1]);
    } else if (types & (COMPLETE | ABORTED)) {
      open = false;
    } else if (types & CONTEXT) {
      const id = TURN_ID.exec(line)?.[1];
      if (id !== undefined && !tasks) ids = true;
      if (!tasks && id !== undefined) start(id);
    } else if (!tasks && !ids && types & USER) {
      start(undefined);
    }
  };
  return {
    // `see` moves the count only for a line that holds one of these.
    markers: [TASK_STARTED, TASK_COMPLETE, TURN_ABORTED, TURN_CONTEXT, USER_MESSAGE],
    turnOf(line) {
      const types = typesIn(line);
      see(line, types);
      // Without a response item's type the pattern cannot match: no pass of its own.
      return !open && types & ITEM && WAITING.test(line) ? turn + 1 : turn;
    },
  };
}

async function* walk(root: string): AsyncGenerator<SessionFiles> {
  for await (const found of walkCodexSessions(root)) {
    yield { id: found.id, path: found.path, subagents: [], project: null };
  }
}

async function head(session: SessionFiles): Promise<HeadFacts> {
  const found = parseRolloutName(basename(session.path), dirname(session.path));
  if (!found) return { started: null, cwd: null, firstPrompt: null, title: null };
  const listed = await previewCodexSession(found, { headOnly: true });
  return { started: listed.created, cwd: listed.cwd, firstPrompt: listed.preview, title: null };
}

/** The `history_base` of a rollout's first line (its `session_meta`), if it names one. */
function baseOfHead(value: Json | undefined): CodexHistoryBase | undefined {
  if (value?.type !== "session_meta") return undefined;
  return historyBaseOf(objectOf(value.payload) ?? {});
}

async function headOf(path: string): Promise<Json | undefined> {
  let first: Json | undefined;
  await scanHead(path, (value) => {
    first = value;
    return true;
  });
  return first;
}

/**
 * A fork's inherited history as Codex's resume rebuilds it (and the reader reads it): the base
 * thread's rollout before the base's byte offset, its records with an ordinal below the base's
 * (the lowest of the chain's), itself maybe a fork, followed the same way.
 */
const inherited: InheritedHistory = {
  marker: '"history_base"',
  async parts(path, firstLine) {
    let head: Json | undefined;
    try {
      head = objectOf(JSON.parse(firstLine));
    } catch {
      return { parts: [], missing: null };
    }
    const parts: InheritedPart[] = [];
    const seen = new Set<string>();
    let base = baseOfHead(head);
    let from = path;
    let limit = Infinity;
    while (base !== undefined) {
      if (seen.has(base.threadId)) {
        return { parts, missing: `thread ${base.threadId} names itself as its own history` };
      }
      seen.add(base.threadId);
      const found = await findBaseRollout(from, base.threadId);
      if (found === null) {
        return { parts, missing: `the rollout of thread ${base.threadId} is not in this home` };
      }
      const below = Math.min(limit, base.endOrdinalExclusive ?? Infinity);
      limit = below;
      parts.unshift({
        path: found,
        endByte: base.endByteOffset ?? Infinity,
        holds: (value) =>
          value.type !== "session_meta" && !((numberOf(value.ordinal) ?? -Infinity) >= below),
      });
      from = found;
      base = baseOfHead(await headOf(found));
    }
    return { parts, missing: null };
  },
};

/** Codex's search profile. */
export const codexSearch: FormatSearch = {
  walk,
  head,
  pieces(value) {
    const payload = obj(value, "payload");
    if (!payload) return [];
    if (value.type === "response_item") return itemPieces(payload);
    if (value.type === "compacted") {
      const message = str(payload, "message") ?? "";
      return message === "" ? [] : [{ role: "summary", text: message }];
    }
    return [];
  },
  turns: codexTurns,
  inherited,
};
