/**
 * A Gemini CLI session's usage: one event per `gemini` message that carries `tokens`, counted
 * once per message id (Gemini writes a message again each time it changes, and a `$set` of
 * the messages repeats the history: the last copy wins). `input` holds the prompt tokens
 * that were not cached; the thoughts are output tokens spent reasoning (Gemini bills them as
 * output). A legacy single-object file (before 0.39) is one JSON value, read as one.
 *
 * @module
 */
import { isObject, type Json, str } from "../_line.ts";
import { type FileUsage, noUsage, tokenField, type UsageEvent } from "../_usage.ts";
import { forEachMarkedRecord } from "../_usage_lines.ts";
import { projectRootOf } from "./_subagents.ts";

/** The price table's provider of Gemini CLI's models. */
export const GEMINI_PROVIDER = "google";

function eventOf(message: Json): UsageEvent | undefined {
  const tokens = message.tokens;
  const time = str(message, "timestamp");
  if (!isObject(tokens) || time === undefined) return undefined;
  const prompt = tokenField(tokens, "input");
  const cached = Math.min(tokenField(tokens, "cached"), prompt);
  const thoughts = tokenField(tokens, "thoughts");
  return {
    time,
    model: str(message, "model") ?? null,
    input: prompt - cached,
    output: tokenField(tokens, "output") + thoughts,
    cacheRead: cached,
    cacheCreation: 0,
    reasoningOutput: thoughts,
  };
}

/** The usage of one Gemini CLI session file. */
export async function geminiUsage(path: string): Promise<FileUsage> {
  const usage = noUsage(GEMINI_PROVIDER);
  // By message id, in the order of first appearance; the last copy's tokens.
  const byId = new Map<string, UsageEvent>();
  const unnamed: UsageEvent[] = [];
  const see = (message: unknown) => {
    if (!isObject(message) || message.type !== "gemini") return;
    const event = eventOf(message);
    if (event === undefined) return;
    const id = str(message, "id");
    if (id === undefined) unnamed.push(event);
    else byId.set(id, event);
  };
  const seeValue = (value: Json) => {
    usage.sessionId ??= str(value, "sessionId") ?? null;
    const set = value.$set;
    const messages = isObject(set) ? set.messages : value.messages;
    if (Array.isArray(messages)) messages.forEach(see);
    else see(value);
  };
  if (path.endsWith(".json")) {
    try {
      const value = JSON.parse(await Deno.readTextFile(path));
      if (isObject(value)) seeValue(value);
    } catch {
      usage.badLines++;
    }
  } else {
    await forEachMarkedRecord(path, ['"tokens"', '"sessionId"'], usage, seeValue);
  }
  usage.events = [...byId.values(), ...unnamed];
  usage.cwd = await projectRootOf(path);
  return usage;
}
