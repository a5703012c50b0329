/**
 * What turnlog is measured against: the naive way (what the original harness did: read the
 * whole file, split it, `JSON.parse` every line, no validation) and the limit (the same bytes
 * only read and parsed, streaming, with nothing else done).
 *
 * @module
 */
import { join } from "node:path";
import type { ResponseItem, SessionRecord } from "../src/record/mod.ts";
import { type NormalizedHistory, normalizeHistory } from "../src/history/mod.ts";

/** The naive replay: the whole file in memory, every line parsed, no validation. */
export async function naiveReplay(path: string): Promise<ResponseItem[]> {
  const text = await Deno.readTextFile(path);
  let history: ResponseItem[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const record = JSON.parse(line) as SessionRecord;
    if (record.type !== "response_item") continue;
    if (record.payload.type === "compaction_checkpoint") {
      history = [...record.payload.replacementHistory];
    } else {
      history.push(record.payload);
    }
  }
  return history;
}

/** The naive resume: the naive replay, then the same normalization turnlog does. */
export async function naiveResume(path: string): Promise<NormalizedHistory> {
  return normalizeHistory(await naiveReplay(path));
}

const NEWLINE = 10;

/**
 * The limit: every line read (1 MiB chunks, as turnlog reads), decoded and `JSON.parse`d,
 * and nothing else: no validation, no replay, no line objects, no generator. Each line is
 * decoded on its own, the fastest way V8 offers (an ASCII line stays a one-byte string).
 * Returns the number of lines parsed.
 */
export async function limitParse(path: string, chunkSize = 1 << 20): Promise<number> {
  return await streamParse(path, chunkSize, () => {});
}

/**
 * The limit with the history kept: streamed and parsed like {@linkcode limitParse}, and every
 * `response_item` payload kept (checkpoints applied), unvalidated. A resume has to hold the
 * history it returns; this shows what holding it costs.
 */
export async function limitKeepHistory(path: string, chunkSize = 1 << 20): Promise<ResponseItem[]> {
  let history: ResponseItem[] = [];
  await streamParse(path, chunkSize, (value) => {
    const record = value as SessionRecord;
    if (record.type !== "response_item") return;
    if (record.payload.type === "compaction_checkpoint") {
      history = [...record.payload.replacementHistory];
    } else {
      history.push(record.payload);
    }
  });
  return history;
}

async function streamParse(
  path: string,
  chunkSize: number,
  use: (value: unknown) => void,
): Promise<number> {
  using file = await Deno.open(path, { read: true });
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(chunkSize);
  let carry: Uint8Array | undefined;
  let lines = 0;
  while (true) {
    const read = await file.read(buffer);
    if (read === null) break;
    const chunk = buffer.subarray(0, read);
    let at = 0;
    while (true) {
      const newline = chunk.indexOf(NEWLINE, at);
      if (newline === -1) {
        const rest = chunk.subarray(at);
        carry = carry ? concat(carry, rest) : rest.slice();
        break;
      }
      const bytes = carry
        ? concat(carry, chunk.subarray(at, newline))
        : chunk.subarray(at, newline);
      carry = undefined;
      if (bytes.length > 0) {
        use(JSON.parse(decoder.decode(bytes)));
        lines++;
      }
      at = newline + 1;
    }
  }
  if (carry && carry.length > 0) {
    use(JSON.parse(decoder.decode(carry)));
    lines++;
  }
  return lines;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The first line of a file, read in small blocks until its newline. */
async function firstLine(path: string): Promise<string> {
  using file = await Deno.open(path, { read: true });
  const decoder = new TextDecoder();
  const block = new Uint8Array(4096);
  let text = "";
  while (true) {
    const read = await file.read(block);
    if (read === null) return text;
    const bytes = block.subarray(0, read);
    const newline = bytes.indexOf(NEWLINE);
    if (newline !== -1) return text + decoder.decode(bytes.subarray(0, newline));
    text += decoder.decode(bytes, { stream: true });
  }
}

async function* everyFile(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* everyFile(path);
    else if (entry.isFile && entry.name.endsWith(".jsonl")) yield path;
  }
}

interface NaiveMeta {
  id: string;
  createdAt: string;
  path: string;
}

async function everyMeta(root: string): Promise<NaiveMeta[]> {
  const metas: NaiveMeta[] = [];
  for await (const path of everyFile(root)) {
    const record = JSON.parse(await firstLine(path)) as SessionRecord;
    if (record.type === "session_meta") {
      metas.push({ id: record.payload.id, createdAt: record.payload.createdAt, path });
    }
  }
  return metas;
}

/**
 * The naive lookup: opens every session file and reads its first line to learn the id (all
 * of them, so an ambiguous prefix is noticed, as `findSession` does).
 */
export async function naiveFind(root: string, idOrPrefix: string): Promise<string> {
  const matches = (await everyMeta(root)).filter((m) => m.id.startsWith(idOrPrefix));
  if (matches.length !== 1) throw new Error(`Expected one session for ${idOrPrefix}`);
  return matches[0]!.path;
}

/**
 * The naive listing: every file's first line for its creation time, sorted, then the newest
 * `limit` files read again up to their first user message for the preview.
 */
export async function naiveList(
  root: string,
  limit = 25,
): Promise<{ id: string; preview: string | undefined }[]> {
  const metas = (await everyMeta(root)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const out: { id: string; preview: string | undefined }[] = [];
  for (const meta of metas.slice(0, limit)) {
    let preview: string | undefined;
    for (const line of (await Deno.readTextFile(meta.path)).split("\n")) {
      if (!line) continue;
      const record = JSON.parse(line) as SessionRecord;
      if (
        record.type === "response_item" && record.payload.type === "message" &&
        record.payload.role === "user"
      ) {
        preview = record.payload.content;
        break;
      }
    }
    out.push({ id: meta.id, preview });
  }
  return out;
}
