/**
 * What a session's responses cost: each priced from the prices an earlier process kept
 * (`_kept_prices.ts`), else from the table (loaded only then: it is large), the tool's own
 * figure shared out over them where it wrote one, a model without a price left unpriced; and
 * the cost of each turn: the responses on its own lines where the reader says a response's line
 * (those on a branch a rewind left aside count in the session's cost, shown apart, and in no
 * turn), else by the responses' times.
 *
 * @module
 */
import type { ToolCost, UsageEvent, UsageEventList } from "../formats/mod.ts";
import { late } from "../_late.ts";
import type { PriceBook } from "./_prices.ts";
import { keptPrices } from "./_kept_prices.ts";
import { PRICE_TABLE } from "./_table.ts";

/** Prices tokens from the offline table (`PriceBook`), the table's module loaded on the first call. */
export async function loadPriceBook(): Promise<PriceBook> {
  const { PriceBook } = await late<typeof import("./_prices.ts")>("./_prices.ts", import.meta.url);
  return new PriceBook();
}

/** A response with its cost: null when its model has no price. */
export interface PricedEvent extends UsageEvent {
  /** The cost in US dollars, or null when no price is known. */
  cost: number | null;
  /** Where the cost came from: the tool's own figure, or the price table. */
  costSource: "tool" | "table" | null;
}

const tokensOf = (t: UsageEvent): number => t.input + t.output + t.cacheRead + t.cacheCreation;

/**
 * The tool's own cost of a session, per model, shared out over the session's responses of
 * that model in proportion to their table price (else their tokens): every report then adds
 * up to the tool's figure. A model the tool gave no cost for keeps the table's. Returns
 * whether the tool's figure was used.
 */
export function applyToolCost(rows: PricedEvent[], cost: ToolCost): boolean {
  let applied = false;
  for (const [model, usd] of Object.entries(cost.models)) {
    const of = rows.filter((row) => row.model === model);
    if (of.length === 0) continue;
    const priced = of.every((row) => row.cost !== null && row.cost > 0);
    const weight = (row: PricedEvent) => priced ? row.cost! : tokensOf(row);
    const whole = of.reduce((sum, row) => sum + weight(row), 0);
    for (const row of of) {
      row.cost = whole === 0 ? usd / of.length : usd * weight(row) / whole;
      row.costSource = "tool";
    }
    applied = true;
  }
  return applied;
}

/**
 * The tool's own figure shared out over `events` whose table costs are `costs` (NaN: none):
 * `costs` takes the shared-out figures; each row's source, and whether the figure was used.
 */
function toolCosts(
  events: UsageEventList,
  costs: Float64Array,
  toolCost: ToolCost,
): { applied: boolean; sources: PricedEvent["costSource"][] } {
  const rows: PricedEvent[] = [];
  for (let i = 0; i < events.length; i++) {
    const cost = Number.isNaN(costs[i]!) ? null : costs[i]!;
    rows.push({ ...events.at(i)!, cost, costSource: cost === null ? null : "table" });
  }
  const applied = applyToolCost(rows, toolCost);
  rows.forEach((row, i) => costs[i] = row.cost ?? NaN);
  return { applied, sources: rows.map((row) => row.costSource) };
}

/** A session's cost, as `inspect` shows it. */
export interface SessionCost {
  /** US dollars of what has a price; null when nothing has one. */
  usd: number | null;
  /** Where it came from, in words: the tool's own figure, the price table, or both. */
  source: string;
  /** Models without a price, each once. */
  unpricedModels: string[];
  /**
   * The responses on branches that are not the conversation (a Claude Code rewind's), counted
   * in `usd` (they were paid for) and in no turn; absent when there are none.
   */
  aside?: { responses: number; usd: number | null } | undefined;
}

/** A turn as its cost is reckoned: when it started and the lines it spans. */
export interface CostTurn {
  /** Its start time (ISO 8601). */
  time: string;
  /** Its first line. */
  startLine: number;
  /** Its last line. */
  endLine: number;
}

/** Lines of a branch that is not the conversation: from `line` to `lastLine`. */
export interface AsideSpan {
  /** The branch's first line. */
  line: number;
  /** Its last line. */
  lastLine: number;
}

