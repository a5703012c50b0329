/**
 * Charts of a session: plain data in, a standalone SVG string out, drawn by Observable Plot on
 * a small SVG DOM of its own (no browser), for the notebooks and the HTML page. Pure: no I/O, no clock, no
 * randomness, so the same data always gives the same bytes.
 *
 * @module
 */
export {
  countRecordsPerTurn,
  historySizePerTurn,
  type HistorySizePoint,
  RECORD_KINDS,
  type RecordCountRow,
  recordCountRows,
  type RecordKind,
  recordKind,
  type TurnCounts,
} from "./_data.ts";
export type { ChartOptions } from "./_frame.ts";
export { recordsPerTurnChart } from "./_records_chart.ts";
export { historySizeChart } from "./_history_chart.ts";
export { type UsageBar, usageChart, type UsageChartOptions } from "./_usage_chart.ts";
