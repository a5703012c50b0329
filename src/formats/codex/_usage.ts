/**
 * A Codex rollout's usage, as Codex totals it: one event per model response, from its
 * `token_usage_record` (0.169 on: written at once, also for a turn killed before its
 * `token_count`) or else its `token_count` event's `last_token_usage` (else the growth of
 * `total_token_usage`). A `token_count` that repeats the totals before it (Codex writes one
 * again when only the rate limits changed) or that follows a `token_usage_record` of the same
 * response counts nothing: the events add up to Codex's own total. The model is the last
 * `turn_context`'s. Only lines that hold one of those types are parsed.
 *
 * @module
 */
import { isObject, type Json, obj, str } from "../_line.ts";
import { type FileUsage, noUsage, tokenField, type UsageEvent } from "../_usage.ts";
import { forEachMarkedRecord } from "../_usage_lines.ts";

/** The lines that can carry a rollout's usage or what it is told with. */
const MARKERS = ['"turn_context"', '"token_count"', '"token_usage_record"', '"session_meta"'];

/** The price table's provider of Codex's models. */
export const CODEX_PROVIDER = "openai";

interface Totals {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  total: number;
}

const totalsOf = (value: unknown): Totals | undefined =>
  isObject(value)
    ? {
      input: tokenField(value, "input_tokens"),
      cached: tokenField(value, "cached_input_tokens"),
      output: tokenField(value, "output_tokens"),
      reasoning: tokenField(value, "reasoning_output_tokens"),
      total: tokenField(value, "total_tokens"),
    }
    : undefined;

const minus = (a: Totals, b: Totals | undefined): Totals =>
  b === undefined ? a : {
    input: Math.max(0, a.input - b.input),
    cached: Math.max(0, a.cached - b.cached),
    output: Math.max(0, a.output - b.output),
    reasoning: Math.max(0, a.reasoning - b.reasoning),
    total: Math.max(0, a.total - b.total),
  };

const same = (a: Totals, b: Totals | undefined): boolean =>
  b !== undefined && a.input === b.input && a.cached === b.cached && a.output === b.output &&
  a.total === b.total;

/** The usage of one Codex rollout. */
export async function codexUsage(path: string): Promise<FileUsage> {
  const usage = noUsage(CODEX_PROVIDER);
  let model: string | null = null;
  let lastTotal: Totals | undefined;
  let recorded = false;
  const add = (time: string, last: Totals) => {
    if (last.input === 0 && last.cached === 0 && last.output === 0) return;
    const cached = Math.min(last.cached, last.input);
    const event: UsageEvent = {
      time,
      model,
      input: last.input - cached,
      output: last.output,
      cacheRead: cached,
      cacheCreation: 0,
      reasoningOutput: last.reasoning,
    };
    usage.events.push(event);
  };
  await forEachMarkedRecord(path, MARKERS, usage, (value) => {
    const payload = obj(value, "payload");
    if (!payload) return;
    const time = str(value, "timestamp") ?? "";
    switch (value.type) {
      case "session_meta":
        usage.sessionId ??= str(payload, "id") ?? null;
        usage.cwd ??= str(payload, "cwd") ?? null;
        return;
      case "turn_context":
        model = str(payload, "model") ?? model;
        usage.cwd ??= str(payload, "cwd") ?? null;
        return;
      case "event_msg": {
        if (payload.type !== "token_count") return;
        const counted = tokenCount(payload, lastTotal, recorded);
        recorded = false;
        if (counted.total !== undefined) lastTotal = counted.total;
        if (counted.last !== undefined) add(time, counted.last);
        return;
      }
      case "token_usage_record": {
        const last = totalsOf(payload.usage);
        if (last === undefined) return;
        recorded = true;
        add(time, last);
      }
    }
  });
  return usage;
}

/** What a `token_count` event counts: its response's usage, or nothing (a repeat). */
function tokenCount(
  payload: Json,
  before: Totals | undefined,
  recorded: boolean,
): { total?: Totals; last?: Totals } {
  const info = obj(payload, "info");
  if (!info) return {};
  const total = totalsOf(info.total_token_usage);
  if (recorded || (total !== undefined && same(total, before))) return total ? { total } : {};
  const last = totalsOf(info.last_token_usage) ??
    (total === undefined ? undefined : minus(total, before));
  return { ...(total && { total }), ...(last && { last }) };
}
