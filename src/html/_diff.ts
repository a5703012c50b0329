/**
 * The file changes of a tool call (its adapter's `edits`: an `Edit`, an `apply_patch`) as a
 * diff on the page: each file's removed, added and kept lines, a replacement worked out with
 * `diff` (`structuredPatch`), a patch shown as the tool wrote it. Diffing is bounded: each
 * replacement by a time and an edit-length limit, a page by a time budget (see
 * {@linkcode DiffBudget}); a replacement past them is shown as removed then added, with a note.
 *
 * @module
 */
// Deferred: evaluated when a page first shows an edit, not by every page.
import defer * as Diff from "diff";
import type { PatchLine, ToolEdit } from "../formats/mod.ts";
import { plural } from "../text/mod.ts";
import { escapeHtml, escapeText } from "./_escape.ts";

/** Kept lines around each change of a replacement. */
const CONTEXT = 3;
/** Characters of a replacement beyond which it is shown as removed then added, not diffed. */
const MAX_DIFFED = 200_000;
/** Milliseconds one replacement's diff may take at most. */
const BLOCK_MS = 50;
/** Lines added and removed a diff looks for at most (jsdiff's `maxEditLength`). */
const MAX_EDIT_LINES = 2000;

/**
 * The time a page's diffs may take together, spent as they run: a session of many large,
 * very different edits (40 `Edit` calls replacing 1,400 lines each took jsdiff minutes) shows
 * the first within the budget as diffs and the rest as removed then added lines.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DiffBudget, editsHtml } from "./_diff.ts";
 * const budget = new DiffBudget(0);
 * const html = editsHtml([{ kind: "replace", path: "a", before: "x\n", after: "y\n" }], {
 *   collapseLines: 12,
 *   diffBudget: budget,
 * });
 * assert.ok(html.includes(`<del>x</del><ins>y</ins>`) && html.includes("not diffed"));
 * ```
 */
export class DiffBudget {
  /** Milliseconds left. */
  msLeft: number;
  /** Replacements shown whole for want of time or because they differ too much. */
  undiffed = 0;
  constructor(ms: number) {
    this.msLeft = ms;
  }
}

/** Why a replacement is shown as removed then added lines, or undefined when it was diffed. */
type Undiffed = "size" | "budget" | "different" | undefined;

/** What an edit shows: its lines (a side not diffed is one), why not diffed, its counts. */
interface EditLines {
  lines: PatchLine[];
  undiffed: Undiffed;
  added: number;
  removed: number;
}

/** The lines of a replacement: its hunks, each opened by a `hunk` line when there are several. */
function replacementLines(
  before: string,
  after: string,
  budget: DiffBudget,
): EditLines {
  // Not diffed: each side as one text (one escape, one element, not one per line), counted.
  const side = (text: string, kind: "add" | "remove"): PatchLine[] =>
    text === "" ? [] : [{ kind, text: text.replace(/\n$/, "") }];
  const whole = (undiffed: Undiffed) => {
    budget.undiffed++;
    return {
      lines: [...side(before, "remove"), ...side(after, "add")],
      undiffed,
      removed: lineCount(before),
      added: lineCount(after),
    };
  };
  if (before.length + after.length > MAX_DIFFED) return whole("size");
  if (budget.msLeft <= 0) return whole("budget");
  const started = performance.now();
  const patch = Diff.structuredPatch("", "", before, after, undefined, undefined, {
    context: CONTEXT,
    timeout: Math.max(1, Math.min(BLOCK_MS, budget.msLeft)),
    maxEditLength: MAX_EDIT_LINES,
  });
  budget.msLeft -= performance.now() - started;
  if (patch === undefined) return whole("different");
  const out: PatchLine[] = [];
  for (const hunk of patch.hunks) {
    if (patch.hunks.length > 1) out.push({ kind: "hunk", text: "" });
    for (const line of hunk.lines) {
      if (line.startsWith("\\")) continue; // "\ No newline at end of file"
      const kind = line[0] === "+" ? "add" : line[0] === "-" ? "remove" : "context";
      out.push({ kind, text: line.slice(1) });
    }
  }
  const added = out.filter((line) => line.kind === "add").length;
  const removed = out.filter((line) => line.kind === "remove").length;
  return { lines: out, undiffed: undefined, added, removed };
}

/** Lines of a text (a last line without its newline counts). */
function lineCount(text: string): number {
  let lines = text === "" || text.endsWith("\n") ? 0 : 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return lines;
}

/** The lines an edit shows, and why a replacement was not diffed. */
function editLines(edit: ToolEdit, budget: DiffBudget): EditLines {
  if (edit.kind === "replace") return replacementLines(edit.before, edit.after, budget);
  const added = edit.lines.filter((line) => line.kind === "add").length;
  const removed = edit.lines.filter((line) => line.kind === "remove").length;
  return { lines: edit.lines, undiffed: undefined, added, removed };
}

const UNDIFFED_NOTES: Record<Exclude<Undiffed, undefined>, string> = {
  size: "too large to diff on a page",
  budget: "the page's time for diffs was spent on the edits above",
  different: "too different to diff in the time one edit may take",
};

const TAGS: Record<PatchLine["kind"], [string, string]> = {
  add: ["<ins>", "</ins>"],
  remove: ["<del>", "</del>"],
  context: [`<span class="ctx">`, "</span>"],
  hunk: [`<span class="hunk">`, "</span>"],
};

function lineHtml(line: PatchLine): string {
  const [open, close] = TAGS[line.kind];
  return `${open}${escapeText(line.text)}${close}`;
}

/**
 * The edits of one tool call as HTML: per file a `<div class="diff" data-diff="<path>">` with
 * its path, what it changes, and its lines in a `<pre>` (`<del>` removed, `<ins>` added,
 * `.ctx` kept, `.hunk` between hunks); one longer than `collapseLines` folds behind its head.
 * A replacement not diffed (see {@linkcode DiffBudget}) says why (`p.note[data-undiffed]`) and
 * shows each side whole, one `<del>` and one `<ins>` (`pre.diff-lines.whole`).
 */
export function editsHtml(
  edits: readonly ToolEdit[],
  settings: { collapseLines: number; diffBudget: DiffBudget },
): string {
  return edits.map((edit) => {
    const { lines, undiffed, added, removed } = editLines(edit, settings.diffBudget);
    const path = edit.path ?? "(no path)";
    const head = `<span class="mono">${
      escapeText(path)
    }</span> <span class="size">+${added} −${removed}</span>`;
    const note = undiffed === undefined
      ? ""
      : `<p class="note" data-undiffed="${undiffed}">Shown as removed then added lines, not diffed: ${
        UNDIFFED_NOTES[undiffed]
      }.</p>`;
    const body = `${note}<pre class="diff-lines${undiffed ? " whole" : ""}">${
      lines.map(lineHtml).join("")
    }</pre>`;
    const shown = undiffed === undefined ? lines.length : added + removed;
    const open = shown <= settings.collapseLines * 3 ? " open" : "";
    return `<details class="diff" data-diff="${
      escapeHtml(path)
    }"${open}><summary>${head} <span class="size">(${
      plural(shown, "line")
    })</span></summary>${body}</details>`;
  }).join("");
}
