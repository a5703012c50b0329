/**
 * Sessions for the inspector and repair tests, made through the foundation's own API, and
 * hand-broken copies of them.
 *
 * @module
 */
import { RUN_BASE } from "./_helpers.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";

/** A long tool output, to see shortening. */
export const LONG_OUTPUT = "README.md\nsrc/\n" + "x".repeat(900);

/** What {@linkcode makeStory} returns. */
export interface Story {
  sessionId: string;
  path: string;
  runIds: string[];
}

/**
 * A session of three turns: a fresh turn that succeeds; a resumed turn that crashes with a
 * `write_file` call (c3, line 13) left without an output; a resumed turn that gets the
 * synthesized output for c3 (line 15), compacts (line 17) and fails. 21 lines.
 *
 * With `crashOnly`, only the first two turns: the file ends with the orphan call c3.
 */
export async function makeStory(
  root: string,
  options: { crashOnly?: boolean } = {},
): Promise<Story> {
  const first = await initializeSessionForRun({
    ...RUN_BASE,
    root,
    message: "List the files in this folder and tell me what the project does.\nBe brief.",
  });
  await first.writer.append([
    responseItemRecord({
      type: "function_call",
      callId: "c1",
      name: "list_dir",
      arguments: '{"path":"."}',
    }),
    responseItemRecord({
      type: "function_call_output",
      callId: "c1",
      toolName: "list_dir",
      output: LONG_OUTPUT,
      isError: false,
    }),
    responseItemRecord({
      type: "message",
      role: "assistant",
      content: "There is a README and a src folder.",
    }),
    makeRecord("run_finished", {
      runId: first.runId,
      outcome: "succeeded",
      rounds: 2,
      usage: { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 },
    }),
  ]);
  first.writer.close();
  const sessionId = first.sessionId;
  const second = await initializeSessionForRun({
    ...RUN_BASE,
    root,
    sessionId,
    message: "Now fix the typo in README.md",
  });
  await second.writer.append([
    responseItemRecord({
      type: "function_call",
      callId: "c2",
      name: "read_file",
      arguments: '{"path":"README.md"}',
    }),
    responseItemRecord({
      type: "function_call_output",
      callId: "c2",
      toolName: "read_file",
      output: "# Teh project",
      isError: false,
    }),
    responseItemRecord({
      type: "function_call",
      callId: "c3",
      name: "write_file",
      arguments: '{"path":"README.md","content":"# The project"}',
    }),
  ]);
  second.writer.close();
  const runIds = [first.runId, second.runId];
  if (options.crashOnly) return { sessionId, path: first.location.path, runIds };

  const third = await initializeSessionForRun({
    ...RUN_BASE,
    root,
    sessionId,
    message: "Did that work?",
  });
  await third.writer.append([
    responseItemRecord({
      type: "compaction_checkpoint",
      version: 1,
      reason: "token budget",
      tokensBefore: 52000,
      removedItemCount: 9,
      keptItemCount: 2,
      replacementHistory: [
        { type: "message", role: "system", content: RUN_BASE.systemPrompt },
        {
          type: "compaction_summary",
          content: "The user asked to fix a typo; write_file was cut off.",
        },
        { type: "message", role: "user", content: "Did that work?" },
      ],
    }),
    responseItemRecord({
      type: "function_call",
      callId: "c4",
      name: "read_file",
      arguments: '{"path":"README.md"}',
    }),
    responseItemRecord({
      type: "function_call_output",
      callId: "c4",
      toolName: "read_file",
      output: "ENOENT",
      isError: true,
    }),
    responseItemRecord({ type: "message", role: "assistant", content: "README.md is missing." }),
    makeRecord("run_finished", {
      runId: third.runId,
      outcome: "failed",
      error: "model refused",
      rounds: 1,
    }),
  ]);
  third.writer.close();
  return { sessionId, path: first.location.path, runIds: [...runIds, third.runId] };
}

const encoder = new TextEncoder();

/** The bytes of a file split into lines, each without its newline (a last partial one too). */
export function splitLines(bytes: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 10) {
      lines.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < bytes.length) lines.push(bytes.subarray(start));
  return lines;
}

/** Joins lines with newlines, each terminated unless `tornTail`. */
export function joinLines(lines: Uint8Array[], options: { tornTail?: boolean } = {}): Uint8Array {
  const parts: Uint8Array[] = [];
  lines.forEach((line, i) => {
    parts.push(line);
    if (!(options.tornTail && i === lines.length - 1)) parts.push(encoder.encode("\n"));
  });
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Replaces line `n` (1-based) of a file's lines. */
export function replaceLine(lines: Uint8Array[], n: number, text: string): Uint8Array[] {
  return lines.map((line, i) => (i === n - 1 ? encoder.encode(text) : line));
}

/** Lines of the sidecar that are original bytes (not the `#` headers), as byte strings. */
export function sidecarPayloadLines(bytes: Uint8Array): string[] {
  return splitLines(bytes).map(byteString).filter((line) =>
    !line.startsWith("# turnlog quarantine:")
  );
}

/** Bytes as a string of one character per byte, so lines compare exactly, binary ones too. */
export function byteString(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}

/** A `function_call_output` line whose call is in no session: an orphan output. */
export function strayOutputLine(callId = "zz"): string {
  return JSON.stringify({
    timestamp: "2026-11-30T10:00:00.000Z",
    type: "response_item",
    payload: {
      type: "function_call_output",
      callId,
      toolName: "read_file",
      output: "?",
      isError: false,
    },
  });
}
