/**
 * Resume: rebuilds a session's model-visible history from its file (never from memory), and
 * draws the boundary between the full history sent to the model and the few new records
 * appended to the file.
 *
 * @module
 */
import { newId } from "./ids.ts";
import { type DroppedItem, normalizeHistory } from "./normalize.ts";
import { type LineProblem, readRecords, SessionFileError } from "./reader.ts";
import {
  type FunctionCallOutputItem,
  makeRecord,
  type Policy,
  type ResponseItem,
  responseItemRecord,
  type SessionMeta,
  type SessionRecord,
  type TurnContext,
  type WireApi,
} from "./records.ts";
import { replayRecord } from "./replay.ts";
import {
  createSession,
  findSession,
  resolveSessionsRoot,
  type SessionLocation,
  SessionWriter,
} from "./store.ts";

/** The policy of a fresh session when none is given: ask before changing anything. */
export const DEFAULT_POLICY: Policy = { approval: "ask-changes" };

/** A session file read back: its meta, its replayed history and what was wrong with it. */
export interface LoadedSession {
  location: SessionLocation;
  meta: SessionMeta;
  /** The replayed model-visible history, before normalization. */
  replayed: ResponseItem[];
  /** The newest `turn_context`, whose policy a resumed turn keeps. */
  lastTurn: TurnContext | undefined;
  /** Number of `turn_context` records. */
  turnCount: number;
  /** Number of valid records. */
  recordCount: number;
  /** Lines that are not valid records; resume skips them (`inspect --repair` moves them out). */
  problems: LineProblem[];
}

/**
 * Reads a session file from the first line to the last, streaming, and replays it. Bad lines
 * are collected, not thrown; only a file without a `session_meta` first record is an error.
 */
