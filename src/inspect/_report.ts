/**
 * The end of an inspection: the facts gathered line by line put together into the report
 * (totals, usage, the session's facts, orphans and dropped outputs as problems).
 *
 * @module
 */
import { basename, dirname } from "../_path.ts";
import { type SessionState, turnlogAdapter } from "../formats/mod.ts";
import type { SessionMeta, SessionRecord, TurnContext, Usage } from "../record/mod.ts";
import { parseSessionFileName } from "../store/_layout.ts";
import type { DroppedOutput, PendingCall } from "./_pairing.ts";
import type {
  Header,
  InspectProblem,
  OrphanCall,
  OrphanOutput,
  RecordCounts,
  SessionFacts,
  Totals,
  Turn,
} from "./_types.ts";

/** Zero counts. */
export function emptyCounts(): RecordCounts {
  return {
    session_meta: 0,
    turn_context: 0,
    message: 0,
    function_call: 0,
    function_call_output: 0,
    compaction_summary: 0,
    compaction_checkpoint: 0,
    run_finished: 0,
    problem_lines: 0,
    ignored: 0,
    total: 0,
  };
}

/** The count column a record goes in. */
export function countColumn(record: SessionRecord): keyof RecordCounts {
  return record.type === "response_item" ? record.payload.type : record.type;
}

/** A turn opened by a `turn_context` record at `line`. */
export function newTurn(
  index: number,
  line: number,
  record: SessionRecord & { payload: TurnContext },
): Turn {
  const { payload } = record;
  return {
    index,
    runId: payload.runId,
    startLine: line,
    endLine: line,
    time: record.timestamp,
    resumed: payload.resumed,
    model: payload.model,
    wireApi: payload.wireApi,
    policy: payload.policy,
    outcome: null,
    error: null,
    rounds: null,
    usage: null,
    counts: emptyCounts(),
    ignored: {},
  };
}

/** A run of records before the first turn_context: one problem says so. */
export interface Stray {
  line: number;
  type: string;
  count: number;
  lastLine: number;
}

/**
 * The problems of the file as a whole: no valid record at all (unless the file is known to
 * hold no conversation), and one for a run of records before the first turn.
 */
export function fileProblems(
  path: string,
  file: { noRecord: boolean; lines: number; lastLine: number; stray: Stray | undefined },
): InspectProblem[] {
  const problems: InspectProblem[] = [];
  const whole = { turn: null, start: null, end: null };
  if (file.noRecord) {
    problems.push({
      line: Math.max(1, file.lastLine),
      kind: "missing_session_meta",
      message: `${path}:1: ${
        file.lines === 0 ? "empty session file" : "no line is a valid record"
      }, no session_meta record: resume refuses this file`,
      ...whole,
    });
  }
  if (!file.stray) return problems;
  const { line, type, count, lastLine } = file.stray;
  const more = count > 1 ? ` (and ${count - 1} more, up to line ${lastLine})` : "";
  problems.push({
    line,
    kind: "record_before_first_turn",
    message: `${path}:${line}: a ${type} record before the first turn_context${more}`,
    ...whole,
  });
  return problems;
}

/** Adds `from`'s counts to `into`'s, column by column. */
function addCounts(into: RecordCounts, from: RecordCounts): void {
  // Each column by its name, not by a loop over its keys: a 1 GB rollout has 72,000 turns.
  into.session_meta += from.session_meta;
  into.turn_context += from.turn_context;
  into.message += from.message;
  into.function_call += from.function_call;
  into.function_call_output += from.function_call_output;
  into.compaction_summary += from.compaction_summary;
  into.compaction_checkpoint += from.compaction_checkpoint;
  into.run_finished += from.run_finished;
  into.problem_lines += from.problem_lines;
  into.ignored += from.ignored;
  into.total += from.total;
}

/** Adds the ignored things of `from` to `into`, kind by kind. */
function addIgnored(into: Record<string, number>, from: Record<string, number>): void {
  for (const kind in from) into[kind] = (into[kind] ?? 0) + from[kind]!;
}

