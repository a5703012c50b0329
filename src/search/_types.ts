/**
 * What a search yields: hits, the summaries of the sessions they are in, and the lines or
 * files it skipped.
 *
 * @module
 */
import type { SessionFormat } from "../formats/mod.ts";
import type { HitRole } from "../formats/mod.ts";
import type { SearchSource } from "./_sources.ts";

/** One line whose conversation holds every term. */
export interface SearchHit {
  /** The file the line is in (a subagent's transcript, for a subagent's line). */
  path: string;
  /** 1-based line number in that file. */
  line: number;
  /** The turn of that file the line is in (its prompts counted from the start), 0 before one. */
  turn: number;
  /** Who said the matching piece. */
  role: HitRole;
  /** The tool called, when the piece is a call or an output that names it. */
  tool: string | null;
  /** The session's id. */
  sessionId: string;
  /** The session's format. */
  format: SessionFormat;
  /** The subagent transcript's name (`agent-…`), when the line is a subagent's. */
  subagent: string | null;
  /** The text around the first match, on one line (raw: escape it before printing). */
  snippet: string;
  /** The matches in `snippet`, as `[start, end)` ranges. */
  marks: [number, number][];
}

/** A session with hits, as a result shows it. */
export interface SessionSummary {
  /** The session id. */
  id: string;
  /** Its shortest unique prefix in its source (at least 8 characters). */
  shortId: string;
  /** Its format. */
  format: SessionFormat;
  /** The tool that wrote it, for people. */
  tool: string;
  /** What continues it: `resume` (turnlog's own), or `import` into turnlog first. */
  continuedBy: "resume" | "import";
  /** Its file. */
  path: string;
  /** Where it was found. */
  source: SearchSource;
  /** The project folder it is filed under (Claude Code), else null. */
  project: string | null;
  /** Its working directory, from its records. */
  cwd: string | null;
  /** Its start, from its records. */
  started: string | null;
  /** When its files were last written (ISO 8601). */
  modified: string | null;
  /** Its first prompt, on one line. */
  firstPrompt: string | null;
  /** A title the file gives it. */
  title: string | null;
}

/** What a search yields, as it goes. */
export type SearchEvent =
  | { kind: "session"; session: SessionSummary; hits: SearchHit[] }
  | { kind: "skipped"; path: string; line: number | null; reason: string }
  | { kind: "limit"; limit: number };
