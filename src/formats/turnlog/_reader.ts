/**
 * turnlog's own files behind the same interface as the foreign formats: told from a line's
 * shape or the file's name, each line read as its record or its problem, and the facts from
 * `session_meta`, `turn_context` and `run_finished`.
 *
 * @module
 */
import { readLines } from "../../io/forward.ts";
import { parseRecordLine, type SessionMeta, type SessionRecord } from "../../record/mod.ts";
import { basename } from "../../_path.ts";
import { FirstSeen, type Json, obj, problemEntry, recordEntry, str, TimeSpan } from "../_line.ts";
import {
  type ForeignEntry,
  type ForeignFacts,
  noTokens,
  type TokenTotals,
  TURNLOG_FORMAT,
} from "../_types.ts";

const TYPES = new Set(["session_meta", "turn_context", "response_item", "run_finished"]);

function turnlogShape(type: string, payload: Json): boolean {
  switch (type) {
    case "session_meta":
      return typeof payload.wireApi === "string" && typeof payload.createdAt === "string";
    case "turn_context":
      return typeof payload.runId === "string";
    case "run_finished":
      return typeof payload.outcome === "string";
    default:
      return typeof payload.content === "string" || typeof payload.callId === "string" ||
        typeof payload.replacementHistory === "object";
  }
}

/** Detection: whether a parsed line is a turnlog record (checked before any adapter's). */
export function judgeTurnlogLine(value: Json): { metadata: false; evidence: string } | undefined {
  const type = str(value, "type") ?? "";
  const payload = obj(value, "payload");
  if (!payload || typeof value.timestamp !== "string") return undefined;
  if (!TYPES.has(type) || !turnlogShape(type, payload)) return undefined;
  return { metadata: false, evidence: `a turnlog ${type} record` };
}

/** Detection of an empty file: whether it is named like a turnlog session file. */
export function namesTurnlogFile(path: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-.+\.jsonl$/.test(basename(path));
}

interface TurnlogState {
  meta: SessionMeta | undefined;
  models: FirstSeen;
  times: TimeSpan;
  tokens: TokenTotals | null;
  firstPrompt: string | null;
  turns: number;
  lines: number;
  problems: number;
}

function see(state: TurnlogState, record: SessionRecord, line: number): void {
  state.times.see(record.timestamp);
  switch (record.type) {
    case "session_meta":
      state.meta ??= record.payload;
      state.models.see(record.payload.model, line);
      return;
    case "turn_context":
      state.turns++;
      state.models.see(record.payload.model, line);
      return;
    case "run_finished": {
      const usage = record.payload.usage;
      if (!usage) return;
      const tokens = state.tokens ??= noTokens();
      tokens.input += usage.inputTokens;
      tokens.output += usage.outputTokens;
      tokens.total += usage.totalTokens;
      return;
    }
    case "response_item": {
      const item = record.payload;
      if (item.type === "message" && item.role === "user") state.firstPrompt ??= item.content;
    }
  }
}

/** Reads a turnlog session file into entries; the return value is its facts. */
export async function* readTurnlogSession(
  path: string,
  sizeBytes: number,
): AsyncGenerator<ForeignEntry, ForeignFacts> {
  const state: TurnlogState = {
    meta: undefined,
    models: new FirstSeen(),
    times: new TimeSpan(),
    tokens: null,
    firstPrompt: null,
    turns: 0,
    lines: 0,
    problems: 0,
  };
  for await (const line of readLines(path)) {
    if (line.text.length === 0 && line.terminated) continue;
    if (line.start >= sizeBytes) break;
    state.lines++;
    const entry = parseRecordLine(path, line);
    if (entry.problem) {
      state.problems++;
      yield problemEntry(entry.problem);
    } else {
      see(state, entry.record, line.line);
      yield recordEntry(line, entry.record);
    }
  }
  const meta = state.meta;
  return {
    format: TURNLOG_FORMAT,
    path,
    sizeBytes,
    lines: state.lines,
    state: state.lines === 0 ? "empty" : "records",
    sessionId: meta?.id ?? null,
    sessionIds: meta ? [meta.id] : [],
    title: null,
    firstPrompt: state.firstPrompt,
    models: state.models.values,
    cwd: meta?.cwd ?? null,
    cwds: meta ? [{ cwd: meta.cwd, line: 1 }] : [],
    gitBranch: null,
    created: meta?.createdAt ?? state.times.first,
    updated: state.times.last,
    version: meta ? String(meta.version) : null,
    approval: {
      mapped: meta?.policy.approval ?? "ask-changes",
      source: meta?.policy.approval ?? null,
    },
    tokens: state.tokens,
    turns: state.turns,
    forks: [],
    subagents: [],
    ignored: {},
    problems: state.problems,
    formatFacts: null,
  };
}
