/**
 * The page's size budget: which turns a session page shows whole, which by their summary
 * line only, and which it leaves off, so that a session of tens of thousands of turns still
 * gives a page a browser opens. The newest turns come first: they are what a reader opens a
 * session to see, and a live page grows at that end.
 *
 * @module
 */
import type { Turn } from "../inspect/mod.ts";

/** How the page shows its turns, by position in `report.turns` (0-based). */
export interface TurnPlan {
  /** The first turn on the page; the ones before it are left off. */
  firstListed: number;
  /** The first turn shown whole; the ones from `firstListed` up to it show their summary. */
  firstWhole: number;
}

/** What {@linkcode planTurns} works within. */
export interface BudgetOptions {
  /** Bytes of HTML the whole turns may take, about. */
  maxBytes: number;
  /** Turns on the page at most, whole or by their summary line. */
  maxTurns: number;
  /** Characters of one text the page holds (the rest is counted, not shown). */
  textChars: number;
}

/** Bytes of markup around one line of a turn, about (its head, its line link, its box). */
const ENTRY_OVERHEAD = 400;
/** Bytes of a turn's summary line and frame, about. */
const TURN_OVERHEAD = 700;

/**
 * The HTML a turn takes on the page, about: its frame, and for each line its markup and its
 * text as shown (escaping makes some text longer, hence the margin), in both of its views.
 */
export function estimateTurnBytes(turn: Turn, textChars: number): number {
  let bytes = TURN_OVERHEAD;
  for (const entry of turn.entries ?? []) {
    bytes += ENTRY_OVERHEAD;
    if ("text" in entry && entry.text !== undefined) {
      bytes += Math.min(entry.text.length, textChars) * 1.2;
    }
  }
  // The page holds each turn twice: in the reading view and in the record view.
  return bytes * 2;
}

/**
 * Plans the page from the newest turn back: whole turns while their HTML fits `maxBytes`
 * (the newest one always), then summary lines up to `maxTurns` turns in all.
 *
 * @example
 * ```ts ignore
 * const plan = planTurns(report.turns, { maxBytes: 12e6, maxTurns: 5000, textChars: 2000 });
 * ```
 */
export function planTurns(turns: readonly Turn[], options: BudgetOptions): TurnPlan {
  let firstWhole = turns.length;
  let spent = 0;
  while (firstWhole > 0) {
    const cost = estimateTurnBytes(turns[firstWhole - 1]!, options.textChars);
    if (firstWhole < turns.length && spent + cost > options.maxBytes) break;
    spent += cost;
    firstWhole--;
  }
  const listed = Math.max(turns.length - firstWhole, options.maxTurns);
  return { firstListed: Math.max(0, turns.length - listed), firstWhole };
}
