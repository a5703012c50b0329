/**
 * The session viewer in the browser: an inspection report as one self-contained HTML page
 * (turns, tool calls beside their outputs, synthesized outputs and orphan calls marked,
 * checkpoints, problems, and the two charts inline as SVG), the list of sessions as a page,
 * a page that says one thing (a 404), the Content-Security-Policy they need, and the live
 * page's Server-Sent Events client.
 * Pure: no I/O. Everything from a session file is escaped text, never markup, but for the
 * markup of an assistant's markdown (`_markdown.ts`: nothing that runs or loads) and of a
 * diff (`_diff.ts`). Each edit is `.diff[data-diff="<path>"]` with `ins`, `del` and `.ctx` lines.
 *
 * Stable hooks for tests and tools: each turn is `[data-turn="<n>"]`, each tool call
 * `[data-call-id]` (an orphan one also `[data-orphan]`), each tool output
 * `[data-output-for="<call id>"]` (a synthesized one also `[data-synthesized]`, one resume
 * drops `[data-dropped]`), each problem of the findings `[data-line="<n>"]` with
 * `data-kind`, each line of the file `#line-<n>`, the charts `figure[data-chart]`, and the
 * verdict on `#session`: `data-healthy="true|false"`, `data-tokens="<total>"` (the text view's,
 * `--json`'s and the exit code's), beside `data-size-bytes`.
 *
 * @module
 */
export type { InspectReport } from "../inspect/mod.ts";
export type { ListedSession, SessionListing } from "../store/mod.ts";
export type { HistorySizePoint } from "../charts/mod.ts";
export { escapeHtml, escapeText } from "./_escape.ts";
export * from "./_history.ts";
export * from "./_links.ts";
export * from "./_live.ts";
export * from "./_list.ts";
export * from "./_message.ts";
export * from "./_page.ts";
export * from "./_search.ts";
export * from "./_usage.ts";
