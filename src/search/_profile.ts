/**
 * A format's search profile as a search uses it: how the format's sessions are walked and
 * read (its adapter's `search`, or turnlog's own), with the tool's name and the command that
 * continues one of its sessions.
 *
 * @module
 */
import type { FormatSearch } from "../formats/mod.ts";

/** How a search finds and reads one format's sessions, and names them to a person. */
export interface SearchProfile extends FormatSearch {
  /** The tool's name, for people. */
  tool: string;
  /** The command that continues a session: turnlog's own resume, or an import first. */
  continuedBy: "resume" | "import";
}
