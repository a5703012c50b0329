/**
 * Gemini CLI's legacy session files (before 0.39): one JSON object, `session-*.json`, its
 * `messages` the history. Read whole (the object is the file), as Gemini reads them.
 *
 * @module
 */
import { isObject, type Json } from "../_line.ts";

/** Whether the file is a legacy single-object session (`session-*.json`). */
export function isLegacyFile(path: string): boolean {
  return path.endsWith(".json");
}

/** A legacy file's text (up to `sizeBytes`) and its object, or why it is not one. */
export async function readLegacyObject(
  path: string,
  sizeBytes: number,
): Promise<{ text: string; value: Json } | { text: string; error: string }> {
  const text = new TextDecoder().decode((await Deno.readFile(path)).subarray(0, sizeBytes));
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? { text, value } : { text, error: "not a JSON object" };
  } catch (error) {
    return { text, error: `not valid JSON (${(error as Error).message})` };
  }
}
