/**
 * Resume: rebuilds a session's model-visible history from its file (never from memory), and
 * draws the boundary between the full history sent to the model and the few new records
 * appended to the file.
 *
 * @module
 */
import { newId } from "../record/mod.ts";
import {
  type DroppedItem,
  findLastCheckpoint,
  normalizeHistory,
  readRecords,
} from "../history/mod.ts";
import { readLinesBackward } from "../io/mod.ts";
import { type LineProblem, parseRecordLine, SessionFileError } from "../record/mod.ts";
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
} from "../record/mod.ts";
import { replayRecord } from "../history/mod.ts";
import {
  createSession,
  findSession,
  resolveSessionsRoot,
  type SessionLocation,
  SessionWriter,
} from "../store/mod.ts";

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
  /** Number of valid records. */
  recordCount: number;
  /** Lines that are not valid records; resume skips them (`inspect --repair` moves them out). */
  problems: LineProblem[];
  /**
   * Byte offset of the checkpoint replay started from; undefined when replay read the file
   * from its first line.
   */
  replayedFrom: number | undefined;
}

/** Options of {@linkcode loadSession}. */
export interface LoadSessionOptions {
  /** Start at the last compaction checkpoint when it can (the default); false: read every line. */
  fromCheckpoint?: boolean;
  /** Block size of the backward reads, in bytes. */
  blockSize?: number;
}

const TURN_CONTEXT_MARKER = '"turn_context"';

/**
 * Reads a session file and replays it.
 *
 * The short way: the last compaction checkpoint is found by reading the file backward in
 * blocks; replay starts from the history it stores and reads only the records after it. The
 * part before the checkpoint is never read, apart from the `session_meta` at the head and, when
 * no turn started after the checkpoint, the nearest `turn_context` before it (again read
 * backward). The record count comes from the count the checkpoint stores.
 *
 * The long way, from the first line, when there is no checkpoint, when the checkpoint stores no
 * record count, or when a line after it is bad (so every problem gets its exact line number).
 * Either way the replayed history is the same. Bad lines are collected, not thrown; only a file
 * without a `session_meta` first record is an error.
 */
export async function loadSession(
  location: SessionLocation,
  options: LoadSessionOptions = {},
): Promise<LoadedSession> {
  if (options.fromCheckpoint !== false) {
    const found = await findLastCheckpoint(location.path, { blockSize: options.blockSize });
    const recordsBefore = found?.checkpoint.recordsBefore;
    if (found !== undefined && recordsBefore !== undefined) {
      const tail = await loadFromCheckpoint(location, found.start, options.blockSize);
      if (tail !== undefined) return { ...tail, recordCount: recordsBefore + tail.recordCount };
    }
  }
  return await loadFromStart(location);
}

async function loadFromStart(location: SessionLocation): Promise<LoadedSession> {
  let meta: SessionMeta | undefined;
  const replayed: ResponseItem[] = [];
  const problems: LineProblem[] = [];
  let lastTurn: TurnContext | undefined;
  let recordCount = 0;
  for await (const entry of readRecords(location.path)) {
    if (entry.problem) {
      problems.push(entry.problem);
      continue;
    }
    const record = entry.record;
    recordCount++;
    if (meta === undefined) {
      meta = expectMeta(location.path, entry.line, record);
      continue;
    }
    if (record.type === "turn_context") lastTurn = record.payload;
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
  return { location, meta, replayed, lastTurn, recordCount, problems, replayedFrom: undefined };
}

function expectMeta(path: string, line: number, record: SessionRecord): SessionMeta {
  if (record.type !== "session_meta") {
    throw new SessionFileError(
      `${path}:${line}: expected the session_meta record first, found ${record.type}`,
    );
  }
  return record.payload;
}

/**
 * Replays from the checkpoint line at byte `start`; undefined when the long way must be taken
 * (a bad line after the checkpoint, or a head without `session_meta`). `recordCount` counts the
 * records from the checkpoint on.
 */
async function loadFromCheckpoint(
  location: SessionLocation,
  start: number,
  blockSize: number | undefined,
): Promise<LoadedSession | undefined> {
  const path = location.path;
  let meta: SessionMeta | undefined;
  for await (const entry of readRecords(path, { chunkSize: 16 * 1024 })) {
    if (entry.record) meta = expectMeta(path, entry.line, entry.record);
    break;
  }
  if (meta === undefined) return undefined;
  const replayed: ResponseItem[] = [];
  let lastTurn: TurnContext | undefined;
  let recordCount = 0;
  // Line numbers are unknown from here; a bad line sends the caller the long way.
  for await (const entry of readRecords(path, { start, firstLine: 0 })) {
    if (entry.problem) return undefined;
    recordCount++;
    if (entry.record.type === "turn_context") lastTurn = entry.record.payload;
    replayRecord(replayed, entry.record);
  }
  lastTurn ??= await lastTurnContextBefore(path, start, blockSize);
  return { location, meta, replayed, lastTurn, recordCount, problems: [], replayedFrom: start };
}

/** The newest valid `turn_context` that ends before byte `end`, read backward. */
async function lastTurnContextBefore(
  path: string,
  end: number,
  blockSize: number | undefined,
): Promise<TurnContext | undefined> {
  for await (const line of readLinesBackward(path, { end, blockSize, only: TURN_CONTEXT_MARKER })) {
    const { record } = parseRecordLine(path, { ...line, text: line.text, line: 0 });
    if (record?.type === "turn_context") return record.payload;
  }
  return undefined;
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
