/**
 * Shared test fixtures: temp session roots and small builders of records.
 *
 * @module
 */
import type { ResponseItem, SessionRecord } from "../src/record/mod.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import { join } from "node:path";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

/** A fresh temp directory, removed when disposed. */
export async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.makeTempDir({ prefix: "turnlog-test-" });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true });
    },
  };
}

/** What a finished command said, as text. */
export interface Said {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command's output with its streams decoded. */
export function said(output: Deno.CommandOutput): Said {
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The common part of a run's input in tests. */
export const RUN_BASE = {
  systemPrompt: "You are a careful assistant.",
  cwd: "/work/project",
  modelProvider: "embedded",
  model: "scripted",
  wireApi: "responses",
} as const;

export const user = (content: string): ResponseItem => ({ type: "message", role: "user", content });
export const assistant = (content: string): ResponseItem => ({
  type: "message",
  role: "assistant",
  content,
});
export const call = (
  callId: string,
  name = "read_file",
  args = '{"path":"a.txt"}',
): ResponseItem => ({
  type: "function_call",
  callId,
  name,
  arguments: args,
});
export const output = (callId: string, toolName = "read_file", text = "ok"): ResponseItem => ({
  type: "function_call_output",
  callId,
  toolName,
  output: text,
  isError: false,
});

/** Records for history items, as the runtime appends them. */
export function itemRecords(items: ResponseItem[]): SessionRecord[] {
  return items.map((item) => responseItemRecord(item));
}

/** A `run_finished` record for a run that succeeded. */
export function finished(runId: string, rounds = 1): SessionRecord {
  return makeRecord("run_finished", { runId, outcome: "succeeded", rounds });
}

/** The non-empty lines of a file. */
export async function fileLines(path: string): Promise<string[]> {
  return (await Deno.readTextFile(path)).split("\n").filter((line) => line.length > 0);
}

/**
 * Runs `script` in a child Deno whose `globalThis.gc` can be called (a heap measured after a
 * collection is the live heap), and gives back the JSON it printed.
 */
export async function evalWithGc(script: string): Promise<Record<string, unknown>> {
  const ran = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--v8-flags=--expose-gc", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!ran.success) throw new Error(new TextDecoder().decode(ran.stderr));
  return JSON.parse(new TextDecoder().decode(ran.stdout));
}

/** Writes in `dir` a Claude Code transcript of one priced answer (1000 tokens in, 100 out). */
export async function writePricedTranscript(dir: string): Promise<string> {
  const builder = new ClaudeTranscriptBuilder();
  builder.user("Hi");
  builder.assistant([{ text: "Hello" }], { usage: { input: 1000, output: 100 } });
  const path = join(dir, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, builder.text());
  return path;
}
