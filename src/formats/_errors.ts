/**
 * The errors of a session file that cannot be read as asked, in a module of its own: the tools'
 * starts (`_tool_starts.ts`, which every command loads) throw them without loading the formats'
 * types (`_types.ts`, which re-exports them).
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";

/**
 * A foreign file that cannot be read as asked (a command exits with 2).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ForeignSessionError } from "./mod.ts";
 * const error = new ForeignSessionError("Not a Codex CLI rollout: a.jsonl");
 * assert.equal(error.kind, "session_file");
 * assert.equal(error.name, "ForeignSessionError");
 * ```
 */
export class ForeignSessionError extends TurnlogError {
  /** An error about a foreign session file. */
  constructor(message: string, options?: ErrorOptions) {
    super("session_file", message, options);
    this.name = "ForeignSessionError";
  }
}

/** A path that exists but is not a regular file (a command exits with 2). */
export class NotAFileError extends TurnlogError {
  /** An error naming the path. */
  constructor(path: string, options?: ErrorOptions) {
    super(
      "not_found",
      `Not a session file: ${path} is a directory or another special file`,
      options,
    );
    this.name = "NotAFileError";
  }
}
