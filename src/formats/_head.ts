/**
 * Small file-system helpers of the session finders: a file's head read line by line for a
 * preview, a folder's entries.
 *
 * @module
 */
import { readLines } from "../io/mod.ts";
import { isObject, type Json } from "./_line.ts";

/** How far into a file a listing reads for its preview. */
export const PREVIEW_HEAD_BYTES = 256 * 1024;

/**
 * Calls `visit` with each JSON object of the file's head (at most 256 KiB) until it returns
 * true. Bad lines are passed over.
 */
export async function scanHead(path: string, visit: (value: Json) => boolean): Promise<void> {
  for await (const line of readLines(path, { chunkSize: 16 * 1024 })) {
    if (line.start >= PREVIEW_HEAD_BYTES) return;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      continue;
    }
    if (isObject(value) && visit(value)) return;
  }
}

/** Collapses whitespace and shortens text to one line of at most `max` characters. */
export function previewLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** The entries of a folder, or none when it does not exist. */
export async function dirEntries(dir: string): Promise<Deno.DirEntry[]> {
  const found: Deno.DirEntry[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) found.push(entry);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return [];
    }
    throw error;
  }
  return found;
}
