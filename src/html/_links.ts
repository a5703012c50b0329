/**
 * Sessions linked to the one on the page: its forks and its subagents. The report does not
 * carry them yet; a later version adds `forks` and `subagents` arrays, and this module reads
 * whatever of their likely fields are there, checking each one's type, so the page shows
 * them as soon as the report has them.
 *
 * @module
 */
import type { InspectReport } from "../inspect/mod.ts";

/** What a link to another session is. */
export type LinkKind = "fork" | "subagent";

/**
 * A session linked to this one, as the page shows it. A report field holding objects with
 * at least an `id` (or `sessionId`) string becomes a list of these; other fields read are
 * `line` and `turn` (numbers: where this file records the link), `title` (or `prompt`,
 * `task`, `name`: what the other session is about) and `path` (its file).
 */
export interface LinkedSession {
  /** A fork of this session, or a subagent it started. */
  kind: LinkKind;
  /** The other session's id. */
  id: string;
  /** The line of this file that records the link, when known. */
  line: number | null;
  /** The turn of this file the link happens in, when known. */
  turn: number | null;
  /** What the other session is about, when known. */
  title: string | null;
  /** The other session's file, when known. */
  path: string | null;
}

const FIELDS: Record<LinkKind, string> = { fork: "forks", subagent: "subagents" };

function stringField(value: Record<string, unknown>, ...names: string[]): string | null {
  for (const name of names) {
    if (typeof value[name] === "string") return value[name] as string;
  }
  return null;
}

function numberField(value: Record<string, unknown>, name: string): number | null {
  const found = value[name];
  return typeof found === "number" && Number.isInteger(found) ? found : null;
}

/** The forks and subagents a report lists (none today), forks first, each in report order. */
export function linkedSessions(report: InspectReport): LinkedSession[] {
  const links: LinkedSession[] = [];
  const fields = report as unknown as Record<string, unknown>;
  for (const kind of ["fork", "subagent"] as const) {
    const list = fields[FIELDS[kind]];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (item === null || typeof item !== "object") continue;
      const value = item as Record<string, unknown>;
      const id = stringField(value, "id", "sessionId");
      if (id === null) continue;
      links.push({
        kind,
        id,
        line: numberField(value, "line"),
        turn: numberField(value, "turn"),
        title: stringField(value, "title", "prompt", "task", "name"),
        path: stringField(value, "path"),
      });
    }
  }
  return links;
}
