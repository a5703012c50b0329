/**
 * Small file-system helpers of the session finders: a file's head read line by line for a
 * preview, a folder's entries (`_dir.ts`'s, for the finders that import them from here).
 *
 * @module
 */
import { readFull, readLines } from "../io/forward.ts";
export { dirEntries } from "./_dir.ts";
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

/** How far from a file's end a listing looks for its last record's time. */
export const TAIL_BYTES = 64 * 1024;

const decoder = new TextDecoder();

/** The last complete line's `field` of `text` (lines parsed from the end), or undefined. */
function lastField(text: string, field: string): string | undefined {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line.length === 0) continue;
    try {
      const value: unknown = JSON.parse(line);
      const found = isObject(value) ? value[field] : undefined;
      if (typeof found === "string" && found.length > 0) return found;
    } catch {
      // A torn line (the tool is writing it) or one cut by the window: look further back.
    }
  }
  return undefined;
}

/**
 * The string `field` (`timestamp`) of the last JSON line that has one, read from the end of
 * the file: at most {@linkcode TAIL_BYTES}, so a listing learns a session's last time without
 * reading the file. Undefined when the tail holds none (or the file cannot be read).
 */
export async function lastFieldOf(
  path: string,
  field = "timestamp",
  maxBytes = TAIL_BYTES,
): Promise<string | undefined> {
  try {
    using file = await Deno.open(path, { read: true });
    const size = (await file.stat()).size;
    const length = Math.min(size, maxBytes);
    if (length === 0) return undefined;
    await file.seek(size - length, Deno.SeekMode.Start);
    const buffer = new Uint8Array(length);
    const read = await readFull(file, buffer);
    let text = decoder.decode(buffer.subarray(0, read));
    // The window's first line is cut unless it starts the file.
    if (length < size) text = text.slice(text.indexOf("\n") + 1);
    return lastField(text, field);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return undefined;
    }
    throw error;
  }
}
