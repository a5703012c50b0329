/**
 * The inspector: a session file turn by turn, as a report (JSON) or as text, and the text
 * views of listings. Repair is in `src/repair/`.
 *
 * @module
 */
export * from "./_types.ts";
export * from "./_inspect.ts";
export { inspectForeignFile, type ReaderFindings } from "./_foreign.ts";
export * from "./_json.ts";
export {
  DEFAULT_TEXT_LIMIT,
  type FileFacts,
  type SegmentedSession,
  TurnSegmenter,
} from "./_segmenter.ts";
export { emptyCounts } from "./_report.ts";
export { BlockOutputs, type LineRange } from "./_pairing.ts";
export { type RenderOptions, shortenText } from "./_render_text.ts";
export { renderReport } from "./_render_report.ts";
export * from "./_text_view.ts";
export * from "./_render_listing.ts";
export * from "./_stored.ts";
export * from "./_verdict.ts";
export { type FollowRead, SessionFollower } from "./_follow.ts";
