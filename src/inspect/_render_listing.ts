/**
 * The text views of a listing: turnlog's store, or another tool's root (its adapter gives the
 * words and the time column); the newest sessions first, one line each.
 *
 * @module
 */
import type { ForeignListing } from "../formats/mod.ts";
// The tools' words without their readers: a listing from the catalog loads none.
import { toolStartFor } from "../formats/_tool_starts.ts";
import type { SessionListing } from "../store/mod.ts";
import { clip, columnWidths, formatNumber, formatTime, painter, visible } from "../text/mod.ts";
import type { RenderOptions } from "./_render_text.ts";

/** Renders a listing of sessions, newest first. */
export function renderListing(listing: SessionListing, options: RenderOptions): string {
  const paint = painter(options.color);
  if (listing.sessions.length === 0) {
    return `No sessions in ${visible(listing.root)}\n`;
  }
  const rows = listing.sessions.map((s) => [
    visible(s.shortId),
    formatTime(s.created),
    formatNumber(s.turns),
    formatNumber(s.records),
    visible(clip(
      (s.forkedFrom ? `(fork of ${s.forkedFrom.slice(0, 8)}) ` : "") +
        (s.unreadable === undefined
          ? s.firstUserMessage ?? "(no user message)"
          : `(cannot read the file: ${s.unreadable})`),
      options.textChars ?? 60,
    )),
  ]);
  const title = ["id prefix", "created", "turns", "records", "first user message"];
  const widths = columnWidths(title, rows);
  const line = (row: string[]) =>
    row.map((cell, i) =>
      i === 4 ? cell : i === 2 || i === 3 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)
    ).join("  ");
  const out = [
    paint("bold", `Sessions in ${visible(listing.root)}, newest first`),
    paint("dim", line(title)),
    ...rows.map(line),
  ];
  if (listing.more) {
    out.push(paint("dim", `(more sessions: --limit N shows more)`));
  }
  out.push(paint("dim", `Inspect one: ${options.command ?? "./denow task"} inspect <id prefix>`));
  return out.join("\n") + "\n";
}

/**
 * The shortest prefix of each id, 8 characters at least, that no other listed id shares. An
 * id's longest prefix shared with another is shared with a neighbour in sorted order: one sort
 * instead of every id against every other, prefix by prefix (a home of thousands of sessions
 * listed whole).
 */
function shortIds(ids: readonly string[]): string[] {
  const sorted = [...new Set(ids)].sort();
  const shared = new Map<string, number>();
  for (let i = 0; i < sorted.length; i++) {
    const id = sorted[i]!;
    shared.set(id, Math.max(commonLength(id, sorted[i - 1]), commonLength(id, sorted[i + 1])));
  }
  return ids.map((id) => id.slice(0, Math.min(id.length, Math.max(8, shared.get(id)! + 1))));
}

/** How many characters `a` and `b` start with in common (0 without `b`). */
function commonLength(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Options of {@linkcode renderForeignListing}. */
export interface ForeignListingOptions extends RenderOptions {
  /** The flags that name the root in the commands it suggests. @default {the adapter's flag: "--codex"} */
  flags?: string;
}

/** `text` of at most `max` characters, its start cut off (a path's end tells most). */
function clipStart(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - max + 1)}`;
}

/** A session's time for a column: the date, or `-` when the session names none. */
function timeCell(iso: string | null | undefined): string {
  return iso ? formatTime(iso) : "-";
}

/**
 * Renders a listing of another tool's sessions, in the listing's order (newest first): id
 * prefix, the session's own first and last record times (from its head and its tail; `-`
 * when it names none, never the file's modification time), its turns and verdict when the
 * listing tells them (the catalog's), its project (the working directory the head names,
 * else the project folder), and the title or first prompt.
 */
export function renderForeignListing(
  listing: ForeignListing,
  options: ForeignListingOptions,
): string {
  const paint = painter(options.color);
  const adapter = toolStartFor(listing.format);
  const tool = adapter.shortTool;
  if (listing.sessions.length === 0) {
    return `No ${tool} sessions in ${visible(listing.root)}\n`;
  }
  const prefixes = shortIds(listing.sessions.map((s) => s.id));
  // A listing whose sessions were read whole (the catalog's) shows their turns and verdict.
  const told = listing.sessions.some((s) => s.turns !== undefined);
  const rows = listing.sessions.map((s, i) => {
    const what = s.title ?? s.preview ?? "(no prompt)";
    return [
      visible(prefixes[i]!),
      timeCell(s.firstAt ?? s.created),
      timeCell(s.lastAt),
      ...(told
        ? [
          s.turns === null || s.turns === undefined ? "-" : formatNumber(s.turns),
          visible(clip(s.verdict ?? "-", 24)),
        ]
        : []),
      visible(clipStart(s.cwd ?? s.project ?? "-", 40)),
      visible(clip(what, options.textChars ?? 60)),
    ];
  });
  const title = [
    "id prefix",
    "first",
    "last",
    ...(told ? ["turns", "verdict"] : []),
    "project",
    "title or first prompt",
  ];
  const widths = columnWidths(title, rows);
  const lastColumn = title.length - 1;
  const line = (row: string[]) =>
    row.map((cell, i) =>
      i === lastColumn
        ? cell
        : told && i === 3
        ? cell.padStart(widths[i]!)
        : cell.padEnd(widths[i]!)
    ).join("  ");
  const out = [
    paint("bold", `${tool} sessions in ${visible(listing.root)}, newest first`),
    paint("dim", line(title)),
    ...rows.map(line),
  ];
  if (listing.more) out.push(paint("dim", `(more sessions: --limit N shows more)`));
  const flag = options.flags ?? `--${adapter.flag}`;
  const task = options.command ?? "./denow task";
  out.push(
    paint(
      "dim",
      `Inspect one: ${task} inspect ${flag} <id prefix>; continue it in turnlog: ${task} import ${flag} <id prefix>`,
    ),
  );
  return out.join("\n") + "\n";
}
