/**
 * What a session's responses cost: each priced from the table (loaded only when a cost is
 * asked for: the table is large), the tool's own figure shared out over them where it wrote one,
 * a model without a price left unpriced; and the cost of each turn, from the times of the
 * responses.
 *
 * @module
 */
import type { ToolCost, UsageEvent } from "../formats/mod.ts";
import type { PriceBook } from "./_prices.ts";
import { PRICE_TABLE } from "./_table.ts";

/** Prices tokens from the offline table (`PriceBook`), the table's module loaded on the first call. */
export async function loadPriceBook(): Promise<PriceBook> {
  const { PriceBook } = await import("./_prices.ts");
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

/** A session's cost, as `inspect` shows it. */
export interface SessionCost {
  /** US dollars of what has a price; null when nothing has one. */
  usd: number | null;
  /** Where it came from, in words: the tool's own figure, the price table, or both. */
  source: string;
  /** Models without a price, each once. */
  unpricedModels: string[];
}

/** Options of {@linkcode reckonCost}. */
export interface ReckonCostOptions {
  /** The price table's provider of the session's models, or null. */
  provider: string | null;
  /** The tool's own figure, when the file keeps one. */
  toolCost?: ToolCost | null | undefined;
  /** The start time of each turn, in order: each response's cost goes to its turn. */
  turnTimes?: readonly string[];
}

/**
 * The session's cost and each turn's (a turn without responses: undefined; null: only models
 * without a price), from its responses.
 */
export async function reckonCost(
  events: readonly UsageEvent[],
  options: ReckonCostOptions,
): Promise<{ session: SessionCost; turns: (number | null | undefined)[] }> {
  const book = await loadPriceBook();
  const rows: PricedEvent[] = events.map((event) => {
    const cost = book.price(event, event.model, options.provider, event.time);
    return { ...event, cost, costSource: cost === null ? null : "table" };
  });
  const tool = options.toolCost ? applyToolCost(rows, options.toolCost) : false;
  const unpriced = new Set<string>();
  let usd: number | null = null;
  let table = false;
  for (const row of rows) {
    if (row.cost === null) {
      if (tokensOf(row) > 0) unpriced.add(row.model ?? "(unknown)");
      continue;
    }
    usd = (usd ?? 0) + row.cost;
    if (row.costSource === "table") table = true;
  }
  const sources = [
    ...(tool ? [options.toolCost!.source] : []),
    ...(table ? [`the price table ${PRICE_TABLE}`] : []),
  ];
  const times = options.turnTimes ?? [];
  const turns: (number | null | undefined)[] = times.map(() => undefined);
  const turnOf = turnFinder(times);
  for (const row of rows) {
    if (times.length === 0) break;
    const at = turnOf(row.time);
    const before = turns[at];
    if (row.cost === null) turns[at] = before ?? null;
    else turns[at] = (before ?? 0) + row.cost;
  }
  return {
    session: {
      usd,
      source: sources.length === 0 ? "no price known" : sources.join(" and "),
      unpricedModels: [...unpriced].sort(),
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
  return (time) => {
    // The first j >= 1 with latest[j] > time; the response belongs to turn j - 1.
    let low = 1;
    let high = times.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (latest[middle]! > time) high = middle;
      else low = middle + 1;
    }
    return low - 1;
  };
}