/** Options of {@linkcode reckonCost}. */
export interface ReckonCostOptions {
  /** The price table's provider of the session's models, or null. */
  provider: string | null;
  /** The tool's own figure, when the file keeps one. */
  toolCost?: ToolCost | null | undefined;
  /**
   * The turns, in order: a response whose line is in a turn's lines goes to that turn; one
   * with no line goes by its time ({@linkcode turnFinder}).
   */
  turns?: readonly CostTurn[];
  /** The start time of each turn, in order, when their lines are not known (`turns` wins). */
  turnTimes?: readonly string[];
  /** The forks (a rewind's, a retry's): a response on their lines goes to no turn. */
  aside?: readonly AsideSpan[];
}

/**
 * Finds, by halving, the span of `spans` (sorted by their first line) that holds `line`: the
 * last one starting at or before it, if it reaches it; -1 for none. `reach[k]` is the furthest
 * last line of the first k + 1 spans, for a span that holds another.
 */
function spanFinder(
  spans: readonly { first: number; last: number }[],
): (line: number) => { at: number; held: boolean } {
  const reach: number[] = [];
  for (const [k, span] of spans.entries()) {
    reach.push(Math.max(reach[k - 1] ?? -Infinity, span.last));
  }
  return (line) => {
    let low = 0;
    let high = spans.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (spans[middle]!.first <= line) low = middle + 1;
      else high = middle;
    }
    const at = low - 1;
    return { at, held: at >= 0 && reach[at]! >= line };
  };
}

/**
 * The turn of each response (its index), or -1 for one on a branch left aside: by its line when
 * it has one and a turn or an aside branch holds it, else by its time ({@linkcode turnFinder}).
 * Each answer takes a few halvings: a 1 GB transcript has over 100,000 responses.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { responseTurnFinder } from "./mod.ts";
 * const turnOf = responseTurnFinder([
 *   { time: "2026-01-01T00:00:00Z", startLine: 1, endLine: 2 },
 *   { time: "2026-01-01T00:01:00Z", startLine: 7, endLine: 8 },
 * ], [{ line: 3, lastLine: 6 }]);
 * assert.equal(turnOf({ time: "2026-01-01T00:00:30Z", line: 4 }), -1);
 * assert.equal(turnOf({ time: "2026-01-01T00:00:30Z", line: 8 }), 1);
 * assert.equal(turnOf({ time: "2026-01-01T00:02:00Z" }), 1);
 * ```
 */
export function responseTurnFinder(
  turns: readonly CostTurn[],
  aside: readonly AsideSpan[] = [],
): (event: Pick<UsageEvent, "time" | "line">) => number {
  const byTime = turnFinder(turns.map((turn) => turn.time));
  const asideSpans = aside.map((span) => ({ first: span.line, last: span.lastLine }))
    .sort((a, b) => a.first - b.first);
  const inAside = spanFinder(asideSpans);
  const order = turns.map((_, index) => index)
    .sort((a, b) => turns[a]!.startLine - turns[b]!.startLine);
  const inTurn = spanFinder(
    order.map((index) => ({ first: turns[index]!.startLine, last: turns[index]!.endLine })),
  );
  return (event) => {
    const { line } = event;
    if (line !== undefined) {
      if (inAside(line).held) return -1;
      const found = inTurn(line);
      const turn = order[found.at];
      if (turn !== undefined && turns[turn]!.endLine >= line) return turn;
    }
    return byTime(event.time);
  };
}

/**
 * The session's cost and each turn's (a turn without responses: undefined; null: only models
 * without a price), from its responses.
 */
