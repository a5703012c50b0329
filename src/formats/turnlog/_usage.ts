/**
 * A turnlog session's usage: one event per run (`run_finished` keeps the run's usage added
 * up), with the model of the run's `turn_context` and the provider of `session_meta`. turnlog
 * keeps no cache split: every prompt token is `input`.
 *
 * @module
 */
import { num, obj, str } from "../_line.ts";
import { type FileUsage, noUsage } from "../_usage.ts";
import { forEachMarkedRecord } from "../_usage_lines.ts";

/** The usage of one turnlog session file. */
export async function turnlogUsage(path: string): Promise<FileUsage> {
  const usage = noUsage(null);
  let model: string | null = null;
  await forEachMarkedRecord(path, ['"run_finished"', '"turn_context"', '"session_meta"'], usage, (
    value,
  ) => {
    const payload = obj(value, "payload");
    if (!payload) return;
    if (value.type === "session_meta") {
      usage.sessionId ??= str(payload, "id") ?? null;
      usage.cwd ??= str(payload, "cwd") ?? null;
      usage.provider ??= str(payload, "modelProvider") ?? null;
      model ??= str(payload, "model") ?? null;
    } else if (value.type === "turn_context") {
      model = str(payload, "model") ?? model;
    } else if (value.type === "run_finished") {
      const used = obj(payload, "usage");
      const time = str(value, "timestamp");
      if (!used || time === undefined) return;
      usage.events.push({
        time,
        model,
        input: num(used, "inputTokens") ?? 0,
        output: num(used, "outputTokens") ?? 0,
        cacheRead: 0,
        cacheCreation: 0,
        reasoningOutput: 0,
      });
    }
  });
  return usage;
}
