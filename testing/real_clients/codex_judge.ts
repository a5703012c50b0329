/**
 * What the Codex real-client suite checks, once each: turnlog's reading of a rollout (through
 * `inspect --json` and the reader), `inspect --repair --write` run twice, no byte lost (every
 * original line in the file or its sidecar, no real output moved or changed), Codex's own
 * totals, and a resume by the real Codex judged against turnlog's reading (ground truth).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import nodeAssert from "node:assert/strict";
import { collectSession } from "../../src/formats/mod.ts";
import { quarantinePath } from "../../src/store/mod.ts";
import { readSidecar } from "../sidecar.ts";
import { type PaginatedUsage, turnlogTokens } from "../formats/codex_paginated.ts";
import {
  type CodexHome,
  codexResume,
  payloadType,
  rolloutRecords,
  sentInput,
  type SentRequest,
} from "./codex.ts";

const assert: (value: unknown, message?: string) => asserts value = nodeAssert.ok;
function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}
const INSPECT = fileURLToPath(new URL("../../cli/inspect.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
/** The output Codex itself sends for a call its file left unanswered. */
const CODEX_ABORTED = "aborted";

/** The last request Codex sent. */
export function lastRequest(home: CodexHome): SentRequest {
  const request = home.api.requests.at(-1);
  if (request === undefined) throw new Error("Codex sent no request");
  return request;
}

const CALLS = new Set(["function_call", "custom_tool_call"]);
const OUTPUTS = new Set(["function_call_output", "custom_tool_call_output"]);

/** A message's text: its content parts' texts joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => typeof part?.text === "string" ? part.text : "").join("");
}

/** Context Codex injects as a user message (`<environment_context>`): not the user's words. */
const INJECTED = /^<([a-z_]+)>[\s\S]*<\/\1>\s*$/;

/**
 * The conversation a request carries, one line per item: `user: <text>` and `assistant:
 * <text>` messages (not the instructions and context Codex injects), `call <id>`, `output
 * <id>: <text>`.
 */
export function sentConversation(request: SentRequest): string[] {
  const lines: string[] = [];
  for (const item of sentInput(request)) {
    const type = String(item.type);
    if (type === "message" && (item.role === "user" || item.role === "assistant")) {
      const text = textOf(item.content);
      if (item.role === "user" && INJECTED.test(text)) continue;
      lines.push(`${item.role}: ${text}`);
    } else if (CALLS.has(type)) lines.push(`call ${item.call_id}`);
    else if (OUTPUTS.has(type)) lines.push(`output ${item.call_id}: ${item.output}`);
  }
  return lines;
}

/** The conversation turnlog's `inspect --history` of a rollout holds, as {@linkcode sentConversation} tells a request's. */
export async function historyConversation(path: string): Promise<string[]> {
  const history = await inspect([path, "--history"]);
  const lines: string[] = [];
  for (const line of history.out.split("\n")) {
    const item = line.startsWith("{") ? JSON.parse(line) : undefined;
    if (item?.type === "message" && (item.role === "user" || item.role === "assistant")) {
      lines.push(`${item.role}: ${item.content}`);
    } else if (item?.type === "function_call") lines.push(`call ${item.callId}`);
    else if (item?.type === "function_call_output") {
      lines.push(`output ${item.callId}: ${item.output}`);
    }
  }
  return lines;
}

/** The outputs a request carries for calls it also carries, but Codex's own `aborted` ones. */
export function realOutputs(request: SentRequest): Map<string, string> {
  const input = sentInput(request);
  const calls = new Set(
    input.filter((item) => CALLS.has(String(item.type))).map((i) => i.call_id),
  );
  const outputs = new Map<string, string>();
  for (const item of input) {
    if (!OUTPUTS.has(String(item.type)) || !calls.has(item.call_id)) continue;
    if (item.output === CODEX_ABORTED) continue;
    outputs.set(String(item.call_id), String(item.output));
  }
  return outputs;
}

