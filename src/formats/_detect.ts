/**
 * Tells a session file's format from its first lines only (at most 64 KiB): turnlog's own, or
 * the format of the first adapter of the registry that knows a line; anything else gets one
 * line saying why not.
 *
 * @module
 */
import { isObject, type Json } from "./_line.ts";
import type { SessionState } from "./_types.ts";
import {
  adapterOf,
  fileNounOf,
  FORMATS,
  type KnownFormat,
  type SessionAdapter,
  toolsInWords,
} from "./registry.ts";
import { NotAFileError } from "./_errors.ts";
import { concatBytes, isCompressed, jsonObjectsIn, openSessionBytes, readFull } from "../io/mod.ts";

/** The format a file is in, and how it showed. */
export interface DetectedFormat {
  /** The format: `turnlog` or an adapter's name. */
  format: KnownFormat;
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

type Verdict = { format: KnownFormat; metadata: boolean; evidence: string } | undefined;

/** What one parsed line says about the format, if anything: turnlog's own first, then each adapter. */
function judge(value: Json): Verdict {
  for (const adapter of FORMATS) {
    const verdict = adapter.judgeLine(value);
    if (verdict) return { format: adapter.name, ...verdict };
  }
  return undefined;
}

/** The format an empty file's name and folder suggest. */
function byName(path: string): DetectedFormat | undefined {
  const empty = (format: KnownFormat): DetectedFormat => ({
    format,
    state: "empty",
    line: null,
    evidence: `an empty file named like a ${fileNounOf(format)}`,
  });
  const adapter = FORMATS.find((adapter) => adapter.namesFile(path));
  return adapter ? empty(adapter.name) : undefined;
}

async function readHead(path: string, max: number): Promise<{ text: string; whole: boolean }> {
  if (isCompressed(path)) return await compressedHead(path, max);
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(max);
  const filled = await readFull(file, buffer).catch((error) => {
    // A folder opens; its first read is what fails.
    throw error instanceof Deno.errors.IsADirectory
      ? new NotAFileError(path, { cause: error })
      : error;
  });
  const whole = filled < max || (await file.read(new Uint8Array(1))) === null;
  return { text: new TextDecoder().decode(buffer.subarray(0, filled)), whole };
}

/** The first `max` decompressed bytes of a compressed file, and whether that is all of it. */
async function compressedHead(
  path: string,
  max: number,
): Promise<{ text: string; whole: boolean }> {
  const parts: Uint8Array[] = [];
  let length = 0;
  let whole = true;
  for await (const chunk of await openSessionBytes(path)) {
    parts.push(chunk);
    length += chunk.length;
    if (length > max) {
      whole = false;
      break;
    }
  }
  const head = concatBytes(parts).subarray(0, max);
  return { text: new TextDecoder().decode(head), whole };
}

function describe(text: string, value: unknown): string {
  if (value === undefined) return "is not JSON";
  if (!isObject(value)) return "is JSON but not an object";
  const type = (value as Json).type;
  return typeof type === "string"
    ? `is a JSON object of type ${JSON.stringify(type)}, not a ${toolsInWords()} line`
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

/** A top-level string or number field of an indented JSON object: `  "key": value,`. */
const TOP_FIELD = /^ {2}"([^"\\]+)": ("(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*)/;

/**
 * What a file that is one indented JSON object (a tool's legacy single-object session, such as
 * Gemini CLI's `session-*.json` before 0.39) says, from its head's top-level fields: its
 * scalars before the first nested value are what an adapter's `judgeLine` reads.
 */
function wholeObjectVerdict(head: string): Verdict {
  const lines = head.split("\n");
  if (lines[0]?.trim() !== "{") return undefined;
  const fields: Json = {};
  for (const line of lines.slice(1)) {
    const field = TOP_FIELD.exec(line);
    if (!field) break;
    fields[field[1]!] = parseJson(field[2]!);
  }
  const verdict = Object.keys(fields).length > 0 ? judge(fields) : undefined;
  return verdict && { ...verdict, evidence: `${verdict.evidence} (one JSON object)` };
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
  const single = metadata === undefined ? wholeObjectVerdict(text) : undefined;
  if (single) {
    return { format: single.format, state: "records", line: 1, evidence: single.evidence };
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

/**
 * The adapter of the file at `path`, told from its head, or why none is
 * ({@linkcode detectFormat}'s reason): what a command that detects a file hands on.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectAdapter } from "./mod.ts";
 * const path = await Deno.makeTempFile({ suffix: ".jsonl" });
 * await Deno.writeTextFile(path, "not json\n");
 * assert.ok("reason" in await detectAdapter(path));
 * await Deno.remove(path);
 * ```
 */
export async function detectAdapter(
  path: string,
  options: DetectOptions = {},
): Promise<{ adapter: SessionAdapter } | { reason: string }> {
  const detected = await detectFormat(path, options);
  return "reason" in detected
    ? { reason: detected.reason }
    : { adapter: adapterOf(detected.format) };
}

/**
 * The adapter of the file at `path`, told from its head; turnlog's own for a file in no format
 * turnlog reads (which turnlog reads as its own, however broken).
 */
export async function adapterOfFile(
  path: string,
  options: DetectOptions = {},
): Promise<SessionAdapter> {
  const detected = await detectAdapter(path, options);
  return "reason" in detected ? FORMATS[0] : detected.adapter;
}
