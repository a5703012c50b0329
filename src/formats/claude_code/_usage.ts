/**
 * A Claude Code transcript's usage: one event per assistant line that carries `message.usage`
 * (a response split over several lines repeats it: the events share their key, `message.id`
 * and `requestId`, and are counted once by whoever adds them up), and the session's own cost
 * from its last `cost-state` line. Only the lines that hold `"usage"` or `cost-state` are
 * parsed.
 *
 * @module
 */
import { forEachLine } from "../../io/mod.ts";
import { isObject, type Json, num, obj, str } from "../_line.ts";
import { type FileUsage, noUsage, tokenField, type ToolCost, type UsageEvent } from "../_usage.ts";

/** The price table's provider of Claude Code's models. */
export const CLAUDE_PROVIDER = "anthropic";

/** Claude Code's stand-in model for lines it wrote itself (an error, an interruption). */
const SYNTHETIC = "<synthetic>";

/** The usage of one Claude Code transcript. */
export async function claudeUsage(path: string): Promise<FileUsage> {
  const usage = noUsage(CLAUDE_PROVIDER);
  await forEachLine(path, ({ line, text }) => {
    const cost = text.includes('"cost-state"');
    if (!cost && !text.includes('"usage"')) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      usage.badLines++;
      return;
    }
    if (!isObject(value)) return;
    usage.sessionId ??= str(value, "sessionId") ?? null;
    usage.cwd ??= str(value, "cwd") ?? null;
    if (cost && value.type === "cost-state") {
      usage.toolCost = costStateOf(value, `${path}:${line}`);
      return;
    }
    const event = eventOf(value);
    if (event !== undefined) usage.events.push(event);
  });
  return usage;
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
