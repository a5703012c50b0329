/**
 * An independent reading of session files for the search tests: each file read whole, every
 * line parsed with JSON.parse, the conversation's texts gathered by a plain walk, and the lines
 * whose texts hold every term (lowercased) listed. It shares no code with src/search.
 */
import { join } from "node:path";

type Value = Record<string, unknown>;
const isValue = (v: unknown): v is Value =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every string inside a value, in order. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
  else if (Array.isArray(v)) { for (const x of v) strings(x, out); }
  else if (isValue(v)) { for (const x of Object.values(v)) strings(x, out); }
  return out;
}

function parsedOrRaw(text: unknown): string[] {
  if (typeof text !== "string") return [];
  try {
    const parsed = JSON.parse(text);
    return isValue(parsed) || Array.isArray(parsed) ? strings(parsed) : [text];
  } catch {
    return [text];
  }
}

function claudeTexts(line: Value): string[] {
  const message = line.message;
  if (!isValue(message) || line.isMeta === true) return [];
  const content = message.content;
  if (line.type !== "user" && line.type !== "assistant") return [];
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const block of content) {
    if (!isValue(block)) continue;
    if (block.type === "text") texts.push(String(block.text));
    if (block.type === "tool_use" && line.type === "assistant") texts.push(...strings(block.input));
    if (block.type === "tool_result" && line.type === "user") {
      const c = block.content;
      if (typeof c === "string") texts.push(c);
      else if (Array.isArray(c)) {
        for (const b of c) if (isValue(b) && typeof b.text === "string") texts.push(b.text);
      }
    }
  }
  return texts;
}

function codexTexts(line: Value): string[] {
  const p = line.payload;
  if (!isValue(p)) return [];
  if (line.type === "compacted") return typeof p.message === "string" ? [p.message] : [];
  if (line.type !== "response_item") return [];
  if (p.type === "message" && (p.role === "user" || p.role === "assistant")) {
    const parts = Array.isArray(p.content) ? p.content : [];
    return parts.flatMap((
      part,
    ) => (isValue(part) && typeof part.text === "string" ? [part.text] : []))
      .filter((text) => p.role === "assistant" || !/^\s*(<|# AGENTS\.md)/.test(text));
  }
  if (p.type === "function_call") return parsedOrRaw(p.arguments);
  if (p.type === "custom_tool_call") return typeof p.input === "string" ? [p.input] : [];
  if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
    const o = p.output;
    if (typeof o === "string") return [o];
    return isValue(o) && typeof o.content === "string" ? [o.content] : [JSON.stringify(o)];
  }
  if (p.type === "local_shell_call" && isValue(p.action) && Array.isArray(p.action.command)) {
    return [p.action.command.join(" ")];
  }
  if (p.type === "web_search_call" && isValue(p.action) && typeof p.action.query === "string") {
    return [p.action.query];
  }
  return [];
}

function turnlogTexts(line: Value): string[] {
  const p = line.payload;
  if (line.type !== "response_item" || !isValue(p)) return [];
  if (p.type === "message") {
    return p.role === "user" || p.role === "assistant" ? [String(p.content)] : [];
  }
  if (p.type === "function_call") return parsedOrRaw(p.arguments);
  if (p.type === "function_call_output") return [String(p.output)];
  if (p.type === "compaction_summary") return [String(p.content)];
  return [];
}

/** The conversation's texts of one parsed line, by the file's format. */
export function conversationTexts(format: string, line: Value): string[] {
  if (format === "claude-code") return claudeTexts(line);
  if (format === "codex") return codexTexts(line);
  return turnlogTexts(line);
}

/** The JSON objects of a file's lines, with their 0-based indexes. */
async function parsedLines(path: string): Promise<[number, Value][]> {
  const parsed: [number, Value][] = [];
  (await Deno.readTextFile(path)).split("\n").forEach((raw, index) => {
    try {
      const value = JSON.parse(raw);
      if (isValue(value)) parsed.push([index, value]);
    } catch {
      // Not JSON: no conversation.
    }
  });
  return parsed;
}

/** The line numbers of a file whose conversation holds every term (lowercased). */
export async function matchingLines(
  path: string,
  format: string,
  terms: string[],
): Promise<number[]> {
  const lower = terms.map((t) => t.toLowerCase());
  const found: number[] = [];
  for (const [index, value] of await parsedLines(path)) {
    const texts = conversationTexts(format, value).map((t) => t.toLowerCase());
    if (lower.every((term) => texts.some((text) => text.includes(term)))) found.push(index + 1);
  }
  return found;
}

/** Every `.jsonl` file under `dir`, sorted. */
export async function homeFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string) => {
    for await (const entry of Deno.readDir(d)) {
      const path = join(d, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".jsonl")) out.push(path);
    }
  };
  await walk(dir).catch(() => {});
  return out.sort();
}

