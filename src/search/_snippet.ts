/**
 * The snippet a hit shows: the piece's text on one line, cut around its first match, with
 * every match in it marked by its range.
 *
 * @module
 */
import { type CompiledQuery, matchRanges } from "./_query.ts";

/** A snippet and where the matches are in it. */
export interface Snippet {
  /** The text around the first match, whitespace collapsed, `…` where it was cut. */
  text: string;
  /** The matches, as `[start, end)` ranges of `text`, in order. */
  marks: [number, number][];
}

/** Characters of context shown before the first match. */
const BEFORE = 50;

/**
 * The snippet of `text` for `query`: at most `width` characters, starting up to 50 before
 * the first match.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileQuery, snippetOf } from "./mod.ts";
 * const snippet = snippetOf("read\nthe  Tokenizer file", compileQuery({ terms: ["tokenizer"] }));
 * assert.deepEqual(snippet, { text: "read the Tokenizer file", marks: [[9, 18]] });
 * ```
 */
export function snippetOf(text: string, query: CompiledQuery, width = 160): Snippet {
  const flat = text.replace(/\s+/g, " ").trim();
  const first = matchRanges(query, flat)[0]?.[0] ?? 0;
  const start = first <= BEFORE ? 0 : first - BEFORE;
  const end = Math.min(flat.length, start + width);
  const lead = start > 0 ? "…" : "";
  const body = lead + flat.slice(start, end) + (end < flat.length ? "…" : "");
  const marks = matchRanges(query, flat.slice(start, end))
    .map(([a, b]): [number, number] => [a + lead.length, b + lead.length]);
  return { text: body, marks };
}
