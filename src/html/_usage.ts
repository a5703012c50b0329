/**
 * The browser's usage page: tokens and cost per day, per project and per model across every
 * place the browser lists, each with a Plot chart (inline SVG) and a table, the costs' sources
 * and the models without a price said once.
 *
 * @module
 */
import { type UsageBar, usageChart } from "../charts/mod.ts";
import { formatNumber } from "../text/mod.ts";
import { formatCost, PRICE_TABLE, type UsageReport, type UsageReportRow } from "../usage/mod.ts";
import { escapeText } from "./_escape.ts";
import { BROWSE_STYLE } from "./_list.ts";
import { simplePageHead } from "./_message.ts";
import { chartForPage } from "./_sections.ts";

/** What the usage page shows: the three reports (with their models apart) and the costs' sources. */
export interface UsagePage {
  /** Per day, with `modelBreakdowns`. */
  daily: UsageReport;
  /** Per project, with `modelBreakdowns`. */
  project: UsageReport;
  /** Per model. */
  model: UsageReport;
  /** Sessions whose cost is their tool's own figure. */
  toolCosts: number;
  /** What those figures are (`Claude Code's cost-state`). */
  toolCostSources: readonly string[];
}

const CHART_WIDTH = 720;

function bars(report: UsageReport, limit: number): UsageBar[] {
  return report.rows.slice(-limit).flatMap((row) =>
    (row.modelBreakdowns ?? []).map((part) => ({
      bar: row.key,
      series: part.modelName,
      value: part.totalTokens,
    }))
  );
}

function table(report: UsageReport, first: string): string {
  const head = [first, "Input", "Output", "Cache write", "Cache read", "Total", "Cost (USD)"];
  const cells = (row: UsageReportRow) => [
    escapeText(row.key),
    formatNumber(row.inputTokens),
    formatNumber(row.outputTokens),
    formatNumber(row.cacheCreationTokens),
    formatNumber(row.cacheReadTokens),
    formatNumber(row.totalTokens),
    escapeText(formatCost(row.totalCost, row.unpricedModels.length > 0)),
  ];
  const total = [
    "Total",
    ...cells({ ...report.totals, key: "", unpricedModels: report.unpricedModels } as UsageReportRow)
      .slice(1),
  ];
  const line = (values: string[], tag: string) =>
    `<tr>${values.map((value) => `<${tag}>${value}</${tag}>`).join("")}</tr>`;
  return `<table class="usage"><thead>${line(head, "th")}</thead><tbody>
${report.rows.map((row) => line(cells(row), "td")).join("\n")}
</tbody><tfoot>${line(total, "th")}</tfoot></table>`;
}

function section(
  id: string,
  title: string,
  report: UsageReport,
  chart: string | undefined,
  first: string,
): string {
  const figure = chart === undefined
    ? ""
    : `<div id="charts"><figure>${chartForPage(chart)}</figure></div>`;
  return `<section id="${id}"><h2>${escapeText(title)}</h2>
${
    report.rows.length === 0
      ? `<p class="muted">Nothing used.</p>`
      : `${figure}\n${table(report, first)}`
  }
</section>`;
}

/**
 * The HTML document of the usage page, under the policy of the list page (no script, nothing
 * loaded).
 */
export function renderUsagePage(page: UsagePage): string {
  const days = 60;
  const daily = page.daily.rows.length === 0 ? undefined : usageChart(bars(page.daily, days), {
    width: CHART_WIDTH,
    xLabel: "Day",
    yLabel: "Tokens",
    subtitle: page.daily.rows.length > days
      ? `The newest ${days} days of ${page.daily.rows.length}, one bar each, a colour per model`
      : "One bar per day (local time), a colour per model",
  });
  const project = page.project.rows.length === 0 ? undefined : usageChart(bars(page.project, 30), {
    width: CHART_WIDTH,
    xLabel: "Project",
    yLabel: "Tokens",
    subtitle: "One bar per working directory, a colour per model",
  });
  const costs = page.toolCosts > 0
    ? `Costs: the tool's own figure (${
      page.toolCostSources.join(", ")
    }) for ${page.toolCosts} sessions, the price table ${PRICE_TABLE} (offline) for the rest.`
    : `Costs: the price table ${PRICE_TABLE} (offline).`;
  const unpriced = page.model.unpricedModels.length === 0
    ? ""
    : `<p class="note warn">No price known (not counted as $0): ${
      escapeText(page.model.unpricedModels.join(", "))
    }</p>`;
  const total = page.model.totals;
  return `${simplePageHead("Usage")}
<body>
${BROWSE_STYLE}
<header id="session"><p class="kicker">turnlog · <a href="/">all sessions</a></p><h1>Usage</h1>
<p class="muted">${formatNumber(total.totalTokens)} tokens, ${
    escapeText(formatCost(total.totalCost, page.model.unpricedModels.length > 0))
  }, as each tool counts them. ${escapeText(costs)}</p>
${unpriced}</header>
<main id="usage">
${section("per-day", "Per day", page.daily, daily, "Day")}
${section("per-project", "Per project", page.project, project, "Project")}
${section("per-model", "Per model", page.model, undefined, "Model")}
</main>
</body>
</html>
`;
}