/** Words of the conversations of `files`: every distinct one of 5 letters or more. */
export async function conversationWords(
  files: { path: string; format: string }[],
): Promise<string[]> {
  const words = new Set<string>();
  for (const { path, format } of files) {
    for (const [, value] of await parsedLines(path)) {
      for (const text of conversationTexts(format, value)) {
        for (const word of text.match(/[A-Za-z][A-Za-z-]{4,}/g) ?? []) words.add(word);
      }
    }
  }
  return [...words].sort();
}

/** Each line of a file with the byte offset it starts at, parsed when it is a JSON object. */
async function linesWithOffsets(path: string): Promise<{ at: number; value?: Value }[]> {
  const bytes = await Deno.readFile(path);
  const out: { at: number; value?: Value }[] = [];
  let at = 0;
  for (const raw of new TextDecoder().decode(bytes).split("\n")) {
    let value: Value | undefined;
    try {
      const parsed = JSON.parse(raw);
      if (isValue(parsed)) value = parsed;
    } catch {
      // Not JSON.
    }
    out.push(value === undefined ? { at } : { at, value });
    at += new TextEncoder().encode(raw).length + 1;
  }
  return out;
}

/**
 * The lines of a Codex rollout's whole thread whose conversation holds every term: when its
 * `session_meta` names a `history_base`, the base thread's rollout (found under `root` by its
 * id in the file name) before the base's byte offset and with ordinals below the base's (a
 * fork of a fork followed too), then the rollout's own lines. As `{path, line}`, oldest first.
 */
export async function threadMatchingLines(
  path: string,
  root: string,
  terms: string[],
): Promise<{ path: string; line: number }[]> {
  const lower = terms.map((t) => t.toLowerCase());
  const holds = (value: Value) => {
    const texts = codexTexts(value).map((t) => t.toLowerCase());
    return lower.every((term) => texts.some((text) => text.includes(term)));
  };
  const files = await homeFiles(root);
  const parts: { path: string; line: number }[][] = [];
  let limit = Infinity;
  let current = path;
  for (let depth = 0; depth < 10; depth++) {
    const lines = await linesWithOffsets(current);
    const base = lines[0]?.value?.payload;
    const history = isValue(base) ? base.history_base : undefined;
    if (!isValue(history) || typeof history.thread_id !== "string") break;
    const parent = files.find((file) => file.includes(history.thread_id as string));
    if (parent === undefined) break;
    if (typeof history.end_ordinal_exclusive === "number") {
      limit = Math.min(limit, history.end_ordinal_exclusive);
    }
    const end = typeof history.end_byte_offset === "number" ? history.end_byte_offset : Infinity;
    const found: { path: string; line: number }[] = [];
    for (const [index, { at, value }] of (await linesWithOffsets(parent)).entries()) {
      if (at >= end || value === undefined) continue;
      if (typeof value.ordinal === "number" && value.ordinal >= limit) continue;
      if (holds(value)) found.push({ path: parent, line: index + 1 });
    }
    parts.unshift(found);
    current = parent;
  }
  const own = (await matchingLines(path, "codex", terms)).map((line) => ({ path, line }));
  return [...parts.flat(), ...own];
}
