/**
 * Tells a session file's format from its first lines only (at most 64 KiB): turnlog's own,
 * a Codex rollout, or a Claude Code transcript; anything else gets one line saying why not.
 *
 * @module
 */
import { basename, dirname } from "node:path";
import { jsonObjectsIn } from "../io/mod.ts";
import { isObject, type Json, obj, str } from "./_line.ts";
import type { SessionFormat, SessionState } from "./_types.ts";

/** The format a file is in, and how it showed. */
export interface DetectedFormat {
  /** The format. */
  format: SessionFormat;
  /** `empty` and `metadata-only` are told only when the head read covers the whole file. */
  state: SessionState;
  /** The line that told the format, or null when the file name did (an empty file). */
  line: number | null;
  /** What told it, in a few words. */
  evidence: string;
}

/** A file in no format turnlog reads, and the one reason why. */
export interface UnknownFormat {
  /** No format turnlog reads. */
  format: "unknown";
  /** One line: what the head holds instead. */
  reason: string;
}

/** The answer of {@linkcode detectFormat}. */
export type FormatDetection = DetectedFormat | UnknownFormat;

/** Options of {@linkcode detectFormat}. */
export interface DetectOptions {
  /** Bytes of the head read at most. @default {65536} */
  headBytes?: number;
}

const TURNLOG_TYPES = new Set(["session_meta", "turn_context", "response_item", "run_finished"]);
const CODEX_TYPES = new Set([
  "session_meta",
  "turn_context",
  "response_item",
  "event_msg",
  "compacted",
]);
const CLAUDE_CONVERSATION = new Set(["user", "assistant", "system", "progress", "attachment"]);
const CLAUDE_METADATA = new Set([
  "summary",
  "file-history-snapshot",
  "queue-operation",
  "last-prompt",
  "permission-mode",
  "custom-title",
]);

type Verdict = { format: SessionFormat; metadata: boolean; evidence: string } | undefined;

function turnlogShape(type: string, payload: Json): boolean {
  switch (type) {
    case "session_meta":
      return typeof payload.wireApi === "string" && typeof payload.createdAt === "string";
    case "turn_context":
      return typeof payload.runId === "string";
    case "run_finished":
      return typeof payload.outcome === "string";
    default:
      return typeof payload.content === "string" || typeof payload.callId === "string" ||
        typeof payload.replacementHistory === "object";
  }
}

function codexShape(type: string, payload: Json): boolean {
  switch (type) {
    case "session_meta":
      return "cli_version" in payload || "originator" in payload ||
        (typeof payload.id === "string" && typeof payload.timestamp === "string");
    case "turn_context":
      return "approval_policy" in payload || "sandbox_policy" in payload || "turn_id" in payload;
    case "response_item":
      return Array.isArray(payload.content) || typeof payload.call_id === "string" ||
        payload.type === "reasoning" || payload.type === "web_search_call";
    default:
      return true;
  }
}

/** What one parsed line says about the format, if anything. */
function judge(value: Json): Verdict {
  const type = str(value, "type") ?? "";
  const payload = obj(value, "payload");
  if (payload && typeof value.timestamp === "string") {
    if (TURNLOG_TYPES.has(type) && turnlogShape(type, payload)) {
      return { format: "turnlog", metadata: false, evidence: `a turnlog ${type} record` };
    }
    if (CODEX_TYPES.has(type) && codexShape(type, payload)) {
      return { format: "codex", metadata: false, evidence: `a Codex ${type} line` };
    }
  }
  if (CLAUDE_CONVERSATION.has(type) && ("uuid" in value || "sessionId" in value)) {
    return { format: "claude-code", metadata: false, evidence: `a Claude Code ${type} line` };
  }
  if (CLAUDE_METADATA.has(type)) {
    return { format: "claude-code", metadata: true, evidence: `a Claude Code ${type} line` };
  }
  return undefined;
}

