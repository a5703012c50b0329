/**
 * The usage reports: responses grouped by day, month, session, project or model, in ccusage's
 * JSON shape where the fields mean the same (`daily[]`, `monthly[]`, `sessions[]` with
 * `inputTokens` not cached, `cacheCreationTokens`, `cacheReadTokens`, `outputTokens`,
 * `reasoningOutputTokens`, `totalTokens`, `totalCost`, `modelsUsed`, `modelBreakdowns`).
 * Days and months are the local time zone's (`TZ`), as ccusage groups them. A model with no
 * price is never counted as $0: its row says so and the report lists it once.
 *
 * @module
 */
import type { CostSource, UsageRow } from "./_collect.ts";

/** How a report groups the responses. */
export type UsageReportKind = "daily" | "monthly" | "session" | "project" | "model";

/** Every report kind, in the order the help lists them. */
export const USAGE_REPORT_KINDS: readonly UsageReportKind[] = [
  "daily",
  "monthly",
  "session",
  "project",
  "model",
];

/** Token counts and their cost, as ccusage names them. */
export interface UsageTotals {
  /** Prompt tokens not read from a cache nor written to one. */
  inputTokens: number;
  /** Output tokens (reasoning included). */
  outputTokens: number;
  /** Prompt tokens written to a cache. */
  cacheCreationTokens: number;
  /** Prompt tokens read from a cache. */
  cacheReadTokens: number;
  /** The part of the output spent reasoning. */
  reasoningOutputTokens: number;
  /** Input, output, cache writes and cache reads added up. */
  totalTokens: number;
  /** The cost in US dollars of what has a price; null when nothing has one. */
  totalCost: number | null;
}

/** One model's part of a row (`--breakdown`). */
export interface ModelBreakdown extends Omit<UsageTotals, "totalCost"> {
  /** The model. */
  modelName: string;
  /** Its cost in US dollars, or null when the model has no price. */
  cost: number | null;
}

/** One row of a report. */
export interface UsageReportRow extends UsageTotals {
  /** The day (`2026-02-23`), month (`2026-02`), session id, project or model of the row. */
  key: string;
  /** Models in the row, sorted. */
  modelsUsed: string[];
  /** Models in the row that have no price. */
  unpricedModels: string[];
  /** Where the costs came from: the tool's own figure, the price table, or both. */
  costSources: CostSource[];
  /** The latest response (ISO 8601). */
  lastActivity: string;
  /** The formats of the sessions in the row. */
  formats: string[];
  /** The session's project and file (session rows). */
  projectPath?: string | null;
  /** The session's file (session rows). */
  sessionFile?: string;
  /** Each model's part, when asked for. */
  modelBreakdowns?: ModelBreakdown[];
}

/** A report: its rows, their totals, and the models without a price, once. */
export interface UsageReport {
  /** How it groups. */
  kind: UsageReportKind;
  /** The rows, in key order (sessions: by last activity). */
  rows: UsageReportRow[];
  /** Every row added up. */
  totals: UsageTotals;
  /** Models that have no price, each once. */
  unpricedModels: string[];
}

