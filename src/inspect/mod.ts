/**
 * The inspector: a session file turn by turn, as a report (JSON) or as text, and the lossless
 * repair of a damaged file.
 *
 * @module
 */
export * from "./_schema.ts";
export * from "./_inspect.ts";
export * from "./_json.ts";
export {
  DEFAULT_TEXT_LIMIT,
  type SegmentedSession,
  type SegmenterOptions,
  TurnSegmenter,
} from "./_segmenter.ts";
export { emptyCounts } from "./_report.ts";
export * from "./_render.ts";
export * from "./_repair.ts";
