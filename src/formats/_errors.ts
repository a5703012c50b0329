/**
 * The error of a foreign session file that cannot be read as asked, in a module of its own: the
 * tools' starts (`_tool_starts.ts`, which every command loads) throw it without loading the
 * formats' types (`_types.ts`, which re-exports it).
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
