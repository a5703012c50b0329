/**
 * What a search asks of a session format (each adapter's `search`, and turnlog's own): its
 * sessions under a root from names alone, what a session's head tells, the conversation a
 * parsed line holds (who said what), and where turns start, told from a line's text without
 * parsing it. With the few helpers the profiles share.
 *
 * @module
 */
import type { FoundSession, ListedForeignSession, PreviewOptions } from "./_find.ts";
import { isObject, type Json } from "./_line.ts";

export { isObject, type Json, obj, str } from "./_line.ts";

/** Who said a piece of the conversation. */
export type HitRole = "user" | "assistant" | "tool call" | "tool output" | "summary";

/** One piece of conversation on a line. */
export interface Piece {
  /** Who said it. */
  role: HitRole;
  /** Its text, as the conversation holds it. */
  text: string;
  /** The tool called, for a tool call or its output, when the line names it. */
  tool?: string;
  /**
   * Written again by a checkpoint that holds the history so far (Gemini's `$set` of
   * messages): a hit only when no earlier hit of the file is the same piece.
   */
  again?: boolean;
}

/** Counts the turns of one file as its lines go by, from their raw text alone. */
export interface TurnCounter {
  /** Sees the next line; returns the turn it belongs to (0 before the first). */
  turnOf(line: string): number;
  /**
   * What a line holds when it can move the count: a line that holds none of these texts
   * leaves the counter as it was, so a reader that needs the turns of a few lines shows it
   * only those and the lines that hold one of these.
   */
  readonly markers: readonly string[];
}

/** A session's files: its own, and its subagents' that belong to it. */
export interface SessionFiles {
  /** The session id its file name carries. */
  id: string;
  /** The session's file. */
  path: string;
  /** Subagent transcripts that belong to the session. */
  subagents: string[];
  /** The project folder the tool filed it under (Claude Code), else null. */
  project: string | null;
}

/** What a session's head tells a search result. */
export interface HeadFacts {
  /** The session's start, from its records. */
  started: string | null;
  /** Its working directory. */
  cwd: string | null;
  /** The first real prompt, on one line, shortened. */
  firstPrompt: string | null;
  /** A title the file gives it. */
  title: string | null;
}

/** A part of another file that a session's conversation starts with (a fork's parent's part). */
export interface InheritedPart {
  /** The file. */
  path: string;
  /** Its lines from this byte on are not part of it. */
  endByte: number;
  /** Whether a parsed line before `endByte` is part of it (Codex: its ordinal is below the base's). */
  holds(value: Json): boolean;
}

/** The history a session inherits from other files, as its tool's resume rebuilds it. */
export interface InheritedHistory {
  /** A text that the first line of a session that inherits holds; only such a session pays. */
  marker: string;
  /**
   * The parts, oldest first, from the session's path and its first line; `missing` says a part
   * that is not in the home (what was found is still given).
   */
  parts(
    path: string,
    firstLine: string,
  ): Promise<{ parts: InheritedPart[]; missing: string | null }>;
}

/** How a search finds and reads one format's sessions. */
export interface FormatSearch {
  /** Every session under a root of this format, from names alone (in no particular order). */
  walk(root: string): AsyncIterable<SessionFiles>;
  /** What the session's head tells (its first lines only). */
  head(session: SessionFiles): Promise<HeadFacts>;
  /** The conversation pieces of a parsed line; none for metadata, progress, hooks. */
  pieces(value: Json): Piece[];
  /** A new turn counter for a file. */
  turns(): TurnCounter;
  /** The history a session inherits (a Codex fork's parent), for formats that have one. */
  inherited?: InheritedHistory;
}

/** The string values inside a JSON value (a tool's input), in order, one a line. */
export function stringsIn(value: unknown): string {
  const found: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") found.push(v);
    else if (typeof v === "number" || typeof v === "boolean") found.push(String(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) Object.values(v).forEach(walk);
  };
  walk(value);
  return found.join("\n");
}

/** A tool call's arguments as written (a JSON text, or not): the strings they hold. */
export function argumentText(text: string): string {
  try {
    const parsed = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null ? stringsIn(parsed) : text;
  } catch {
    return text;
  }
}

/**
 * A counter of the lines that open a turn: those holding one of `markers` that `opens` tells
 * (by default every one that holds a marker).
 */
export function markerCounter(
  markers: readonly string[],
  opens: (line: string) => boolean = (line) => markers.some((text) => line.includes(text)),
): TurnCounter {
  let turn = 0;
  return {
    markers,
    turnOf(line) {
      if (opens(line)) turn++;
      return turn;
    },
  };
}

/** Text on one line of at most 120 characters. */
export function previewText(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/**
 * A search's head facts of a session, from its format's listing preview of its head alone
 * (no `stat`, no read of its tail: `headOnly`).
 */
export async function headOfPreview(
  format: string,
  session: SessionFiles,
  preview: (found: FoundSession, options: PreviewOptions) => Promise<ListedForeignSession>,
): Promise<HeadFacts> {
  const { path, id, project } = session;
  const listed = await preview({
    format,
    id,
    path,
    created: null,
    modified: null,
    sizeBytes: 0,
    project,
  }, { headOnly: true });
  return {
    started: listed.created,
    cwd: listed.cwd,
    firstPrompt: listed.preview,
    title: listed.title,
  };
}
