/**
 * Shared helpers of the format tests: fixtures written to a temp folder, and entries told in
 * one short line each so a test can state a whole file's reading exactly.
 *
 * @module
 */
import { SessionRecordSchema } from "../src/record/schemas.ts";
import { join } from "node:path";
import {
  type CollectedSession,
  collectSession,
  type ForeignEntry,
  type SessionFormat,
} from "../src/formats/mod.ts";
import { readClaudeTranscript } from "../src/formats/claude_code/mod.ts";
import { normalizeHistory, replayHistory } from "../src/history/mod.ts";
import { type SegmentedSession, TurnSegmenter } from "../src/inspect/mod.ts";
import type { ResponseItem, SessionRecord } from "../src/record/mod.ts";

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

/** Every record that is not valid against turnlog's own schema, with why. */
export function invalidRecords(records: readonly SessionRecord[]): string[] {
  const bad: string[] = [];
  for (const record of records) {
    const parsed = SessionRecordSchema.safeParse(record);
    if (!parsed.success) bad.push(`${record.type}: ${parsed.error.message}`);
  }
  return bad;
}

/** The entries through the inspector's segmenter, as the inspector will feed them. */
export function segment(path: string, entries: readonly ForeignEntry[]): SegmentedSession {
  const segmenter = new TurnSegmenter(path);
  for (const entry of entries) {
    const range = { start: entry.start, end: entry.end };
    if (entry.record) segmenter.push({ line: entry.line, record: entry.record }, range);
    else if (entry.problem) segmenter.push({ line: entry.line, problem: entry.problem }, range);
  }
  return segmenter.finish({ sizeBytes: 0 });
}

/** The history a resume would send: the records replayed and normalized. */
export function resumedHistory(records: readonly SessionRecord[]) {
  return normalizeHistory(replayHistory(records));
}

/** Whether every call of a history is followed by exactly one output and every output has a call. */
export function paired(history: readonly ResponseItem[]): boolean {
  const open = new Set<string>();
  const done = new Set<string>();
  for (const item of history) {
    if (item.type === "function_call") open.add(item.callId);
    if (item.type === "function_call_output") {
      if (!open.has(item.callId) || done.has(item.callId)) return false;
      open.delete(item.callId);
      done.add(item.callId);
    }
  }
  return open.size === 0;
}

/**
 * A Claude Code transcript's entries and facts as its reader gives them, its first pass keeping
 * the lines it parsed when the file is at most `parseOnceBytes` (else the second reads them
 * again).
 */
export async function claudeReadingOf(path: string, parseOnceBytes: number) {
  const { size } = await Deno.stat(path);
  const reader = readClaudeTranscript(path, size, { subagents: false, parseOnceBytes });
  const entries = [];
  let step = await reader.next();
  for (; !step.done; step = await reader.next()) entries.push(...step.value);
  return { entries, facts: step.value };
}
