/**
 * A search's results for people and for programs: a session's block of text (its facts, its
 * hits with the matches marked, the commands that open and continue it), safe for a terminal;
 * and one JSON record per hit.
 *
 * @module
 */
import { basename } from "../_path.ts";
import { formatTime, painter, plural, visible, visibleJson } from "../text/mod.ts";
import type { SearchHit, SessionSummary } from "./_search.ts";

/** The commands a person runs next on a session. */
export interface SessionCommands {
  /** The command that shows it (`inspect`). */
  open: string;
  /** The command that continues it (`resume` or `import`). */
  continue: string;
}

/** Options of {@linkcode renderSession}. */
export interface RenderSearchOptions {
  /** Colour (a terminal): matches in bold yellow; else they stand between `**`. */
  color?: boolean;
  /** Hits shown per session at most. @default {5} */
  hits?: number;
}

/**
 * A snippet with its marks shown, each piece made safe for a terminal.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markSnippet } from "./mod.ts";
 * const hit = { snippet: "a tok\x1b b", marks: [[2, 6]] as [number, number][] };
 * assert.equal(markSnippet(hit, (t) => `*${t}*`), "a *tok\\x1b* b");
 * ```
 */
export function markSnippet(
  hit: Pick<SearchHit, "snippet" | "marks">,
  mark: (text: string) => string,
): string {
  let out = "";
  let at = 0;
  for (const [start, end] of hit.marks) {
    out += visible(hit.snippet.slice(at, start)) + mark(visible(hit.snippet.slice(start, end)));
    at = end;
  }
  return out + visible(hit.snippet.slice(at));
}

/**
 * A snippet marked with `**` for a plain text view. A match that bold text of its own starts
 * or ends at (`**tokenizer**`, `**a → tokenizer**`) is shown in that bold alone: marked again,
 * it read `****tokenizer****`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markPlain } from "./_render.ts";
 * const snippet = "the **tokenizer**, **a → tokenizer** and the tokenizer";
 * const at = (from: number): [number, number] => [snippet.indexOf("tokenizer", from), snippet.indexOf("tokenizer", from) + 9];
 * const hit = { snippet, marks: [at(0), at(10), at(30)] };
 * assert.equal(markPlain(hit), "the **tokenizer**, **a → tokenizer** and the **tokenizer**");
 * ```
 */
export function markPlain(hit: Pick<SearchHit, "snippet" | "marks">): string {
  const { snippet } = hit;
  const inBold = ([start, end]: readonly [number, number]) =>
    snippet.slice(start - 2, start) === "**" || snippet.slice(end, end + 2) === "**";
  let out = "";
  let at = 0;
  for (const mark of hit.marks) {
    if (inBold(mark)) continue;
    out += visible(snippet.slice(at, mark[0])) + `**${visible(snippet.slice(...mark))}**`;
    at = mark[1];
  }
  return out + visible(snippet.slice(at));
}

const day = (iso: string | null) => (iso === null ? "no date" : formatTime(iso));

function hitLine(
  hit: SearchHit,
  mark: ((text: string) => string) | undefined,
  own: string,
): string {
  // A line of another file that is not a subagent's: the history the session inherits (a fork's
  // parent), named by its file.
  const file = hit.subagent ??
    (hit.path === own ? null : `inherited from ${visible(basename(hit.path))}`);
  const where = file === null ? `line ${hit.line}` : `${file} line ${hit.line}`;
  const role = hit.tool !== null && hit.role === "tool call" ? `${hit.role} ${hit.tool}` : hit.role;
  const turn = hit.turn > 0 ? `turn ${hit.turn}` : "before turn 1";
  const text = mark === undefined ? markPlain(hit) : markSnippet(hit, mark);
  return `  ${turn}, ${where}, ${visible(role)}: ${text}\n`;
}

/** A session's block: id, tool, place, date and first prompt; its first hits; the commands. */
export function renderSession(
  session: SessionSummary,
  hits: readonly SearchHit[],
  commands: SessionCommands,
  options: RenderSearchOptions = {},
): string {
  const paint = painter(options.color === true);
  const mark = options.color ? (text: string) => paint("bold", paint("yellow", text)) : undefined;
  const place = session.cwd ?? session.project ?? session.path;
  const shown = hits.slice(0, options.hits ?? 5);
  const prompt = session.firstPrompt ?? session.title;
  const lines = [
    `${paint("bold", visible(session.shortId))}  ${session.tool}  ${visible(place)}  ${
      day(session.started)
    }\n`,
    ...(prompt === null ? [] : [`  ${paint("dim", `"${visible(prompt)}"`)}\n`]),
    ...shown.map((hit) => hitLine(hit, mark, session.path)),
    ...(hits.length > shown.length
      ? [`  ... ${plural(hits.length - shown.length, "more hit")}\n`]
      : []),
    `  open:     ${commands.open}\n`,
    `  continue: ${commands.continue}\n`,
  ];
  return lines.join("") + "\n";
}

/** The JSON records of a session's hits, one a line, with the session's facts on each. */
export function hitRecords(
  session: SessionSummary,
  hits: readonly SearchHit[],
  commands: SessionCommands,
): string {
  return hits.map((hit) =>
    visibleJson({
      ...hit,
      shortId: session.shortId,
      session: {
        path: session.path,
        tool: session.tool,
        cwd: session.cwd,
        project: session.project,
        started: session.started,
        modified: session.modified,
        firstPrompt: session.firstPrompt,
        title: session.title,
      },
      ...commands,
    }) + "\n"
  ).join("");
}
