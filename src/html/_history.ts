/**
 * The size of the model-visible history turn by turn, worked out from an inspection report
 * instead of the records: what the page's history chart draws without reading the file again.
 *
 * @module
 */
import type { HistorySizePoint } from "../charts/mod.ts";
import type { InspectReport, RecordCounts, TurnEntry } from "../inspect/mod.ts";

/** The history sizes of a report, and whether they are exact. */
export interface ReportHistorySize {
  /** The sizes, in file order: the data of `historySizeChart`. */
  points: HistorySizePoint[];
  /**
   * True when every block has its entries, so each checkpoint's place in its turn is known
   * and the points equal `historySizePerTurn` over the file's records. False when a turn
   * with a checkpoint has no entries: its items are then all counted before the checkpoint.
   */
  exact: boolean;
}

/** Counts of the records replay appends to the history (every response item but a checkpoint). */
function historyItems(counts: RecordCounts): number {
  return counts.message + counts.function_call + counts.function_call_output +
    counts.compaction_summary;
}

function addsToHistory(entry: TurnEntry): boolean {
  return entry.kind === "message" || entry.kind === "function_call" ||
    entry.kind === "function_call_output" || entry.kind === "compaction_summary";
}

/**
 * The model-visible history's size at the end of each turn and just before each compaction
 * checkpoint, in file order, as replay has it: an item adds one, a checkpoint replaces the
 * history with its replacement history. Lines before the first turn count in turn 1.
 *
 * @example
 * ```ts ignore
 * historySizeChart(historySizeFromReport(report).points);
 * ```
 */
export function historySizeFromReport(report: InspectReport): ReportHistorySize {
  const points: HistorySizePoint[] = [];
  let size = 0;
  let exact = true;
  const blocks = [
    { turn: null as number | null, counts: report.header.counts, entries: report.header.entries },
    ...report.turns.map((turn) => ({ turn: turn.index, ...turn })),
  ];
  for (const block of blocks) {
    const turn = Math.max(block.turn ?? 1, 1);
    if (block.entries) {
      for (const entry of block.entries) {
        if (addsToHistory(entry)) size++;
        if (entry.kind === "compaction_checkpoint") {
          points.push({ turn, items: size, moment: "before compaction" });
          size = entry.replacementItemCount;
        }
      }
    } else {
      const checkpoints = report.checkpoints.filter((c) => c.turn === block.turn);
      size += historyItems(block.counts);
      if (checkpoints.length > 0) exact = false;
      for (const checkpoint of checkpoints) {
        points.push({ turn, items: size, moment: "before compaction" });
        size = checkpoint.replacementItemCount;
      }
    }
    if (block.turn !== null) points.push({ turn, items: size, moment: "end of turn" });
  }
  return { points, exact };
}
