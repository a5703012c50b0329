/**
 * Fork: a new session that starts from another one's history, up to a turn, normalized; the
 * original file is only read. Its `session_meta` says where it came from.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { normalizeHistory, SessionReplay } from "../history/mod.ts";
import {
  makeRecord,
  newId,
  type ResponseItem,
  responseItemRecord,
  type SessionMeta,
} from "../record/mod.ts";
import { createSession, FileStore, type SessionLocation, type SessionStore } from "../store/mod.ts";

/** Options of {@linkcode forkSession}. */
export interface ForkOptions {
  /** The sessions root of both sessions; absent: `TURNLOG_SESSIONS_DIR`, else `./sessions`. */
  root?: string | undefined;
  /** The store of both sessions; absent: the file store at `root`. */
  store?: SessionStore | undefined;
  /**
   * Keep the history before this turn (1-based, as `inspect` numbers turns); absent: all of it.
   */
  atTurn?: number | undefined;
  /** The fork's id; absent: a new UUIDv7. */
  id?: string | undefined;
  /** The fork's workspace (its `session_meta.cwd`); absent: the original's. */
  cwd?: string | undefined;
}

/** A fork made: its location and what it holds. */
export interface Fork {
  /** Where the fork is. */
  location: SessionLocation;
  /** The fork's `session_meta` (with `forkedFrom`). */
  meta: SessionMeta;
  /** The history the fork starts from (normalized). */
  history: ResponseItem[];
}

/** A turn number past the session's turns. */
export class NoSuchTurnError extends TurnlogError {
  /** An error naming the turn asked for and the turns there are. */
  constructor(turn: number, turns: number, options?: ErrorOptions) {
    super("usage", `No turn ${turn} to fork at: the session has ${turns} turn(s)`, options);
    this.name = "NoSuchTurnError";
  }
}

/**
 * The source's meta (checked as resume checks it: its `session_meta` first, naming its id), its
 * history before turn `atTurn` and the context of the turn it ends in.
 */
async function historyBefore(
  store: SessionStore,
  source: SessionLocation,
  atTurn: number | undefined,
) {
  const replay = new SessionReplay();
  let reached = false;
  for await (const entry of store.read(source)) {
    reached = atTurn !== undefined && entry.record?.type === "turn_context" &&
      replay.turns + 1 >= atTurn;
    if (reached) break;
    replay.push(entry);
  }
  if (atTurn !== undefined && !reached && replay.turns < atTurn) {
    throw new NoSuchTurnError(atTurn, replay.turns);
  }
  const meta = replay.sessionMeta(source.path, source.id);
  return { meta, context: replay.lastTurn, history: replay.history };
}

/**
 * Starts a new session from another one's history: every turn before `atTurn` (or all of
 * them), replayed and normalized (a call the source left without an output gets its
 * synthesized output in the fork). The fork's file holds its `session_meta` (with
 * `forkedFrom`) and one turn, the history it starts from; the source file is only read.
 *
 * @throws {SessionNotFoundError} for an unknown source id
 * @throws {NoSuchTurnError} for a turn the source does not have
 */
export async function forkSession(sourceId: string, options: ForkOptions = {}): Promise<Fork> {
  const store = options.store ?? new FileStore(options.root);
  const source = await store.find(sourceId);
  const { meta, context, history } = await historyBefore(store, source, options.atTurn);
  const normalized = normalizeHistory(history).history;
  const id = options.id ?? newId();
  const recorded = context ?? { ...meta, runId: meta.id, resumed: false };
  const created = await createSession(store, {
    id,
    cwd: options.cwd ?? meta.cwd,
    modelProvider: meta.modelProvider,
    model: recorded.model,
    wireApi: recorded.wireApi,
    policy: recorded.policy,
    forkedFrom: { sessionId: meta.id, turn: options.atTurn ?? null },
  });
  try {
    await created.writer.append([
      makeRecord("turn_context", {
        runId: id,
        model: recorded.model,
        wireApi: recorded.wireApi,
        policy: recorded.policy,
        resumed: false,
      }),
      ...normalized.map((item) => responseItemRecord(item)),
      makeRecord("run_finished", { runId: id, outcome: "succeeded", rounds: 0 }),
    ]);
  } finally {
    await created.writer.close();
  }
  return { location: created.location, meta: created.meta, history: normalized };
}