/** The calls a request answers with Codex's own `aborted`. */
export function abortedInRequest(request: SentRequest): string[] {
  return sentInput(request).filter((item) =>
    OUTPUTS.has(String(item.type)) && item.output === CODEX_ABORTED
  ).map((item) => String(item.call_id));
}

async function inspect(args: string[]): Promise<{ code: number; out: string }> {
  const ran = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--config=${CONFIG}`, "-A", INSPECT, ...args],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: ran.code, out: decode(ran.stdout) + decode(ran.stderr) };
}

/** turnlog's reading of a rollout, in the terms the suite compares. */
export interface Reading {
  healthy: boolean;
  /** Each turn's outcome; null: it did not finish. */
  outcomes: (string | null)[];
  /** The call ids, in order. */
  calls: string[];
  /** The outputs paired with a call, by call id. */
  outputs: Map<string, string>;
  /**
   * The outputs of the history turnlog would send next (`inspect --history`: from the last
   * compaction on), by call id, but those turnlog synthesizes itself.
   */
  historyOutputs: Map<string, string>;
  orphanCalls: string[];
  orphanOutputs: string[];
  /** Lines turnlog could not read. */
  problems: number;
  tokens: unknown;
  /** Whether the file holds a `turn_aborted` event. */
  wroteTurnAborted: boolean;
}

/** Reads the rollout with `inspect --json` and the Codex reader. */
export async function reading(path: string): Promise<Reading> {
  const { out } = await inspect([path, "--json"]);
  const report = JSON.parse(out.slice(out.indexOf("{")));
  const { records } = await collectSession(path, "codex");
  const calls: string[] = [];
  const outputs = new Map<string, string>();
  for (const record of records) {
    if (record.type !== "response_item") continue;
    const item = record.payload;
    if (item.type === "function_call") calls.push(item.callId);
    if (item.type === "function_call_output" && calls.includes(item.callId)) {
      outputs.set(item.callId, item.output);
    }
  }
  const raw = await rolloutRecords(path);
  const history = await inspect([path, "--history"]);
  const historyOutputs = new Map<string, string>();
  for (const line of history.out.split("\n")) {
    const item = line.startsWith("{") ? JSON.parse(line) : undefined;
    if (item?.type === "function_call_output" && !item.synthesized) {
      historyOutputs.set(item.callId, item.output);
    }
  }
  return {
    healthy: report.healthy,
    outcomes: report.turns.map((turn: { outcome: string | null }) => turn.outcome),
    calls,
    outputs,
    historyOutputs,
    orphanCalls: report.orphanCalls.map((call: { callId: string }) => call.callId),
    orphanOutputs: report.orphanOutputs.map((output: { callId: string }) => output.callId),
    problems: report.problems.length,
    tokens: report.session.tokens,
    wroteTurnAborted: raw.some((record) => payloadType(record) === "turn_aborted"),
  };
}

/**
 * Codex's own total, in turnlog's terms: the last `token_usage_record`'s `thread_token_usage`
 * (0.169), else (older files) the last `token_count` event's `total_token_usage`.
 */
export async function codexTotal(path: string): Promise<unknown> {
  const records = await rolloutRecords(path);
  const last = records.findLast((record) => record.type === "token_usage_record");
  if (last !== undefined) {
    return turnlogTokens(
      (last.payload as { thread_token_usage: PaginatedUsage }).thread_token_usage,
    );
  }
  const count = records.findLast((record) =>
    payloadType(record) === "token_count" &&
    (record.payload as { info?: unknown }).info !== undefined
  );
  const info = (count?.payload as { info?: { total_token_usage: PaginatedUsage } })?.info;
  return info === undefined ? null : turnlogTokens(info.total_token_usage);
}

async function bytesOr(path: string): Promise<Uint8Array> {
  return await Deno.readFile(path).catch(() => new Uint8Array());
}

/**
 * `inspect --repair --write` twice: the second changes nothing (the file and its sidecar keep
 * their bytes). Tells whether the first changed the file.
 */
export async function repairTwice(path: string): Promise<{ changed: boolean; said: string }> {
  const before = await Deno.readFile(path);
  const first = await inspect([path, "--repair", "--write"]);
  assertEquals(first.code, 0, first.out);
  const file = await Deno.readFile(path);
  const sidecar = await bytesOr(quarantinePath(path));
  const second = await inspect([path, "--repair", "--write"]);
  assertEquals(second.code, 0, second.out);
  assertEquals(await Deno.readFile(path), file, "a second repair changes nothing");
  assertEquals(await bytesOr(quarantinePath(path)), sidecar, "nor the sidecar");
  const same = before.length === file.length && before.every((byte, at) => byte === file[at]);
  return { changed: !same, said: first.out };
}

const linesOf = (text: string) =>
  text.split("\n").filter((line, at, all) => line !== "" || at < all.length - 1);
const WRITTEN = "written by turnlog repair";

/**
 * Every original line is in the file or its sidecar, in order, beside the lines repair wrote;
 * every output that answers a call in the original stays in the file, byte for byte.
 */
export async function assertNothingLost(path: string, original: Uint8Array): Promise<void> {
  const decoder = new TextDecoder();
  const was = linesOf(decoder.decode(original));
  const now = linesOf(await Deno.readTextFile(path));
  const kept = new Set((await readSidecar(path)).map((entry) => decoder.decode(entry.bytes)));
  // A line renumbered in place: its original is in the sidecar, the same record but its ordinal.
  const renumbered = new Set([...kept].map(withoutOrdinal));
  const wasLines = new Set(was);
  assertEquals(
    now.filter((line) =>
      !line.includes(WRITTEN) && (wasLines.has(line) || !renumbered.has(withoutOrdinal(line)))
    ),
    was.filter((line) => !kept.has(line)),
    "file + sidecar = the original",
  );
  const calls = new Set<string>();
  for (const line of was) {
    const record = parse(line);
    const payload = record?.payload as Record<string, unknown> | undefined;
    if (payload?.type === "function_call") calls.add(String(payload.call_id));
    if (payload?.type === "function_call_output" && calls.has(String(payload.call_id))) {
      assert(now.includes(line), `a real output left the file: ${line.slice(0, 200)}`);
    }
  }
}

/** A line's record without its `ordinal`, as JSON (a line that is not JSON, as it is). */
function withoutOrdinal(line: string): string {
  const record = parse(line);
  if (record === undefined) return line;
  delete record.ordinal;
  return JSON.stringify(record);
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * The real Codex resumes the rollout: every request it sends is accepted, it only appends, its
 * answer is the file's last message; and what it sent agrees with turnlog's reading (the
 * outputs it sent are those of the history turnlog would send, with the same texts), and each
 * of `unchanged` (outputs before any repair) is sent as it was.
 */
export async function assertAcceptedResume(
  home: CodexHome,
  threadId: string,
  rollout: string,
  unchanged: Map<string, string>,
): Promise<void> {
  const read = await reading(rollout);
  const before = await Deno.readFile(rollout);
  home.api.requests.length = 0;
  const ran = await codexResume(home, threadId, "say done");
  assertEquals(ran.code, 0, ran.stderr);
  assertEquals(home.api.requests.map((request) => [request.status, request.error]), [[200, null]]);
  const after = await Deno.readFile(rollout);
  assertEquals(after.subarray(0, before.length), before, "Codex only appends");
  const appended = linesOf(new TextDecoder().decode(after.subarray(before.length)));
  const answer = appended.map(parse).findLast((record) => payloadType(record ?? {}) === "message");
  assertEquals((answer?.payload as Record<string, unknown>)?.role, "assistant");
  const sent = realOutputs(lastRequest(home));
  assertEquals(sent, read.historyOutputs, "what Codex sent is what turnlog's history holds");
  for (const [callId, output] of unchanged) assertEquals(sent.get(callId), output);
}
