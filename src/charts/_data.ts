/**
 * What the charts draw, from a session's records or the inspector's counts: records per turn
 * by kind, and the model-visible history's size per turn. Pure.
 *
 * @module
 */
import { SessionReplay } from "../history/mod.ts";
import type { SessionRecord } from "../record/mod.ts";

/**
 * The kinds of line a record-count chart stacks, in stacking order: the record types, with
 * `response_item` records split by item type (the columns of `inspect --json` counts), and the
 * tool outputs a resume synthesized told apart from the ones a tool wrote.
 */
export const RECORD_KINDS = [
  "session_meta",
  "turn_context",
  "message",
  "function_call",
  "function_call_output",
  "synthesized_output",
  "compaction_summary",
  "compaction_checkpoint",
  "run_finished",
  "problem_lines",
] as const;
/** A kind of line in a session file. */
export type RecordKind = typeof RECORD_KINDS[number];

/** Words a reader understands, for the legend. */
export const KIND_LABELS: Record<RecordKind, string> = {
  session_meta: "session meta",
  turn_context: "turn context",
  message: "message",
  function_call: "tool call",
  function_call_output: "tool output",
  synthesized_output: "synthesized tool output",
  compaction_summary: "compaction summary",
  compaction_checkpoint: "compaction checkpoint",
  run_finished: "run finished",
  problem_lines: "damaged line",
};

/** One colour per kind, fixed, so every chart colours a kind the same way. */
export const KIND_COLORS: Record<RecordKind, string> = {
  session_meta: "#9498a0",
  turn_context: "#6cc5b0",
  message: "#4269d0",
  function_call: "#efb118",
  function_call_output: "#ff8ab7",
  synthesized_output: "#c2255c",
  compaction_summary: "#a463f2",
  compaction_checkpoint: "#3ca951",
  run_finished: "#97bbf5",
  problem_lines: "#e03131",
};

/** How many lines of one kind one turn wrote. */
export interface RecordCountRow {
  /** 1-based turn number. */
  turn: number;
  /** The kind of line counted. */
  kind: RecordKind;
  /** How many lines of that kind the turn wrote. */
  count: number;
}

/** Per-turn counts as `inspect --json` reports them (`turns[].counts`, `header.counts`). */
export interface TurnCounts {
  /** The 1-based turn number (0 for the lines before the first turn). */
  index: number;
  /** Lines by kind, and their total. */
  counts: Partial<Record<RecordKind | "total", number>>;
}

/**
 * Turns per-turn counts (the inspector's shape) into chart rows, zero counts left out. The
 * header's lines (the `session_meta` before the first turn) are counted in turn 1, which
 * wrote them. Synthesized outputs (the inspector's `synthesizedOutputs`, by turn) are moved
 * from the tool outputs to their own kind.
 */
export function recordCountRows(
  turns: readonly TurnCounts[],
  options: {
    header?: TurnCounts["counts"];
    synthesized?: readonly { turn: number | null }[];
  } = {},
): RecordCountRow[] {
  const rows: RecordCountRow[] = [];
  turns.forEach((turn, position) => {
    const synthesized = (options.synthesized ?? []).filter((output) =>
      output.turn === turn.index
    ).length;
    for (const kind of RECORD_KINDS) {
      let count = (turn.counts[kind] ?? 0) + (position === 0 ? options.header?.[kind] ?? 0 : 0);
      if (kind === "function_call_output") count -= synthesized;
      if (kind === "synthesized_output") count += synthesized;
      if (count > 0) rows.push({ turn: turn.index, kind, count });
    }
  });
  return rows;
}

/** The kind of line a record counts as. */
export function recordKind(record: SessionRecord): RecordKind {
  if (record.type !== "response_item") return record.type;
  const item = record.payload;
  return item.type === "function_call_output" && item.synthesized
    ? "synthesized_output"
    : item.type;
}

/**
 * Counts a session's records per turn and kind. A turn starts at each `turn_context`; records
 * before the first one (the `session_meta`) count in turn 1.
 */
export function countRecordsPerTurn(records: Iterable<SessionRecord>): RecordCountRow[] {
  const perTurn: Map<RecordKind, number>[] = [];
  let current = new Map<RecordKind, number>();
  let started = false;
  for (const record of records) {
    if (record.type === "turn_context") {
      if (started) {
        perTurn.push(current);
        current = new Map();
      }
      started = true;
    }
    const kind = recordKind(record);
    current.set(kind, (current.get(kind) ?? 0) + 1);
  }
  if (current.size > 0) perTurn.push(current);
  return perTurn.flatMap((counts, index) =>
    RECORD_KINDS.filter((kind) => counts.has(kind)).map((kind) => ({
      turn: index + 1,
      kind,
      count: counts.get(kind) ?? 0,
    }))
  );
}

/** The size of the model-visible history at one moment of a session. */
export interface HistorySizePoint {
  /** 1-based turn number. */
  turn: number;
  /** Items in the history (messages, tool calls and outputs, summaries). */
  items: number;
  /** When: at the end of the turn, or just before a compaction checkpoint replaced it. */
  moment: "end of turn" | "before compaction";
}

/**
 * Replays a session and measures its model-visible history at the end of every turn and
 * right before every compaction checkpoint, in file order: the data of
 * {@linkcode historySizeChart}. Records before the first `turn_context` count in turn 1.
 */
export function historySizePerTurn(records: Iterable<SessionRecord>): HistorySizePoint[] {
  const replay = new SessionReplay();
  const points: HistorySizePoint[] = [];
  const point = (moment: HistorySizePoint["moment"]) =>
    points.push({ turn: Math.max(replay.turns, 1), items: replay.history.length, moment });
  for (const record of records) {
    if (record.type === "turn_context" && replay.turns > 0) point("end of turn");
    if (record.type === "response_item" && record.payload.type === "compaction_checkpoint") {
      point("before compaction");
    }
    replay.pushRecord(record);
  }
  if (replay.turns > 0) point("end of turn");
  return points;
}
