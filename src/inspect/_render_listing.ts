/**
 * The text view of a store's listing: the newest sessions first, one line each.
 *
 * @module
 */
import type { SessionListing } from "../store/mod.ts";
import { clip, formatNumber, formatTime, painter, visible } from "../text/mod.ts";
import type { RenderOptions } from "./_render_text.ts";

/** Renders a listing of sessions, newest first. */
export function renderListing(listing: SessionListing, options: RenderOptions): string {
  const paint = painter(options.color);
  if (listing.sessions.length === 0) {
    return `No sessions in ${visible(listing.root)}\n`;
  }
  const rows = listing.sessions.map((s) => [
    s.shortId,
    formatTime(s.created),
    formatNumber(s.turns),
    formatNumber(s.records),
    visible(clip(
      (s.forkedFrom ? `(fork of ${s.forkedFrom.slice(0, 8)}) ` : "") +
        (s.firstUserMessage ?? "(no user message)"),
      options.textChars ?? 60,
    )),
  ]);
  const title = ["id prefix", "created", "turns", "records", "first user message"];
  const widths = title.map((t, i) => Math.max(t.length, ...rows.map((r) => r[i]!.length)));
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
  out.push(paint("dim", "Inspect one: ./denow task inspect <id prefix>"));
  return out.join("\n") + "\n";
}