export async function reckonCost(
  events: UsageEventList,
  options: ReckonCostOptions,
): Promise<{ session: SessionCost; turns: (number | null | undefined)[] }> {
  // The prices kept by an earlier process, the table loaded only for a price not kept.
  const prices = keptPrices();
  const spans = options.turns ??
    (options.turnTimes ?? []).map((time) => ({ time, startLine: 0, endLine: -1 }));
  const turnOf = responseTurnFinder(spans, options.aside);
  // Each response's cost and turn in columns of their own (NaN: no price; -1: aside), not a copy
  // of each event: a 1 GB rollout's 400,000 responses copied held 45 MB more at the read's end,
  // its peak. Each event is asked for once (a column store makes it again each time).
  const costs = new Float64Array(events.length);
  const turnAt = new Int32Array(spans.length > 0 ? events.length : 0);
  for (let i = 0; i < events.length; i++) {
    const event = events.at(i)!;
    let cost = prices.price(event, event.model, options.provider, event.time);
    if (cost === undefined) {
      await prices.loadTable();
      cost = prices.price(event, event.model, options.provider, event.time);
    }
    costs[i] = cost ?? NaN;
    if (spans.length > 0) turnAt[i] = turnOf(event);
  }
  prices.save();
  // The tool's own figure shared out (Claude Code's cost-state) needs each row: made then only.
  const sourced = options.toolCost ? toolCosts(events, costs, options.toolCost) : null;
  const tool = sourced !== null && sourced.applied;
  const unpriced = new Set<string>();
  let usd: number | null = null;
  let table = false;
  for (let i = 0; i < events.length; i++) {
    const cost = costs[i]!;
    if (Number.isNaN(cost)) {
      const event = events.at(i)!;
      if (tokensOf(event) > 0) unpriced.add(event.model ?? "(unknown)");
      continue;
    }
    usd = (usd ?? 0) + cost;
    if (sourced === null || sourced.sources[i] === "table") table = true;
  }
  const sources = [
    ...(tool ? [options.toolCost!.source] : []),
    ...(table ? [`the price table ${PRICE_TABLE}`] : []),
  ];
  const turns: (number | null | undefined)[] = spans.map(() => undefined);
  let aside: SessionCost["aside"];
  for (let i = 0; i < events.length && spans.length > 0; i++) {
    const at = turnAt[i]!;
    const cost = costs[i]!;
    if (at < 0) {
      aside ??= { responses: 0, usd: null };
      aside.responses++;
      if (!Number.isNaN(cost)) aside.usd = (aside.usd ?? 0) + cost;
      continue;
    }
    const before = turns[at];
    if (Number.isNaN(cost)) turns[at] = before ?? null;
    else turns[at] = (before ?? 0) + cost;
  }
  return {
    session: {
      usd,
      source: sources.length === 0 ? "no price known" : sources.join(" and "),
      unpricedModels: [...unpriced].sort(),
      ...(aside === undefined ? {} : { aside }),
    },
    turns,
  };
}

/**
 * The turn a response at `time` goes to: the one before the first turn (past the first) that
 * starts later than `time`, where a walk from the first turn stops (turns out of order
 * included). Found by halving over the latest start so far, which first passes `time` where the
 * walk would stop: a walk per response took a 1 GB transcript's 110,600 responses over 24,650
 * turns over a billion steps.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { turnFinder } from "./_cost.ts";
 * const turnOf = turnFinder(["b", "d", "c", "f"]);
 * assert.deepEqual(["a", "b", "c", "d", "e", "g"].map(turnOf), [0, 0, 0, 2, 2, 3]);
 * ```
 */
export function turnFinder(times: readonly string[]): (time: string) => number {
  // latest[j]: the latest start among turns 1..j (turn 0 is where every walk starts).
  const latest: string[] = new Array(times.length);
  for (let j = 1; j < times.length; j++) {
    const previous = latest[j - 1];
    latest[j] = previous !== undefined && previous > times[j]! ? previous : times[j]!;
  }
  // The last answer: responses come in time order, so the next is nearly always in the same
  // turn or the one after it, found without halving.
  let last = 0;
  const holds = (j: number, time: string) =>
    (j === 0 || !(latest[j]! > time)) && (j + 1 >= times.length || latest[j + 1]! > time);
  return (time) => {
    if (holds(last, time)) return last;
    if (last + 1 < times.length && holds(last + 1, time)) return ++last;
    // The first j >= 1 with latest[j] > time; the response belongs to turn j - 1.
    let low = 1;
    let high = times.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (latest[middle]! > time) high = middle;
      else low = middle + 1;
    }
    last = low - 1;
    return last;
  };
}
