/**
 * Fork: a new session that starts from another one's history, up to a turn, normalized; the
 * original file is only read. Its `session_meta` says where it came from.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { normalizeHistory, replayRecord } from "../history/mod.ts";
import {
  makeRecord,
  newId,
  type ResponseItem,
  responseItemRecord,
  type SessionMeta,
  type TurnContext,
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

/** The source's meta, its history before turn `atTurn` and the context of the turn it ends in. */
async function historyBefore(
  store: SessionStore,
  source: SessionLocation,
  atTurn: number | undefined,
) {
  let meta: SessionMeta | undefined;
  let context: TurnContext | undefined;
  let turns = 0;
  const history: ResponseItem[] = [];
  for await (const entry of store.read(source)) {
    const record = entry.record;
    if (!record) continue;
    if (record.type === "session_meta") meta ??= record.payload;
    if (record.type === "turn_context") {
      turns++;
      if (atTurn !== undefined && turns >= atTurn) break;
      context = record.payload;
    }
    replayRecord(history, record);
  }
  if (atTurn !== undefined && turns < atTurn) throw new NoSuchTurnError(atTurn, turns);
  return { meta, context, history };
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
  if (meta === undefined) {
    throw new TurnlogError("session_file", `${source.path}:1: no session_meta record first`);
  }
  const normalized = normalizeHistory(history).history;
  const id = options.id ?? newId();
  const recorded = context ?? { ...meta, runId: meta.id, resumed: false };
  const created = await createSession(store, {
    id,
    cwd: meta.cwd,
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
