/**
 * The cost of a session and of each of its turns, added to its report when the file reports
 * tokens: from each model response's tokens (another tool's reader keeps them with their times,
 * and their lines where it can; turnlog's own runs keep theirs in `run_finished`), priced as
 * `usage` prices them. A turn's cost is the responses of its own branch: those a rewind left
 * aside count in the session's cost alone, shown as such.
 *
 * @module
 */
import type { ToolCost, UsageEvent, UsageEventList } from "../formats/mod.ts";
import { type AsideSpan, reckonCost } from "../usage/_cost.ts";
import type { SessionFacts } from "./_report_types.ts";
import type { Turn } from "./_turn_types.ts";

/**
 * The responses of a turnlog file: one per run that reported its usage, at its turn's first
 * line (a run is its turn: turns started within one millisecond keep their own cost).
 */
export function runEvents(turns: readonly Turn[]): UsageEvent[] {
  return turns.flatMap((turn) =>
    turn.usage === null ? [] : [{
      time: turn.time,
      line: turn.startLine,
      model: turn.model,
      input: turn.usage.inputTokens,
      output: turn.usage.outputTokens,
      cacheRead: 0,
      cacheCreation: 0,
      reasoningOutput: 0,
    }]
  );
}

/**
 * The session's facts and turns with their cost, when there are responses with tokens;
 * else as they were.
 */
export async function withCost<T extends { session: SessionFacts; turns: Turn[] }>(
  report: T,
  events: UsageEventList | undefined,
  options: {
    provider: string | null;
    toolCost?: ToolCost | null | undefined;
    /** The lines of the branches that are not the conversation (a rewind's). */
    aside?: readonly AsideSpan[] | undefined;
    /**
     * The turns are the caller's alone (a report no one else holds): each cost is set on its
     * turn, not on a copy (a 1 GB rollout's 72,000 turns copied were 11 MB more at its end).
     */
    inPlace?: boolean | undefined;
  },
): Promise<T> {
  if (events === undefined || events.length === 0) return report;
  const cost = await reckonCost(events, {
    provider: options.provider,
    toolCost: options.toolCost,
    turns: report.turns,
    aside: options.aside ?? [],
  });
  const turns = options.inPlace ? report.turns : report.turns.map((turn, i) => {
    const usd = cost.turns[i];
    return usd === undefined ? turn : { ...turn, cost: usd };
  });
  if (options.inPlace) {
    cost.turns.forEach((usd, i) => {
      if (usd !== undefined) turns[i]!.cost = usd;
    });
  }
  return { ...report, session: { ...report.session, cost: cost.session }, turns };
}