export async function loadSession(location: SessionLocation): Promise<LoadedSession> {
  let meta: SessionMeta | undefined;
  const replayed: ResponseItem[] = [];
  const problems: LineProblem[] = [];
  let lastTurn: TurnContext | undefined;
  let turnCount = 0;
  let recordCount = 0;
  for await (const entry of readRecords(location.path)) {
    if (entry.problem) {
      problems.push(entry.problem);
      continue;
    }
    const record = entry.record;
    recordCount++;
    if (meta === undefined) {
      if (record.type !== "session_meta") {
        throw new SessionFileError(
          `${location.path}:${entry.line}: expected the session_meta record first, found ${record.type}`,
        );
      }
      meta = record.payload;
      continue;
    }
    if (record.type === "turn_context") {
      lastTurn = record.payload;
      turnCount++;
    }
    replayRecord(replayed, record);
  }
  if (meta === undefined) {
    const first = problems[0];
    throw new SessionFileError(
      first
        ? `${first.message} (no session_meta record could be read)`
        : `${location.path}:1: empty session file, no session_meta record`,
    );
  }
  return { location, meta, replayed, lastTurn, turnCount, recordCount, problems };
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

/**
 * Rebuilds a session's history from its file: find by id or prefix, replay, normalize. It
 * re-reads the file every time (no cache), so another process or machine can resume too. It
 * writes nothing.
 *
 * @throws {SessionNotFoundError} for an unknown id; no file is created
 */
export async function resumeSession(
  sessionId: string,
  options: { root?: string } = {},
): Promise<ResumedSession> {
  const location = await findSession(resolveSessionsRoot(options.root), sessionId);
  return normalizeLoaded(await loadSession(location));
}

function normalizeLoaded(loaded: LoadedSession): ResumedSession {
  const { history, synthesized, dropped } = normalizeHistory(loaded.replayed);
  return { ...loaded, history, synthesizedItems: synthesized, droppedItems: dropped };
}

/** What a run asks of the session it starts or continues. */
export interface RunSessionInput {
  /** The user's message for this turn. */
  message: string;
  /** Continue this session (id or unique prefix); absent: start a fresh one. */
  sessionId?: string | undefined;
  /** Sessions root; absent: {@linkcode resolveSessionsRoot}. */
  root?: string | undefined;
  /** The system message of a fresh session. */
  systemPrompt: string;
  cwd: string;
  modelProvider: string;
  /** The model; absent on resume: the one the session last used. */
  model?: string | undefined;
  /** The wire API; absent on resume: the one the session last used. */
  wireApi?: WireApi | undefined;
  /** An explicit policy; absent on resume: the recorded one, never a silent escalation. */
  policy?: Policy | undefined;
  /** The run id; absent: a new UUIDv7. */
  runId?: string | undefined;
}

/** The session a run works on, locked for it. */
export interface RunSession {
  sessionId: string;
  runId: string;
  resumed: boolean;
  location: SessionLocation;
  meta: SessionMeta;
  /** The turn context written for this run: its model, wire API and policy. */
  turn: TurnContext;
  /** The full history to send to the model. */
  history: ResponseItem[];
  /** Only what this run appended for the history: synthesized outputs and the user message. */
  newItemsToPersist: ResponseItem[];
  synthesizedItems: FunctionCallOutputItem[];
  droppedItems: DroppedItem[];
  problems: LineProblem[];
  /** Valid records in the file before this run appended anything. */
  recordCountBefore: number;
  /** The locked writer; the run appends through it and closes it at the end. */
  writer: SessionWriter;
}

/**
 * Starts a run on a session (the seed's initializeAgentSessionForStream).
 *
 * Fresh: a new session whose id is the run id; history = items to persist = system + user.
 * Resume: history = replayed history + synthesized outputs + the new user message; only the
 * synthesized outputs and the user message are appended (after a `turn_context`), so the file
 * grows by the new records and its earlier bytes never change, and a second resume
 * synthesizes nothing.
 *
 * @throws {SessionNotFoundError} for an unknown id, creating nothing
 * @throws {SessionInUseError} when another run holds the session
 */
export async function initializeSessionForRun(input: RunSessionInput): Promise<RunSession> {
  const root = resolveSessionsRoot(input.root);
  const runId = input.runId ?? newId();
  const userMessage: ResponseItem = { type: "message", role: "user", content: input.message };

  if (input.sessionId === undefined) {
    const turn: TurnContext = {
      runId,
      model: input.model ?? "unknown",
      wireApi: input.wireApi ?? "responses",
      policy: input.policy ?? DEFAULT_POLICY,
      resumed: false,
    };
    const { writer, meta, location } = await createSession(root, {
      id: runId,
      cwd: input.cwd,
      modelProvider: input.modelProvider,
      model: turn.model,
      wireApi: turn.wireApi,
      policy: turn.policy,
    });
    const items: ResponseItem[] = [
      { type: "message", role: "system", content: input.systemPrompt },
      userMessage,
    ];
    try {
      await writer.append([
        makeRecord("turn_context", turn),
        ...items.map((item) => responseItemRecord(item)),
      ]);
    } catch (error) {
      writer.close();
      throw error;
    }
    return {
      sessionId: runId,
      runId,
      resumed: false,
      location,
      meta,
      turn,
      history: [...items],
      newItemsToPersist: items,
      synthesizedItems: [],
      droppedItems: [],
      problems: [],
      recordCountBefore: 0,
      writer,
    };
  }

  const location = await findSession(root, input.sessionId);
  // The lock comes before the read, so no other run can append between the two.
  const writer = await SessionWriter.open(location.path);
  try {
    const resumed = normalizeLoaded(await loadSession(location));
    const recorded = resumed.lastTurn ??
      { ...resumed.meta, runId: resumed.meta.id, resumed: false };
    const turn: TurnContext = {
      runId,
      model: input.model ?? recorded.model,
      wireApi: input.wireApi ?? recorded.wireApi,
      policy: input.policy ?? recorded.policy,
      resumed: true,
    };
    const newItemsToPersist: ResponseItem[] = [...resumed.synthesizedItems, userMessage];
    const records: SessionRecord[] = [
      makeRecord("turn_context", turn),
      ...newItemsToPersist.map((item) => responseItemRecord(item)),
    ];
    await writer.append(records);
    return {
      sessionId: resumed.meta.id,
      runId,
      resumed: true,
      location,
      meta: resumed.meta,
      turn,
      history: [...resumed.history, userMessage],
      newItemsToPersist,
      synthesizedItems: resumed.synthesizedItems,
      droppedItems: resumed.droppedItems,
      problems: resumed.problems,
      recordCountBefore: resumed.recordCount,
      writer,
    };
  } catch (error) {
    writer.close();
    throw error;
  }
}
