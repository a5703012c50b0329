/**
 * The findings and the charts of the session page: what needs attention, with links to its
 * lines, and the two charts inline as SVG.
 *
 * @module
 */
import { historySizeChart, recordCountRows, recordsPerTurnChart } from "../charts/mod.ts";
import type { SessionAdapter } from "../formats/mod.ts";
import { type InspectReport, verdictOf } from "../inspect/mod.ts";
import { escapeHtml, escapeText, firstLine, withoutLocation } from "./_escape.ts";
import { formatNumber, plural } from "../text/mod.ts";
import { historySizeFromReport } from "./_history.ts";
import { orphanFix } from "./_facts.ts";
import { type LinkedSession, linkedSessions, type LinkKind } from "./_links.ts";

/**
 * A list of findings; a long one is folded, so the charts and turns stay near the top, and
 * one longer than `max` shows its first `max` items and counts the rest.
 */
function list(title: string, items: string[], max: number): string {
  if (items.length === 0) return "";
  const more = items.length > max
    ? `<li class="muted">and ${
      formatNumber(items.length - max)
    } more (inspect --json lists them all)</li>`
    : "";
  return `<details class="finding" data-key="findings-${title.toLowerCase().replaceAll(" ", "-")}"${
    items.length <= 10 ? " open" : ""
  }><summary><h3>${title} (${formatNumber(items.length)})</h3></summary><ul>${
    items.slice(0, max).join("")
  }${more}</ul></details>`;
}

const at = (line: number, turn: number | null) =>
  `<a href="#line-${line}">line ${line}</a>${turn === null ? "" : ` (turn ${turn})`}`;

/**
 * The findings of a report: problems (each `data-line`), orphan calls, synthesized outputs,
 * checkpoints, forks and subagents, each a list linking to its lines.
 */
export function findingsHtml(
  report: InspectReport,
  options: {
    sessionHref?: ((id: string, kind?: LinkKind) => string) | undefined;
    maxFindings: number;
    adapter: SessionAdapter;
  },
): string {
  const max = options.maxFindings;
  const synthesized = report.synthesizedOutputs.map((s) =>
    `<li>${at(s.line, s.turn)}: <code>${escapeText(s.callId)}</code> (${
      escapeText(s.toolName)
    }) answers ${
      s.call ? `the call at ${at(s.call.line, s.call.turn)}` : "no call in the file"
    }</li>`
  );
  const orphans = report.orphanCalls.map((c) =>
    `<li>${at(c.line, c.turn)}: <code>${escapeText(c.callId)}</code> (${escapeText(c.name)})${
      c.inCheckpoint ? " in the checkpoint's replacement history" : ""
    }: ${escapeText(orphanFix(options.adapter))}</li>`
  );
  const checkpoints = report.checkpoints.map((c) =>
    `<li>${at(c.line, c.turn)}: ${escapeText(c.reason)}, ${
      plural(c.removedItemCount, "item")
    } removed, ${formatNumber(c.tokensBefore)} tokens before, ${
      plural(c.replacementItemCount, "item")
    } after</li>`
  );
  const links = linkedSessions(report);
  const linkItem = (link: LinkedSession) => {
    const id = escapeText(link.id);
    const target = options.sessionHref
      ? `<a href="${escapeHtml(options.sessionHref(link.id, link.kind))}"><code>${id}</code></a>`
      : `<code>${id}</code>`;
    const place = link.line === null ? "" : ` at ${at(link.line, link.turn)}`;
    const title = link.title === null ? "" : `: ${escapeText(firstLine(link.title, 160))}`;
    return `<li data-${link.kind}="${escapeHtml(link.id)}">${target}${place}${title}</li>`;
  };
  const problems = report.problems.map((p) =>
    `<li class="problem-item" data-line="${p.line}" data-kind="${escapeHtml(p.kind)}">${
      at(p.line, p.turn)
    } <b>${escapeHtml(p.kind)}</b>: <span class="mono">${
      escapeText(withoutLocation(p.message, p.line))
    }</span></li>`
  );
  const body = [
    list("Problems", problems, max),
    list("Orphan calls", orphans, max),
    list("Synthesized outputs", synthesized, max),
    list("Compaction checkpoints", checkpoints, max),
    list("Forks", links.filter((l) => l.kind === "fork").map(linkItem), max),
    list("Subagents", links.filter((l) => l.kind === "subagent").map(linkItem), max),
  ].join("");
  const summary = escapeText(healthWords(report, options.adapter));
  return `<section id="findings" class="findings"><h2>Findings</h2><p>${summary}</p>${body}</section>\n`;
}

