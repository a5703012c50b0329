/**
 * The browser's search: `GET /search?q=<words or "a phrase">` runs the `search` command's
 * engine over the browser's places and answers a page of the sessions it found, each linking
 * to its page.
 *
 * @module
 */
import { errorMessage } from "../errors/mod.ts";
import { pageHeaders, renderSearchPage, type SearchPage } from "../html/mod.ts";
import { catalogFolders, searchSessions, type SearchSource } from "../search/mod.ts";
import type { Catalog, UpdateProgress } from "../catalog/mod.ts";

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

/**
 * The search page of `GET /search?q=`: the results, or the box alone without a query. With
 * the browser's catalog, its full-text index answers as it does the `search` command's (the
 * first search builds it; the next ones add the lines appended since); without, every file
 * is read.
 */
export async function searchResponse(
  url: URL,
  sources: readonly SearchSource[],
  options: {
    signal?: AbortSignal | undefined;
    catalog?: Catalog | undefined;
    /** Told how far a build of the catalog's full-text index has gone. */
    onProgress?: ((progress: UpdateProgress) => void) | undefined;
  } = {},
): Promise<Response> {
  const { signal, catalog, onProgress } = options;
  const query = url.searchParams.get("q") ?? "";
  const terms = queryTerms(query);
  const page: SearchPage = { query, results: [], more: false };
  if (terms.length > 0) {
    try {
      const indexed = catalog === undefined
        ? {}
        : await catalogSearch(catalog, sources, onProgress);
      const asked = { sources, limit: SEARCH_PAGE_SESSIONS, ...(signal ? { signal } : {}) };
      for await (const event of searchSessions({ terms }, { ...asked, ...indexed })) {
        if (event.kind === "session") page.results.push(event);
        if (event.kind === "limit") page.more = true;
      }
    } catch (error) {
      page.error = errorMessage(error);
    }
  }
  return new Response(renderSearchPage(page), { headers: pageHeaders({ form: true }) });
}

/** The catalog brought up to date with its full-text index, as the search's index and walk. */
async function catalogSearch(
  catalog: Catalog,
  sources: readonly SearchSource[],
  onProgress: ((progress: UpdateProgress) => void) | undefined,
) {
  await catalog.update(catalogFolders(sources), {
    text: true,
    ...(onProgress ? { onProgress } : {}),
  });
  return await catalog.searchOptions();
}
