/**
 * The head of a turnlog session: its start, its working directory, the session it was forked
 * from and its first user message, read from its first records in one place for the search,
 * the store's listing and the browser's list.
 *
 * @module
 */
import { type Json, obj, str } from "../_line.ts";

/**
 * The text that marks a turn's start in a turnlog file's raw bytes: a `turn_context` record's
 * own `"type"` is the only place it stands unescaped (inside a string, JSON escapes its quotes).
 */
export const TURN_CONTEXT_MARK = '"type":"turn_context"';

/** What a turnlog session's head tells. */
export interface TurnlogHead {
  /** The first record's time. */
  firstAt: string | null;
  /** The session's creation time, from its `session_meta`. */
  started: string | null;
  /** Its working directory, from its `session_meta`. */
  cwd: string | null;
  /** The id of the session it was forked from, from its `session_meta`. */
  forkedFrom: string | null;
  /** The first user message, whole. */
  firstPrompt: string | null;
}

/**
 * Reads a turnlog session's head one record at a time (a parsed line or a stored record: both
 * are `{timestamp, type, payload}`), until the first user message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TurnlogHeadReader } from "./mod.ts";
 * const reader = new TurnlogHeadReader();
 * const meta = { createdAt: "2026-01-15T10:00:00.000Z", cwd: "/w" };
 * assert.equal(reader.see({ timestamp: "t1", type: "session_meta", payload: meta }), false);
 * const hi = { type: "message", role: "user", content: "hi" };
 * assert.equal(reader.see({ timestamp: "t2", type: "response_item", payload: hi }), true);
 * assert.deepEqual(reader.head, {
 *   firstAt: "t1",
 *   started: "2026-01-15T10:00:00.000Z",
 *   cwd: "/w",
 *   forkedFrom: null,
 *   firstPrompt: "hi",
 * });
 * ```
 */
export class TurnlogHeadReader {
  /** What the records seen so far tell. */
  readonly head: TurnlogHead = {
    firstAt: null,
    started: null,
    cwd: null,
    forkedFrom: null,
    firstPrompt: null,
  };

  /** Takes one record in (any object: a stored record, a parsed line); true once the head is read. */
  see(value: object): boolean {
    const record = value as Json;
    const payload = obj(record, "payload");
    this.head.firstAt ??= str(record, "timestamp") ?? null;
    if (!payload) return false;
    if (record.type === "session_meta") {
      this.head.started ??= str(payload, "createdAt") ?? null;
      this.head.cwd ??= str(payload, "cwd") ?? null;
      const fork = obj(payload, "forkedFrom");
      this.head.forkedFrom ??= (fork && str(fork, "sessionId")) ?? null;
      return false;
    }
    if (record.type !== "response_item") return false;
    if (payload.type !== "message" || payload.role !== "user") return false;
    this.head.firstPrompt = str(payload, "content") ?? "";
    return true;
  }
}