/** The verdict in a sentence, in the words of the file's tool. */
function healthWords(report: InspectReport, adapter: SessionAdapter): string {
  const { healthy, words } = verdictOf(report);
  if (healthy) {
    // A file with no conversation is said so, as the badge, the text view and --json say.
    return words === "healthy"
      ? "Healthy: no damaged line, no orphan call."
      : `${words[0]!.toUpperCase()}${words.slice(1)}.`;
  }
  return adapter.own
    ? `This file needs attention (${words}): resume would repair or skip what is listed below.`
    : `This file needs attention (${words}): ${adapter.shortTool} would refuse what is listed below; inspect --repair shows how it would be mended.`;
}

/** Two charts fit side by side at this width, and a phone scales them down by a third. */
const CHART_WIDTH = 560;

/** The records turnlog writes to keep its own sessions, not a conversation's. */
const BOOKKEEPING: ReadonlySet<string> = new Set(["session_meta", "turn_context", "run_finished"]);

/**
 * A chart's SVG as the page holds it: without its own `<style>` and its root's `style`
 * attribute, which the page's policy does not allow (the page's stylesheet says the same for
 * `#charts svg`). The SVG is the charts' own serializer's: one root tag, one `<style>` first.
 */
export function chartForPage(svg: string): string {
  const rootEnd = svg.indexOf(">");
  const root = svg.slice(0, rootEnd).replace(/ style="[^"]*"/, "");
  return root + svg.slice(rootEnd).replace(/^><style>[^<]*<\/style>/, ">");
}

/**
 * The two charts of the newest `chartTurns` turns, inline SVG: records written per turn, and
 * the model-visible history's size (worked out from the report).
 */
export function chartsHtml(
  report: InspectReport,
  settings: { chartTurns: number; adapter: SessionAdapter },
): string {
  if (report.turns.length === 0) {
    return `<section id="charts"><p class="muted">No turns, no charts.</p></section>\n`;
  }
  const first = report.turns.length - settings.chartTurns;
  const shown = first > 0 ? report.turns.slice(first) : report.turns;
  const window = first > 0
    ? `The newest ${formatNumber(shown.length)} of ${formatNumber(report.turns.length)} turns`
    : undefined;
  const foreign = !settings.adapter.own;
  const all = recordCountRows(shown, {
    header: first > 0 ? {} : report.header.counts,
    synthesized: report.synthesizedOutputs,
  });
  // Another tool's file has no turnlog bookkeeping: its meta, turn and end records are read in.
  const rows = foreign ? all.filter((row) => !BOOKKEEPING.has(row.kind)) : all;
  const records = recordsPerTurnChart(rows, {
    width: CHART_WIDTH,
    ...(foreign ? { title: "Messages and calls per turn" } : {}),
    subtitle: window
      ? `${window}, one bar each`
      : "Each bar is one turn; the colours are the kinds of record",
  });
  const history = historySizeFromReport(report);
  const points = history.points.filter((point) => point.turn > first);
  const historySvg = historySizeChart(points, {
    width: CHART_WIDTH,
    subtitle: !history.exact
      ? "Approximate: a turn with a compaction has no entries in the report"
      : window
      ? `${window}; a drop is a compaction`
      : "Items the model is sent; a drop is a compaction",
  });
  return `<section id="charts"><h2>Charts</h2><div class="charts">
<figure data-chart="records-per-turn">${chartForPage(records)}</figure>
<figure data-chart="history-size">${chartForPage(historySvg)}</figure>
</div></section>
`;
}
