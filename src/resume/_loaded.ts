/**
 * A session as resume reads it back: what was loaded (its meta, its replayed history, what was
 * wrong with it), and the same normalized for the model.
 *
 * @module
 */
import { type DroppedItem, normalizeHistory } from "../history/mod.ts";
import type {
  FunctionCallOutputItem,
  LineProblem,
  ResponseItem,
  SessionMeta,
  TurnContext,
} from "../record/mod.ts";
import type { SessionLocation } from "../store/mod.ts";

/** A session file read back: its meta, its replayed history and what was wrong with it. */
export interface LoadedSession {
  /** Where the session's file is. */
  location: SessionLocation;
  /** The session's `session_meta`. */
  meta: SessionMeta;
  /** The replayed model-visible history, before normalization. */
  replayed: ResponseItem[];
  /** The newest `turn_context`, whose policy a resumed turn keeps. */
  lastTurn: TurnContext | undefined;
  /** Number of valid records. */
  recordCount: number;
  /** Lines that are not valid records; resume skips them (`inspect --repair` moves them out). */
  problems: LineProblem[];
  /**
   * Where the checkpoint replay started from is (a file's byte offset, a database's sequence
   * number); undefined when replay read the session from its first record.
   */
  replayedFrom: number | undefined;
}

/** A session ready to continue: the normalized history and what normalization did. */
export interface ResumedSession extends LoadedSession {
  /** The normalized history: what the model would be sent. */
  history: ResponseItem[];
  /** Outputs synthesized for calls a crash left without one. */
  synthesizedItems: FunctionCallOutputItem[];
  /** Outputs left out because their call is missing. */
  droppedItems: DroppedItem[];
}

/** A loaded session with its history normalized. */
export function normalizeLoaded(loaded: LoadedSession): ResumedSession {
  const { history, synthesized, dropped } = normalizeHistory(loaded.replayed);
  return { ...loaded, history, synthesizedItems: synthesized, droppedItems: dropped };
}
