/**
 * The pages' one stylesheet, inline in each page: light and dark (`prefers-color-scheme`),
 * one column on a phone with nothing wider than the screen.
 *
 * @module
 */

/** The stylesheet of the session page and the session list. */
export const PAGE_STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --card: #f6f8fa;
  --code: #eff2f5; --user: #0969da; --assistant: #1a7f37; --system: #6e7781;
  --tool: #9a6700; --output: #57606a; --synth: #bf3989; --synth-bg: #ffeff7;
  --warn: #9a6700; --warn-bg: #fff8c5; --bad: #d1242f; --bad-bg: #ffebe9;
  --compact: #8250df; --compact-bg: #fbefff; --ok: #1a7f37; --link: #0969da;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --card: #151b23;
    --code: #1c232c; --user: #4493f8; --assistant: #3fb950; --system: #8b949e;
    --tool: #d29922; --output: #9198a1; --synth: #db61a2; --synth-bg: #2d1522;
    --warn: #d29922; --warn-bg: #2b2210; --bad: #f85149; --bad-bg: #2d1214;
    --compact: #ab7df8; --compact-bg: #22183a; --ok: #3fb950; --link: #4493f8;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body {
  margin: 0 auto; max-width: 1180px; padding: 16px; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  overflow-wrap: anywhere;
}
a { color: var(--link); }
h1 { font-size: 1.35rem; line-height: 1.3; margin: 0 0 8px; white-space: pre-wrap; }
h2 { font-size: 1.1rem; margin: 28px 0 10px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { font-size: 0.85em; background: var(--code); padding: 1px 4px; border-radius: 4px; }
mark.bidi { background: var(--bad-bg); color: var(--bad); outline: 1px solid var(--bad); }
pre {
  margin: 4px 0 0; padding: 8px 10px; background: var(--code); border-radius: 6px;
  font-size: 12.5px; line-height: 1.45; white-space: pre-wrap; overflow-wrap: anywhere;
  tab-size: 4;
}
summary { cursor: pointer; }
.muted { color: var(--muted); }
.badge {
  display: inline-block; font-size: 11.5px; font-weight: 600; line-height: 1.6;
  padding: 0 7px; border-radius: 999px; border: 1px solid currentColor; white-space: nowrap;
}
.badge.ok { color: var(--ok); } .badge.bad { color: var(--bad); }
.badge.warn { color: var(--warn); } .badge.synth { color: var(--synth); }
.badge.compact { color: var(--compact); } .badge.plain { color: var(--muted); }
#session { border-bottom: 1px solid var(--line); padding-bottom: 12px; }
#session .kicker { font-size: 13px; color: var(--muted); margin: 0 0 4px; }
#session dl {
  display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 14px;
  margin: 10px 0; font-size: 14px;
}
#session dt { color: var(--muted); }
#session dd { margin: 0; min-width: 0; }
#session nav { display: flex; flex-wrap: wrap; gap: 6px 14px; font-size: 14px; }
#live[data-state="live"] { color: var(--ok); }
#live[data-state="reconnecting"], #live[data-state="stale"] { color: var(--warn); }
.findings ul { margin: 4px 0 12px; padding-left: 20px; }
.findings li { margin: 2px 0; }
.findings h3 { display: inline; font-size: 0.95rem; }
.findings summary { margin: 12px 0 4px; }
#charts .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 460px), 1fr)); gap: 12px; }
#charts figure { margin: 0; background: #fff; color: #1f2328; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
#charts svg { display: block; width: 100%; height: auto; font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; background: white; }
#charts svg text, #charts svg tspan { white-space: pre; }
.turn {
  border: 1px solid var(--line); border-radius: 8px; margin: 10px 0; background: var(--bg);
}
.turn > summary {
  padding: 8px 12px; background: var(--card); border-radius: 8px; font-size: 14px;
  list-style-position: inside;
}
.turn[open] > summary { border-bottom: 1px solid var(--line); border-radius: 8px 8px 0 0; }
.turn > summary b { font-size: 15px; }
.turn .body { padding: 6px 12px 10px; }
.turn .meta { color: var(--muted); }
.entry { margin: 8px 0; padding: 2px 0 2px 10px; border-left: 3px solid var(--line); }
.entry > .head {
  display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 8px; font-size: 13px;
}
.entry > .head .role { font-weight: 700; }
.entry > .head .ln { margin-left: auto; color: var(--muted); font-size: 12px; text-decoration: none; }
.entry .text { white-space: pre-wrap; margin-top: 2px; }
.msg.user { border-color: var(--user); } .msg.user .role { color: var(--user); }
.msg.assistant { border-color: var(--assistant); } .msg.assistant .role { color: var(--assistant); }
.msg.system { border-color: var(--system); } .msg.system .role { color: var(--system); }
.call { border-color: var(--tool); }
.call > .head .role { color: var(--tool); }
.call .io { display: grid; grid-template-columns: minmax(0, 1fr); gap: 6px; }
@media (min-width: 900px) {
  .call .io { grid-template-columns: minmax(0, 2fr) minmax(0, 3fr); }
  .call .io.edit { grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); }
}
.output { border-left: 3px solid var(--output); padding-left: 8px; min-width: 0; }
.output > .head { font-size: 13px; display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: baseline; }
.output > .head .ln { margin-left: auto; color: var(--muted); font-size: 12px; text-decoration: none; }
.output.error { border-color: var(--bad); }
.output.error > .head .role { color: var(--bad); }
[data-synthesized] { border-color: var(--synth); background: var(--synth-bg); border-radius: 0 6px 6px 0; padding-bottom: 4px; }
[data-synthesized] > .head .role { color: var(--synth); }
[data-orphan], [data-dropped], .stray { border-color: var(--warn); background: var(--warn-bg); border-radius: 0 6px 6px 0; padding-bottom: 4px; }
.note { font-size: 13px; margin: 4px 0 0; }
.note.warn { color: var(--warn); font-weight: 600; }
.compaction { border-color: var(--compact); background: var(--compact-bg); border-radius: 0 6px 6px 0; }
.compaction > .head .role { color: var(--compact); }
.finished { font-size: 13.5px; border-color: transparent; }
.finished.succeeded .role { color: var(--ok); }
.finished.failed .role, .finished.error .role { color: var(--bad); }
.finished.cancelled .role, .finished.interrupted .role { color: var(--warn); }
.problem { border-color: var(--bad); background: var(--bad-bg); border-radius: 0 6px 6px 0; }
.problem > .head .role { color: var(--bad); }
.unfinished { color: var(--warn); font-weight: 600; font-size: 13.5px; margin: 8px 0 2px; }
details.long > summary { font-size: 13px; color: var(--muted); margin-top: 2px; }
details.long > summary .preview { color: var(--fg); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.clipped { font-size: 12px; color: var(--muted); margin: 2px 0 0; }
.entry .text.md { white-space: normal; }
dl.input { margin: 0; } dl.input dt { font-size: 12px; color: var(--muted); margin-top: 4px; }
dl.input dd { margin: 0; } dl.input dd > pre { margin-top: 0; }
.md > :first-child { margin-top: 0; } .md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md pre, .md table, .md blockquote { margin: 6px 0; }
.md h4, .md h5, .md h6 { margin: 10px 0 4px; font-size: 1em; }
.md table { border-collapse: collapse; } .md th, .md td { border: 1px solid var(--line); padding: 2px 6px; }
.md blockquote { border-left: 3px solid var(--line); margin-left: 0; padding-left: 8px; color: var(--muted); }
.md pre code { background: none; padding: 0; font-size: 1em; }
details.diff > summary { font-size: 13px; color: var(--muted); }
details.diff > summary .mono { color: var(--fg); }
.diff-lines ins, .diff-lines del, .diff-lines .ctx, .diff-lines .hunk { display: block; text-decoration: none; min-height: 1.45em; }
.diff-lines ins { background: rgba(26, 127, 55, 0.15); } .diff-lines ins::before { content: "+ "; }
.diff-lines del { background: rgba(209, 36, 47, 0.15); } .diff-lines del::before { content: "- "; }
.diff-lines .ctx::before { content: "  "; } .diff-lines .hunk { color: var(--muted); }
.diff-lines .hunk::before { content: "···"; }
.diff-lines.whole del::before, .diff-lines.whole ins::before { content: none; }
.diff-lines.whole del, .diff-lines.whole ins { padding-left: 6px; border-left: 3px solid; }
.blank { font-size: 13px; margin: 2px 0; }
.linked { border-color: var(--link); }
#records:not(:target):not(:has(:target)) { display: none; }
body:has(#records:target, #records :target) #reading { display: none; }
#views a[data-view="reading"], body:has(#records:target, #records :target) #views a[data-view="records"] { font-weight: 700; }
body:has(#records:target, #records :target) #views a[data-view="reading"] { font-weight: 400; }
#reading { display: block; }
#reading h2 .muted { font-weight: 400; font-size: 14px; }
.rturn { margin: 14px 0 20px; }
.rturn > .rhead { font-size: 12.5px; color: var(--muted); border-top: 1px solid var(--line); padding-top: 6px; margin: 0 0 4px; }
.rturn > .rhead a { color: var(--muted); }
.rturn .warn { color: var(--warn); } .rturn .bad { color: var(--bad); }
.say { margin: 10px 0; }
.say > .who { font-size: 12.5px; font-weight: 700; margin-bottom: 2px; }
.say.user { background: var(--card); border-left: 3px solid var(--user); border-radius: 0 8px 8px 0; padding: 6px 12px; }
.say.user > .who { color: var(--user); } .say.assistant > .who { color: var(--assistant); }
.say .text { white-space: pre-wrap; } .say .text.md { white-space: normal; }
details.say > summary { font-size: 13px; color: var(--muted); }
details.tool, details.thinking, details.subagent { margin: 6px 0; border: 1px solid var(--line); border-radius: 6px; }
details.tool > summary, details.thinking > summary, details.subagent > summary { padding: 3px 10px; font-size: 13.5px; }
details.tool[open] > summary, details.thinking[open] > summary, details.subagent[open] > summary { border-bottom: 1px solid var(--line); }
details.tool > :not(summary), details.thinking > :not(summary), details.subagent > :not(summary) { margin: 6px 10px; }
.tname { font-weight: 700; color: var(--tool); font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
details.tool .preview { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; color: var(--muted); }
details.thinking { border-style: dashed; } details.thinking > summary { color: var(--compact); font-style: italic; }
.thinking-note, .unshown { font-size: 13px; color: var(--muted); font-style: italic; margin: 4px 0; }
.result > .label { font-size: 12px; color: var(--muted); margin-top: 4px; }
.result.error > .label { color: var(--bad); font-weight: 600; }
details.subagent { border-color: var(--link); } details.subagent > summary .tname { color: var(--link); }
.rturn.nested { margin: 8px 0; padding-left: 10px; border-left: 2px solid var(--line); }
footer { margin: 28px 0 8px; padding-top: 12px; border-top: 1px solid var(--line); font-size: 13.5px; color: var(--muted); }
footer pre { color: var(--fg); }
#message .message { white-space: pre-wrap; }
.sessions { list-style: none; margin: 0; padding: 0; }
.sessions li { border: 1px solid var(--line); border-radius: 8px; margin: 8px 0; padding: 8px 12px; }
.sessions .top { display: flex; flex-wrap: wrap; gap: 2px 12px; align-items: baseline; font-size: 13.5px; color: var(--muted); }
.sessions .top a { font-weight: 700; font-size: 15px; }
.sessions .prompt { margin: 4px 0 0; white-space: pre-wrap; }
@media (max-width: 600px) {
  body { padding: 10px; font-size: 14.5px; }
  #session dl { grid-template-columns: minmax(0, 1fr); }
  #session dt { margin-top: 4px; }
  .turn .body { padding: 4px 8px 8px; }
  .entry { padding-left: 7px; }
}
`;

/** What the session list and the search page add to {@linkcode PAGE_STYLE}: the box, the rows. */
export const BROWSE_SHEET = `
#search { display: flex; gap: 6px; margin: 12px 0 4px; }
#search input { flex: 1; min-width: 0; font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
#search button { font: inherit; padding: 6px 12px; border: 1px solid var(--line); border-radius: 6px; background: var(--card); color: var(--fg); }
.project h2 { font-size: 15px; margin: 18px 0 4px; overflow-wrap: anywhere; }
.sessions .tool { font-weight: 600; color: var(--fg); }
.sessions .writing { color: var(--ok); font-weight: 600; }
.sessions .health.bad { color: var(--bad); } .sessions .health.ok { color: var(--ok); }
mark { background: var(--warn-bg); color: inherit; }
.sessions .hits { list-style: none; margin: 6px 0 0; padding: 0; }
.sessions .hits li { border: 0; border-left: 3px solid var(--line); border-radius: 0; margin: 4px 0; padding: 0 0 0 8px; font-size: 14px; }
.pager { margin: 16px 0; }
`;
