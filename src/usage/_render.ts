/**
 * A usage report as text for people: one table row per day, month, session, project or model,
 * the totals, where the costs came from, and the models without a price listed once.
 *
 * @module
 */
import { columnWidths, formatNumber, plural } from "../text/_format.ts";
import { PRICE_TABLE } from "./_table.ts";
import type { UsageReport, UsageReportKind, UsageReportRow, UsageTotals } from "./_report.ts";

const FIRST_COLUMN: Record<UsageReportKind, string> = {
  daily: "Date",
  monthly: "Month",
  session: "Session",
  project: "Project",
  model: "Model",
};

/**
 * A cost for people: `$1.23`, `<$0.01` for less than a cent, `$1.23 + unpriced` when some
 * tokens have no price, `unpriced` when none has one; never `$0.00` for an unknown price.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatCost } from "./mod.ts";
 * assert.equal(formatCost(1.234, false), "$1.23");
 * assert.equal(formatCost(null, true), "unpriced");
 * assert.equal(formatCost(0.5, true), "$0.50 + unpriced");
 * ```
 */
export function formatCost(cost: number | null, unpriced: boolean): string {
  if (cost === null) return unpriced ? "unpriced" : "$0.00";
  const money = cost > 0 && cost < 0.005 ? "<$0.01" : `$${cost.toFixed(2)}`;
  return unpriced ? `${money} + unpriced` : money;
}

function cells(
  first: string,
  models: string,
  totals: UsageTotals,
  unpriced: boolean,
): string[] {
  return [
    first,
    models,
    formatNumber(totals.inputTokens),
    formatNumber(totals.outputTokens),
    formatNumber(totals.reasoningOutputTokens),
    formatNumber(totals.cacheCreationTokens),
    formatNumber(totals.cacheReadTokens),
    formatNumber(totals.totalTokens),
    formatCost(totals.totalCost, unpriced),
  ];
}

function firstOf(row: UsageReportRow, kind: UsageReportKind): string {
  if (kind !== "session") return row.key;
  return `${row.key.slice(0, 8)} ${row.formats.join(",")} ${row.projectPath ?? ""}`.trimEnd();
}

/** Options of {@linkcode renderUsage}. */
export interface RenderUsageOptions {
  /** Sessions whose cost is their tool's own figure. @default {0} */
  toolCosts?: number;
  /** What those figures are (`Claude Code's cost-state`). @default {[]} */
  toolCostSources?: readonly string[];
}

/**
 * The report as a table, then the totals, where the costs came from and the models without a
 * price.
 */
export function renderUsage(report: UsageReport, options: RenderUsageOptions = {}): string {
  if (report.rows.length === 0) return "No usage found.\n";
  const titles = [
    FIRST_COLUMN[report.kind],
    "Models",
    "Input",
    "Output",
    "Reasoning",
    "Cache write",
    "Cache read",
    "Total",
    "Cost (USD)",
  ];
  const body: string[][] = [];
  for (const row of report.rows) {
    const models = report.kind === "model" ? "" : row.modelsUsed.join(", ");
    body.push(cells(firstOf(row, report.kind), models, row, row.unpricedModels.length > 0));
    for (const part of row.modelBreakdowns ?? []) {
      body.push(
        cells(
          "",
          `  ${part.modelName}`,
          { ...part, totalCost: part.cost },
          part.cost === null && part.totalTokens > 0,
        ),
      );
    }
  }
  // The model report's rows are models: no column of them.
  const model = report.kind === "model";
  const keep = (row: readonly string[]) => model ? [row[0]!, ...row.slice(2)] : [...row];
  const head = keep(titles);
  const rows = body.map(keep);
  const total = keep(cells("Total", "", report.totals, report.unpricedModels.length > 0));
  const widths = columnWidths(head, [...rows, total]);
  const left = model ? 1 : 2;
  const line = (row: readonly string[]) =>
    row.map((cell, i) => i < left ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))
      .join("  ").trimEnd();
  const rule = widths.map((w) => "-".repeat(w)).join("  ");
  const out = [line(head), rule, ...rows.map(line), rule, line(total), ""];
  const tool = options.toolCosts ?? 0;
  out.push(
    tool > 0
      ? `Costs: the tool's own figure (${(options.toolCostSources ?? []).join(", ")}) for ${
        plural(tool, "session")
      }, the price table ${PRICE_TABLE} (offline) for the rest.`
      : `Costs: the price table ${PRICE_TABLE} (offline).`,
  );
  if (report.unpricedModels.length > 0) {
    out.push(`Unpriced (no price known, not counted as $0): ${report.unpricedModels.join(", ")}`);
  }
  return out.join("\n") + "\n";
}
