/**
 * What a format tells the catalog so that a grown file's facts come from its last turn and
 * the lines appended, not from the whole file again (src/catalog/_grow.ts): which lines head a
 * file, which calls a line opens and answers, how its lines link to a parent, and which lines
 * no append may bring (a compaction, another session's head).
 *
 * @module
 */
import type { Json } from "./_line.ts";

/** A line's own id and its parent's, for a format whose lines link to a parent. */
export interface ResumeLink {
  /** The line's id. */
  id: string;
  /** Its parent's id; null for a root. */
  parent: string | null;
}

/**
 * The line rules by which a file's facts are continued from a turn's start: a format without
 * them (or a file they refuse) is read whole when it grows.
 */
export interface FormatResume {
  /** Whether the file's first line is a head every reading of a turn needs before it. */
  head(value: Json): boolean;
  /** The call ids a line opens and those it answers. */
  calls(value: Json): { opens: readonly string[]; answers: readonly string[] };
  /** The line's link to its parent; null for a line without one. */
  link(value: Json): ResumeLink | null;
  /**
   * Why a file cannot be continued past this line (a compaction, a fork's history); undefined
   * when it can. `first` is true for the file's first line: a refusal there holds for the whole
   * file.
   */
  refuses(value: Json, first: boolean): string | undefined;
  /**
   * What a line takes from the lines before its turn, where a reading of the turn alone may
   * judge it otherwise (Codex's token counts, said again and not counted twice): `depends`,
   * or `settles` for one that depends and after which no line does (undefined: neither).
   * A line that depends, appended before any that settles, has the file read whole.
   */
  carries?(value: Json): "depends" | "settles" | undefined;
  /** The line as the first of a file cut before it: its link to a parent taken away. */
  detach(value: Json): Json;
}
