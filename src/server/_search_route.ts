/**
 * The browser's search: `GET /search?q=<words or "a phrase">` runs the `search` command's
 * engine over the browser's places and answers a page of the sessions it found, each linking
 * to its page.
 *
 * @module
 */
import { errorMessage } from "../errors/mod.ts";
import { pageHeaders, renderSearchPage, type SearchPage } from "../html/mod.ts";
import { searchSessions, type SearchSource } from "../search/mod.ts";

/** Sessions a search page shows at most. */
export const SEARCH_PAGE_SESSIONS = 20;

/**
 * The words and phrases of a query as typed: `"a phrase"` is one term, other text splits at
 * spaces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { queryTerms } from "./mod.ts";
 * assert.deepEqual(queryTerms('tokenizer "two words" x'), ["tokenizer", "two words", "x"]);
 * ```
 */
export function queryTerms(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|(\S+)/g)]
    .map((match) => (match[1] ?? match[2] ?? "").trim())
    .filter((term) => term.length > 0);
}

/** The search page of `GET /search?q=`: the results, or the box alone without a query. */
export async function searchResponse(
  url: URL,
  sources: readonly SearchSource[],
  signal?: AbortSignal,
): Promise<Response> {
  const query = url.searchParams.get("q") ?? "";
  const terms = queryTerms(query);
  const page: SearchPage = { query, results: [], more: false };
  if (terms.length > 0) {
    try {
      const options = { sources, limit: SEARCH_PAGE_SESSIONS, ...(signal ? { signal } : {}) };
      for await (const event of searchSessions({ terms }, options)) {
        if (event.kind === "session") page.results.push(event);
        if (event.kind === "limit") page.more = true;
      }
    } catch (error) {
      page.error = errorMessage(error);
    }
  }
  return new Response(renderSearchPage(page), { headers: pageHeaders({ form: true }) });
}