/** The sums over the header and every turn. */
export function totalsOf(header: Header, turns: readonly Turn[]): Totals {
  const counts = emptyCounts();
  const ignored: Record<string, number> = {};
  addCounts(counts, header.counts);
  addIgnored(ignored, header.ignored);
  const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  let unfinishedTurns = 0;
  let resumedTurns = 0;
  for (const turn of turns) {
    addCounts(counts, turn.counts);
    addIgnored(ignored, turn.ignored);
    if (turn.outcome === null) unfinishedTurns++;
    if (turn.resumed) resumedTurns++;
    if (!turn.usage) continue;
    usage.inputTokens += turn.usage.inputTokens;
    usage.outputTokens += turn.usage.outputTokens;
    usage.totalTokens += turn.usage.totalTokens;
  }
  return { turns: turns.length, unfinishedTurns, resumedTurns, counts, usage, ignored };
}

/** What the segmenter learned about a file as it read it. */
export interface FileSeen {
  sizeBytes: number;
  records: number;
  lines: number;
  state: SessionState;
  firstPrompt: string | null;
  models: string[];
  updated: string | null;
  /** The `run_finished` usages added up. */
  usage: Usage;
}

/**
 * The session as its `session_meta` and its file describe it, as a turnlog file does; the
 * inspector of another tool's file adds what the file's adapter knows.
 */
export function sessionFacts(
  path: string,
  meta: SessionMeta | undefined,
  file: FileSeen,
): SessionFacts {
  const fileName = parseSessionFileName(basename(path), dirname(path));
  return {
    id: meta?.id ?? fileName?.id ?? null,
    format: turnlogAdapter.name,
    state: file.state,
    path,
    sizeBytes: file.sizeBytes,
    records: file.records,
    lines: file.lines,
    title: null,
    firstPrompt: file.firstPrompt,
    models: file.models,
    gitBranch: null,
    updated: file.updated,
    toolVersion: null,
    approvalSource: null,
    tokens: file.usage.totalTokens === 0 ? null : {
      input: file.usage.inputTokens,
      output: file.usage.outputTokens,
      cacheRead: 0,
      cacheCreation: 0,
      reasoningOutput: 0,
      total: file.usage.totalTokens,
    },
    importedFrom: meta?.importedFrom ?? null,
    notes: [],
    created: meta?.createdAt ?? fileName?.createdAt ?? null,
    cwd: meta?.cwd ?? null,
    modelProvider: meta?.modelProvider ?? null,
    model: meta?.model ?? null,
    wireApi: meta?.wireApi ?? null,
    policy: meta?.policy ?? null,
    formatVersion: meta?.version ?? null,
    forkedFrom: meta?.forkedFrom ?? null,
  };
}

/** The orphan calls of the pairing's verdicts, their view entries marked. */
export function orphanCalls(orphans: readonly PendingCall[]): OrphanCall[] {
  return orphans.map(({ line, turn, callId, name, inCheckpoint, entry }) => {
    if (entry) entry.orphan = true;
    return { line, turn, callId, name, inCheckpoint };
  });
}

/**
 * The outputs resume drops, their view entries marked; each is also a problem of the file
 * (pushed onto `problems`).
 */
export function droppedOutputs(
  path: string,
  dropped: readonly DroppedOutput[],
  problems: InspectProblem[],
): OrphanOutput[] {
  return dropped.map((output) => {
    const { line, turn, start, end, inCheckpoint, callId, toolName, reason, entry } = output;
    if (entry) entry.dropped = reason;
    const what = reason === "orphan_output"
      ? `output for call ${callId} (${toolName}) has no call before it`
      : `a second output for call ${callId} (${toolName})`;
    const where = inCheckpoint ? " (in the checkpoint's replacement history)" : "";
    problems.push({
      line,
      kind: reason,
      message: `${path}:${line}: ${what}${where}: resume drops it`,
      turn,
      start: inCheckpoint ? null : start,
      end: inCheckpoint ? null : end,
    });
    return { line, turn, callId, toolName, reason, inCheckpoint };
  });
}
