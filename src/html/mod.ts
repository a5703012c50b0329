/**
 * The session viewer in the browser: an inspection report as one self-contained HTML page
 * in two views: the reading view (`#reading`: the conversation, thinking, tool calls and
 * subagents folded), shown first, and the record view (`#records`: turns, tool calls beside
 * their outputs, synthesized outputs and orphan calls marked, checkpoints, problems, and the
 * two charts inline as SVG), shown when the URL's fragment is in it; the list of sessions as a
 * page, the index of a static site of a whole home,
 * a page that says one thing (a 404), the Content-Security-Policy they need, and the live
 * page's Server-Sent Events client.
 * Pure: no I/O. Everything from a session file is escaped text, never markup, but for the
 * markup of an assistant's markdown (`_markdown.ts`: nothing that runs or loads) and of a
 * diff (`_diff.ts`). Each edit is `.diff[data-diff="<path>"]` with `ins`, `del` and `.ctx` lines.
 *
 * Stable hooks for tests and tools: in the reading view each turn is
 * `[data-reading-turn="<n>"]`, each tool call `details.tool[data-tool-call]`, thinking
 * `details.thinking` (or `[data-thinking="hidden"]`), a subagent `details.subagent[data-subagent]`;
 * in the record view each turn is `[data-turn="<n>"]`, each tool call
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
export * from "./_site.ts";
export * from "./_usage.ts";
