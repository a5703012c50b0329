/**
 * turnlog's own files behind the same interface as the foreign formats: each line is its
 * record or its problem, and the facts come from `session_meta`, `turn_context` and
 * `run_finished`.
 *
 * @module
 */
import { readLines } from "../io/_lines.ts";
import { parseRecordLine } from "../record/_parse.ts";
import type { SessionMeta, SessionRecord } from "../record/mod.ts";
import { FirstSeen, problemEntry, recordEntry, TimeSpan } from "./_line.ts";
import { type ForeignEntry, type ForeignFacts, noTokens, type TokenTotals } from "./_types.ts";

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
    format: "turnlog",
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
    codex: null,
    claudeCode: null,
  };
}