/** Options of {@linkcode usageReport}. */
export interface UsageReportOptions {
  /** Only responses on or after this local day (`20260223` or `2026-02-23`). */
  since?: string | undefined;
  /** Only responses on or before this local day. */
  until?: string | undefined;
  /** Only sessions whose working directory holds this text. */
  project?: string | undefined;
  /** Each row's models apart (`modelBreakdowns`). @default {false} */
  breakdown?: boolean;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * The local day of a time, as `YYYY-MM-DD` (the time zone is the process's: `TZ`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { localDay } from "./mod.ts";
 * assert.match(localDay("2026-02-23T11:40:42.097Z"), /^2026-02-2[34]$/);
 * ```
 */
export function localDay(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return "unknown";
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** A day as `--since` and `--until` take it (`20260223`, `2026-02-23`), or undefined. */
export function parseDay(text: string): string | undefined {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  if (match === null) return undefined;
  const [, y, m, d] = match;
  const day = `${y}-${m}-${d}`;
  const at = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== day ? undefined : day;
}

function keyOf(row: UsageRow, kind: UsageReportKind): string {
  switch (kind) {
    case "daily":
      return localDay(row.time);
    case "monthly":
      return localDay(row.time).slice(0, 7);
    case "session":
      return row.sessionPath;
    case "project":
      return row.project ?? "(unknown)";
    case "model":
      return row.model ?? "(unknown)";
  }
}

interface Sum extends UsageTotals {
  priced: boolean;
}

const emptySum = (): Sum => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
  reasoningOutputTokens: 0,
  totalTokens: 0,
  totalCost: 0,
  priced: false,
});

function add(sum: Sum, row: UsageRow): void {
  sum.inputTokens += row.input;
  sum.outputTokens += row.output;
  sum.cacheCreationTokens += row.cacheCreation;
  sum.cacheReadTokens += row.cacheRead;
  sum.reasoningOutputTokens += row.reasoningOutput;
  sum.totalTokens += row.input + row.output + row.cacheCreation + row.cacheRead;
  if (row.cost !== null) {
    sum.totalCost! += row.cost;
    sum.priced = true;
  }
}

function totalsOf(sum: Sum): UsageTotals {
  const { priced, ...totals } = sum;
  return { ...totals, totalCost: priced ? totals.totalCost : null };
}

/**
 * The report of `kind` over the responses, filtered by day and project.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { usageReport } from "./mod.ts";
 * const row = {
 *   time: "2026-02-23T12:00:00Z", model: "m", input: 10, output: 5, cacheRead: 100,
 *   cacheCreation: 0, reasoningOutput: 0, format: "codex", sessionId: "s",
 *   sessionPath: "/s.jsonl", project: "/p", cost: null, costSource: null,
 * };
 * const report = usageReport([row], "model");
 * assert.deepEqual(report.rows.map((r) => [r.key, r.totalTokens, r.totalCost]), [["m", 115, null]]);
 * assert.deepEqual(report.unpricedModels, ["m"]);
 * ```
 */
export function usageReport(
  rows: readonly UsageRow[],
  kind: UsageReportKind,
  options: UsageReportOptions = {},
): UsageReport {
  const since = options.since;
  const until = options.until;
  const groups = new Map<string, UsageRow[]>();
  for (const row of rows) {
    if (since !== undefined || until !== undefined) {
      const day = localDay(row.time);
      if ((since !== undefined && day < since) || (until !== undefined && day > until)) continue;
    }
    if (options.project !== undefined && !(row.project ?? "").includes(options.project)) continue;
    const key = keyOf(row, kind);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [row]);
    else group.push(row);
  }
  const all = emptySum();
  const unpriced = new Set<string>();
  const out: UsageReportRow[] = [];
  for (const [key, group] of groups) {
    const sum = emptySum();
    const byModel = new Map<string, Sum>();
    const rowUnpriced = new Set<string>();
    const sources = new Set<CostSource>();
    const formats = new Set<string>();
    let last = "";
    for (const row of group) {
      add(sum, row);
      add(all, row);
      const model = row.model ?? "(unknown)";
      let of = byModel.get(model);
      if (of === undefined) byModel.set(model, of = emptySum());
      add(of, row);
      if (row.cost === null && row.input + row.output + row.cacheRead + row.cacheCreation > 0) {
        rowUnpriced.add(model);
        unpriced.add(model);
      }
      if (row.costSource !== null) sources.add(row.costSource);
      formats.add(row.format);
      if (row.time > last) last = row.time;
    }
    const reportRow: UsageReportRow = {
      key,
      ...totalsOf(sum),
      modelsUsed: [...byModel.keys()].filter((m) => m !== "(unknown)").sort(),
      unpricedModels: [...rowUnpriced].sort(),
      costSources: [...sources].sort(),
      lastActivity: last,
      formats: [...formats].sort(),
    };
    if (kind === "session") {
      reportRow.projectPath = group[0]!.project;
      reportRow.sessionFile = group[0]!.sessionPath;
      reportRow.key = group[0]!.sessionId;
    }
    if (options.breakdown) {
      reportRow.modelBreakdowns = [...byModel].sort(([a], [b]) => a.localeCompare(b)).map((
        [modelName, of],
      ) => {
        const { totalCost, ...tokens } = totalsOf(of);
        return { modelName, ...tokens, cost: totalCost };
      });
    }
    out.push(reportRow);
  }
  if (kind === "session") out.sort((a, b) => a.lastActivity.localeCompare(b.lastActivity));
  else out.sort((a, b) => a.key.localeCompare(b.key));
  return { kind, rows: out, totals: totalsOf(all), unpricedModels: [...unpriced].sort() };
}

const ROWS_KEY: Record<UsageReportKind, string> = {
  daily: "daily",
  monthly: "monthly",
  session: "sessions",
  project: "projects",
  model: "models",
};

const KEY_NAME: Record<UsageReportKind, string> = {
  daily: "date",
  monthly: "month",
  session: "sessionId",
  project: "project",
  model: "model",
};

/**
 * The report as `--json` writes it: ccusage's names (`daily[]` with `date`, `monthly[]` with
 * `month`, `sessions[]` with `sessionId`; `projects[]`, `models[]` are turnlog's), the totals,
 * the models without a price and the price table.
 */
export function usageJson(report: UsageReport, about: Record<string, unknown> = {}): unknown {
  const rows = report.rows.map(({ key, ...row }) => ({ [KEY_NAME[report.kind]]: key, ...row }));
  return {
    [ROWS_KEY[report.kind]]: rows,
    totals: report.totals,
    unpricedModels: report.unpricedModels,
    ...about,
  };
}
