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
import type { Catalog } from "../catalog/mod.ts";

/** Sessions a search page shows at most. */
export const SEARCH_PAGE_SESSIONS = 20;

/**
 * Bytes of files not in the catalog's full-text index yet that one step of its build after a
 * search indexes (about a quarter of a second here). A step starts only once serve has been
 * quiet for a while (`quiet`): a request never waits for more than the step under way, where
 * the whole build takes 15 s for a home of 1 GB.
 */
const SEARCH_TEXT_BYTES = 16 << 20;

/** The catalogs whose full-text index is being built after a search: one build each. */
const building = new WeakSet<Catalog>();

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
 * the browser's catalog, its full-text index answers as it does the `search` command's; the
 * files not in it yet are read whole, and it is built after the search, a step at a time
 * ({@linkcode SEARCH_TEXT_BYTES}). Without a catalog, every file is read.
 */
export async function searchResponse(
  url: URL,
  sources: readonly SearchSource[],
  options: {
    signal?: AbortSignal | undefined;
    catalog?: Catalog | undefined;
    /** Resolves once serve has answered every request and been asked nothing for a while. */
    quiet?: (() => Promise<void>) | undefined;
  } = {},
): Promise<Response> {
  const { signal, catalog, quiet } = options;
  const query = url.searchParams.get("q") ?? "";
  const terms = queryTerms(query);
  const page: SearchPage = { query, results: [], more: false };
  if (terms.length > 0) {
    try {
      const indexed = catalog === undefined ? {} : await catalogSearch(catalog, sources);
      const asked = { sources, limit: SEARCH_PAGE_SESSIONS, ...(signal ? { signal } : {}) };
      for await (const event of searchSessions({ terms }, { ...asked, ...indexed })) {
        if (event.kind === "session") page.results.push(event);
        if (event.kind === "limit") page.more = true;
      }
      if (catalog !== undefined) buildText(catalog, catalogFolders(sources), { signal, quiet });
    } catch (error) {
      page.error = errorMessage(error);
    }
  }
  return new Response(renderSearchPage(page), { headers: pageHeaders({ form: true }) });
}

/**
 * The catalog brought up to date as serve's list brings it (the facts alone: no text is
 * indexed while the search waits; the files whose text is not in the index as they are now are
 * read whole by the search), as the search's index and walk.
 */
async function catalogSearch(catalog: Catalog, sources: readonly SearchSource[]) {
  await catalog.update(catalogFolders(sources), { text: false });
  return await catalog.searchOptions();
}

/**
 * Builds the rest of the catalog's full-text index in steps of {@linkcode SEARCH_TEXT_BYTES},
 * each once serve is `quiet`, until a step leaves no file's text for the next (a file not as its
 * row said is read again whole by the next step); one build a catalog at a time, stopped with
 * the server.
 */
function buildText(
  catalog: Catalog,
  folders: readonly SearchSource[],
  when: { signal: AbortSignal | undefined; quiet: (() => Promise<void>) | undefined },
): void {
  const { signal, quiet } = when;
  if (building.has(catalog)) return;
  building.add(catalog);
  (async () => {
    try {
      while (signal?.aborted !== true) {
        await quiet?.();
        if (signal?.aborted) break;
        const step = await catalog.update(folders, { text: true, textBytes: SEARCH_TEXT_BYTES });
        if (step.textLeft === 0) break;
      }
    } catch {
      // The catalog closed with the server: the index is as its last step left it.
    } finally {
      building.delete(catalog);
    }
  })();
}
