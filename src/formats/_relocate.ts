/**
 * What a format says about a session moved to another working directory (`restore --cwd`):
 * where its file goes under the sessions root, and which fields of a line name the folder.
 * Only a format folder knows its fields; the archive asks the adapter's `relocate`.
 *
 * @module
 */
import type { Json } from "./_line.ts";

/** How a format's session follows its project into another folder. */
export interface Relocation {
  /**
   * The file's place under the sessions root (`/`-separated) once the session's working
   * directory is `cwd`, from its place now (Claude Code names the project folder after it;
   * Gemini CLI after the project's entry in its registry, read under `root`).
   */
  place(rel: string, cwd: string, root: string): string | Promise<string>;
  /**
   * Files the tool keeps beside a project's sessions to know the project by (Gemini CLI's
   * ownership marker), each a place under the root and its text, written when missing.
   */
  markers?(rel: string, cwd: string): { rel: string; text: string }[];
  /**
   * Sets the fields of one parsed line that name the session's working directory to `cwd`,
   * in place; returns the fields it changed (`session_meta.payload.cwd`), none for most lines.
   * `from` is the working directory the session had (its first), for fields that hold a path
   * under it.
   */
  line(value: Json, cwd: string, from: string | null): string[];
  /**
   * The texts a line holds when it may name the folder (`"cwd"`): a line without any is kept
   * as it is, unparsed.
   */
  readonly markedBy: readonly string[];
  /** The working directory a parsed line names, if it names one (to learn `from`). */
  cwdOf(value: Json): string | undefined;
}
