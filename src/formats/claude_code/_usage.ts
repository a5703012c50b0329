/**
 * A Claude Code transcript's usage: one event per response (`message.id` and `requestId`: a
 * response split over several lines repeats its usage on each, and the copy with the most
 * tokens is kept, as ccusage keeps it; the key stays on the event, for a response another file
 * repeats), and the session's own cost
 * from its last `cost-state` line. Only the lines that hold `"usage"` or `cost-state` are
 * parsed.
 *
 * @module
 */
import { isObject, type Json, num, obj, str } from "../_line.ts";
import { type FileUsage, noUsage, tokenField, type ToolCost, type UsageEvent } from "../_usage.ts";
import { forEachMarkedRecord } from "../_usage_lines.ts";

/** The price table's provider of Claude Code's models. */
export const CLAUDE_PROVIDER = "anthropic";

/** Claude Code's stand-in model for lines it wrote itself (an error, an interruption). */
const SYNTHETIC = "<synthetic>";

/** The usage of one Claude Code transcript. */
export async function claudeUsage(path: string): Promise<FileUsage> {
  const usage = noUsage(CLAUDE_PROVIDER);
  // The lines of one response, counted here as they will be across files (the first line's
  // place, the copy with the most tokens): a file keeps one event per response.
  const at = new Map<string, number>();
  await forEachMarkedRecord(path, ['"cost-state"', '"usage"'], usage, (value, line) => {
    usage.sessionId ??= str(value, "sessionId") ?? null;
    usage.cwd ??= str(value, "cwd") ?? null;
    if (value.type === "cost-state") {
      usage.toolCost = costStateOf(value, `${path}:${line}`);
      return;
    }
    const event = eventOf(value);
    if (event === undefined) return;
    const seen = event.key === undefined ? undefined : at.get(event.key);
    if (seen === undefined) {
      if (event.key !== undefined) at.set(event.key, usage.events.length);
      usage.events.push(event);
    } else if (better(event, usage.events[seen]!)) usage.events[seen] = event;
  });
  return usage;
}

const tokensOf = (t: UsageEvent): number => t.input + t.output + t.cacheRead + t.cacheCreation;

/** A copy replaces the one kept when it is the main chain's, or holds more tokens (ccusage's rule). */
function better(copy: UsageEvent, kept: UsageEvent): boolean {
  if ((copy.sidechain === true) !== (kept.sidechain === true)) return kept.sidechain === true;
  return tokensOf(copy) > tokensOf(kept);
}

function eventOf(value: Json): UsageEvent | undefined {
  const message = obj(value, "message");
  const tokens = message && obj(message, "usage");
  const time = str(value, "timestamp");
  if (!tokens || time === undefined) return undefined;
  const model = str(message, "model");
  const messageId = str(message, "id");
  const request = str(value, "requestId");
  const event: UsageEvent = {
    time,
    model: model === undefined || model === SYNTHETIC || model === "" ? null : model,
    input: tokenField(tokens, "input_tokens"),
    output: tokenField(tokens, "output_tokens"),
    cacheRead: tokenField(tokens, "cache_read_input_tokens"),
    cacheCreation: tokenField(tokens, "cache_creation_input_tokens"),
    reasoningOutput: 0,
  };
  if (messageId !== undefined) {
    event.key = `${messageId}|${request ?? ""}`;
    event.messageId = messageId;
  }
  if (value.isSidechain === true) event.sidechain = true;
  return event;
}

function costStateOf(value: Json, where: string): ToolCost {
  const models: Record<string, number> = {};
  for (const [model, used] of Object.entries(obj(value, "modelUsage") ?? {})) {
    const cost = isObject(used) ? num(used, "costUSD") : undefined;
    if (cost !== undefined) models[model] = cost;
  }
  return {
    totalUSD: num(value, "totalCostUSD") ?? null,
    models,
    where,
    source: "Claude Code's cost-state",
  };
}
