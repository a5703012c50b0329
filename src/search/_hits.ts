/**
 * One line judged and made a hit: parsed only once the prefilter let it through, its
 * conversation pieces checked against every term, the matching piece's snippet cut.
 *
 * @module
 */
import { type CompiledQuery, matchAll } from "./_query.ts";
import type { Json, Piece } from "../formats/mod.ts";
import type { SearchProfile } from "./_profile.ts";
import { snippetOf } from "./_snippet.ts";
import type { SearchHit } from "./_types.ts";

/**
 * The piece of a line's conversation a hit shows (the first holding a term), undefined when
 * the conversation does not hold every term, `"bad"` when the line is not JSON.
 */
export function matchLine(
  text: string,
  profile: SearchProfile,
  query: CompiledQuery,
): Piece | "bad" | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "bad";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const pieces = profile.pieces(value as Json);
  if (!matchAll(query, pieces.map((piece) => piece.text))) return undefined;
  return pieces.find((piece) => query.tests.some((test) => test.test(piece.text)));
}

/** The hit of a matching piece at a place. */
export function hitOf(
  piece: Piece,
  query: CompiledQuery,
  where: Pick<SearchHit, "path" | "line" | "turn" | "sessionId" | "format" | "subagent">,
): SearchHit {
  const { text, marks } = snippetOf(piece.text, query);
  return { ...where, role: piece.role, tool: piece.tool ?? null, snippet: text, marks };
}
