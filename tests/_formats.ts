/**
 * Shared helpers of the format tests: fixtures written to a temp folder, and entries told in
 * one short line each so a test can state a whole file's reading exactly.
 *
 * @module
 */
import { join } from "node:path";
import {
  type CollectedSession,
  collectSession,
  type ForeignEntry,
  type SessionFormat,
} from "../src/formats/mod.ts";

/** One entry in a line: `line kind detail`. */
export function describeEntry(entry: ForeignEntry): string {
  if (entry.problem) return `${entry.line} problem ${entry.problem.kind}`;
  if (entry.ignored !== undefined) return `${entry.line} ignored ${entry.ignored}`;
  const record = entry.record!;
  const p = record.payload;
  switch (record.type) {
    case "session_meta":
      return `${entry.line} session_meta ${record.payload.id} ${record.payload.model} ${record.payload.policy.approval}`;
    case "turn_context":
      return `${entry.line} turn_context ${record.payload.runId} ${record.payload.model} ${record.payload.policy.approval}`;
    case "run_finished":
      return `${entry.line} run_finished ${record.payload.runId} ${record.payload.outcome} rounds=${record.payload.rounds}`;
  }
  const item = record.payload;
  switch (item.type) {
    case "message":
      return `${entry.line} ${item.role}: ${item.content}`;
    case "function_call":
      return `${entry.line} call ${item.callId} ${item.name} ${item.arguments}`;
    case "function_call_output":
      return `${entry.line} output ${item.callId} ${item.toolName}${
        item.isError ? " error" : ""
      }: ${item.output}`;
    case "compaction_summary":
      return `${entry.line} summary: ${item.content}`;
    case "compaction_checkpoint":
      return `${entry.line} checkpoint ${item.reason} removed=${item.removedItemCount} kept=${item.keptItemCount} [${
        item.replacementHistory.map((i) =>
          i.type === "message"
            ? `${i.role}:${i.content}`
            : i.type === "function_call" || i.type === "function_call_output"
            ? `${i.type}:${i.callId}`
            : `${i.type}:${i.content}`
        ).join(" | ")
      }]`;
  }
  return `${entry.line} ${String(p)}`;
}

/** Writes `text` to `name` under `dir` and reads it. */
export async function readText(
  dir: string,
  name: string,
  text: string,
  format?: SessionFormat,
): Promise<CollectedSession & { path: string; lines: string[] }> {
  const path = join(dir, name);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
  const session = await collectSession(path, format);
  return { ...session, path, lines: session.entries.map(describeEntry) };
}
