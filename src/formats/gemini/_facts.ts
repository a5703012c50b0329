/**
 * The facts only a Gemini CLI session file has, as its reader fills them in
 * `ForeignFacts.formatFacts`.
 *
 * @module
 */
import type { ForeignFacts } from "../_types.ts";

/** Facts only a Gemini CLI session file has: what its replay passed over. */
export interface GeminiFacts {
  /** Lines holding an earlier copy of a message a later copy replaced (the last copy wins). */
  supersededCopies: number;
  /** Checkpoint lines (`$set` of `messages`), each replacing the whole history. */
  checkpoints: number;
  /** Messages a later checkpoint replaced. */
  replacedByCheckpoint: number;
  /** Messages a `$rewindTo` took back. */
  rewound: number;
  /** The session a subagent's session (`chats/<parent id>/<id>.jsonl`) belongs to, else null. */
  parentSessionId: string | null;
  /** Whether it is a legacy single-object `.json` file (before Gemini CLI 0.39). */
  legacy: boolean;
}

/** A session file's Gemini-only facts, or null for another format's facts. */
export function geminiFactsOf(facts: ForeignFacts): GeminiFacts | null {
  return facts.format === "gemini" ? facts.formatFacts as GeminiFacts | null : null;
}