/** The format an empty file's name and folder suggest. */
function byName(path: string): DetectedFormat | undefined {
  const name = basename(path);
  const empty = (format: SessionFormat, evidence: string): DetectedFormat => ({
    format,
    state: "empty",
    line: null,
    evidence,
  });
  if (/^rollout-.*\.jsonl$/.test(name)) {
    return empty("codex", "an empty file named like a Codex rollout");
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z-.+\.jsonl$/.test(name)) {
    return empty("turnlog", "an empty file named like a turnlog session");
  }
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i.test(name);
  if (
    uuid || /^agent-[0-9A-Za-z_-]+\.jsonl$/.test(name) || basename(dirname(path)).startsWith("-")
  ) {
    return empty("claude-code", "an empty file named like a Claude Code transcript");
  }
  return undefined;
}

async function readHead(path: string, max: number): Promise<{ text: string; whole: boolean }> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(max);
  let filled = 0;
  while (filled < max) {
    const read = await file.read(buffer.subarray(filled));
    if (read === null) break;
    filled += read;
  }
  const whole = filled < max || (await file.read(new Uint8Array(1))) === null;
  return { text: new TextDecoder().decode(buffer.subarray(0, filled)), whole };
}

function describe(text: string, value: unknown): string {
  if (value === undefined) return "is not JSON";
  if (!isObject(value)) return "is JSON but not an object";
  const type = (value as Json).type;
  return typeof type === "string"
    ? `is a JSON object of type ${JSON.stringify(type)}, not a turnlog, Codex or Claude Code line`
    : `is a JSON object without a "type" (${JSON.stringify(text.slice(0, 40))}...)`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What the first telling object of a line of several glued together (a lost newline) says:
 * a file whose every line is glued is still its tool's file, for its repair to split.
 */
function gluedVerdict(line: string): Verdict {
  const pieces = jsonObjectsIn(line) ?? [];
  if (pieces.length < 2) return undefined;
  let metadata: Verdict;
  for (const piece of pieces) {
    const value = parseJson(piece);
    const verdict = isObject(value) ? judge(value) : undefined;
    if (verdict && !verdict.metadata) {
      return { ...verdict, evidence: `${verdict.evidence} (glued)` };
    }
    metadata ??= verdict;
  }
  return metadata;
}

/**
 * Tells the format of the session file at `path` from its head. An empty file is told by its
 * name; a Claude Code file of titles and file-history lines only is `metadata-only`.
 *
 * @example
 * ```ts ignore
 * const detected = await detectFormat("rollout-2026-02-23T12-40-23-019c8a4c.jsonl");
 * if (detected.format === "unknown") console.error(detected.reason);
 * ```
 */
export async function detectFormat(
  path: string,
  options: DetectOptions = {},
): Promise<FormatDetection> {
  const max = options.headBytes ?? 64 * 1024;
  const { text, whole } = await readHead(path, max);
  const lines = text.split("\n");
  // The last piece is cut by the head limit unless the head is the whole file.
  if (!whole) lines.pop();
  let metadata: Verdict;
  let firstIssue: string | undefined;
  for (const [index, raw] of lines.entries()) {
    const line = raw.replace(/\r$/, "").replace(/^\uFEFF/, "");
    if (line.trim().length === 0) continue;
    const value = parseJson(line);
    const verdict = isObject(value) ? judge(value) : gluedVerdict(line);
    if (verdict && !verdict.metadata) {
      return {
        format: verdict.format,
        state: "records",
        line: index + 1,
        evidence: verdict.evidence,
      };
    }
    if (verdict) metadata ??= { ...verdict, evidence: `${verdict.evidence} (line ${index + 1})` };
    else firstIssue ??= `line ${index + 1} ${describe(line, value)}`;
  }
  if (metadata) {
    return {
      format: metadata.format,
      state: whole ? "metadata-only" : "records",
      line: Number(/line (\d+)/.exec(metadata.evidence)?.[1] ?? 1),
      evidence: metadata.evidence.replace(/ \(line \d+\)$/, ""),
    };
  }
  if (firstIssue === undefined) {
    const named = whole ? byName(path) : undefined;
    if (named) return named;
    return {
      format: "unknown",
      reason: whole
        ? `${path}: empty file, and its name does not tell which tool wrote it`
        : `${path}: no complete line in the first ${max} bytes`,
    };
  }
  return { format: "unknown", reason: `${path}: not a session file: ${firstIssue}` };
}
