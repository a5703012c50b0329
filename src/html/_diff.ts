/**
 * The file changes of a tool call (its adapter's `edits`: an `Edit`, an `apply_patch`) as a
 * diff on the page: each file's removed, added and kept lines, a replacement worked out with
 * `diff` (`structuredPatch`), a patch shown as the tool wrote it.
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

/** The lines of a replacement: its hunks, each opened by a `hunk` line when there are several. */
function replacementLines(before: string, after: string): PatchLine[] {
  const lines = (text: string, kind: "add" | "remove") =>
    text === "" ? [] : text.replace(/\n$/, "").split("\n").map((line) => ({ kind, text: line }));
  if (before.length + after.length > MAX_DIFFED) {
    return [...lines(before, "remove"), ...lines(after, "add")];
  }
  const patch = Diff.structuredPatch("", "", before, after, undefined, undefined, {
    context: CONTEXT,
  });
  const out: PatchLine[] = [];
  for (const hunk of patch.hunks) {
    if (patch.hunks.length > 1) out.push({ kind: "hunk", text: "" });
    for (const line of hunk.lines) {
      if (line.startsWith("\\")) continue; // "\ No newline at end of file"
      const kind = line[0] === "+" ? "add" : line[0] === "-" ? "remove" : "context";
      out.push({ kind, text: line.slice(1) });
    }
  }
  return out;
}

/** The lines an edit shows. */
export function editLines(edit: ToolEdit): PatchLine[] {
  return edit.kind === "replace" ? replacementLines(edit.before, edit.after) : edit.lines;
}

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

/** What a file's diff changes, counted: `+3 −1`. */
function counts(lines: readonly PatchLine[]): string {
  const added = lines.filter((line) => line.kind === "add").length;
  const removed = lines.filter((line) => line.kind === "remove").length;
  return `+${added} −${removed}`;
}

/**
 * The edits of one tool call as HTML: per file a `<div class="diff" data-diff="<path>">` with
 * its path, what it changes, and its lines in a `<pre>` (`<del>` removed, `<ins>` added,
 * `.ctx` kept, `.hunk` between hunks); one longer than `collapseLines` folds behind its head.
 */
export function editsHtml(
  edits: readonly ToolEdit[],
  settings: { collapseLines: number },
): string {
  return edits.map((edit) => {
    const lines = editLines(edit);
    const path = edit.path ?? "(no path)";
    const head = `<span class="mono">${escapeText(path)}</span> <span class="size">${
      counts(lines)
    }</span>`;
    const body = `<pre class="diff-lines">${lines.map(lineHtml).join("")}</pre>`;
    const open = lines.length <= settings.collapseLines * 3 ? " open" : "";
    return `<details class="diff" data-diff="${
      escapeHtml(path)
    }"${open}><summary>${head} <span class="size">(${
      plural(lines.length, "line")
    })</span></summary>${body}</details>`;
  }).join("");
}
