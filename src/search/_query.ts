/**
 * What a search looks for: words and phrases (case-insensitive, all on one line) or a regular
 * expression, compiled into the test a conversation text must pass and the byte-safe fragments
 * a raw line must hold before it is worth parsing.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { PatternError, regexTest, type TextTest } from "./_regex.ts";

export type { TextTest } from "./_regex.ts";

/** What to look for, as a person gave it. */
export interface SearchQuery {
  /** Words and phrases, every one of which must be on the line (case-insensitive). */
  terms?: readonly string[];
  /**
   * A regular expression instead of terms (case-insensitive; JavaScript's syntax less lookahead
   * and backreferences, matched in time linear in the text).
   */
  regex?: string;
}

/** A query ready to match: each term's test and the prefilter of raw lines. */
export interface CompiledQuery {
  /** The terms as given (or the one pattern). */
  terms: string[];
  /** One case-insensitive test per term; all must match. */
  tests: TextTest[];
  /**
   * Lowercase ASCII fragments every matching line holds verbatim in its raw bytes, longest
   * first; empty when nothing can be told before parsing (a regex, a word of escapable
   * characters only).
   */
  fragments: string[];
}

/** A query that cannot run as given (a command exits with 2). */
export class SearchQueryError extends TurnlogError {
  /** An error about the query. */
  constructor(message: string, options?: ErrorOptions) {
    super("usage", message, options);
    this.name = "SearchQueryError";
  }
}

/**
 * Splits a search box's text into terms: `"a phrase"` in double quotes is one term, anything
 * else splits at whitespace.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseQueryText } from "./mod.ts";
 * assert.deepEqual(parseQueryText('tokenizer "read the file" x'), [
 *   "tokenizer",
 *   "read the file",
 *   "x",
 * ]);
 * ```
 */
export function parseQueryText(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|(\S+)/g)) {
    const term = (match[1] ?? match[2] ?? "").trim();
    if (term !== "") terms.push(term);
  }
  return terms;
}

/**
 * Characters a JSON writer never escapes: letters, digits, space and the punctuation below.
 * Everything else (`"`, `\`, `/`, `<`, `>`, `&`, `'`, `=`, controls, non-ASCII) may stand as an
 * escape in the file, so it is left to the parsed text.
 */
const SAFE = /[A-Za-z0-9 !#$%()*+,\-.:;?@[\]^_`{|}~]+/g;

/** The byte-safe runs of a term, lowercased. */
function fragmentsOf(term: string): string[] {
  return [...term.matchAll(SAFE)].map((m) => m[0].toLowerCase()).filter((f) => f.trim() !== "");
}

/** `text` as a pattern that matches it as it is. */
export const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * Compiles a query. Terms match case-insensitively as written (a phrase's spaces included);
 * a regex is case-insensitive too.
 *
 * @throws {SearchQueryError} for no terms, or a pattern that is not a regular expression the
 *   linear-time engine runs (a lookahead, a backreference)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileQuery } from "./mod.ts";
 * const query = compileQuery({ terms: ["Tokenizer", "café"] });
 * assert.deepEqual(query.fragments, ["tokenizer", "caf"]);
 * assert.ok(query.tests.every((test) => test.test("The TOKENIZER of the Café")));
 * ```
 */
export function compileQuery(query: SearchQuery): CompiledQuery {
  if (query.regex !== undefined) {
    if (query.regex === "") throw new SearchQueryError("The pattern is empty");
    let test: TextTest;
    try {
      test = regexTest(query.regex);
    } catch (error) {
      if (!(error instanceof PatternError)) throw error;
      throw new SearchQueryError(error.message, { cause: error });
    }
    return { terms: [query.regex], tests: [test], fragments: [] };
  }
  const terms = (query.terms ?? []).map((term) => term.trim()).filter((term) => term !== "");
  if (terms.length === 0) throw new SearchQueryError("Nothing to search for: give a word");
  const fragments = [...new Set(terms.flatMap(fragmentsOf))].sort((a, b) => b.length - a.length);
  return {
    terms,
    tests: terms.map(literalTest),
    fragments,
  };
}

/** The case-insensitive test of `term` as written (a literal: V8's engine is linear on it). */
function literalTest(term: string): TextTest {
  const once = new RegExp(escapeRegex(term), "i");
  const every = new RegExp(once.source, "gi");
  return {
    test: (text) => once.test(text),
    ranges: (text) => [...text.matchAll(every)].map((m) => [m.index, m.index + m[0].length]),
  };
}

/** Whether every test matches one of `texts`. */
export function matchAll(query: CompiledQuery, texts: readonly string[]): boolean {
  return query.tests.every((test) => texts.some((text) => test.test(text)));
}

/** Every match of any term in `text`, as sorted, merged `[start, end)` ranges. */
export function matchRanges(query: CompiledQuery, text: string): [number, number][] {
  const ranges: [number, number][] = [];
  for (const test of query.tests) ranges.push(...test.ranges(text));
  ranges.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged: [number, number][] = [];
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last && range[0] <= last[1]) last[1] = Math.max(last[1], range[1]);
    else merged.push([...range]);
  }
  return merged;
}
