/**
 * The start of a run (the seed's initializeAgentSessionForStream): a fresh session, or a
 * continued one locked, re-read and normalized, in whichever store keeps it. It draws the
 * boundary between the full history sent to the model and the few new records appended.
 *
 * @module
 */
import type { DroppedItem } from "../history/mod.ts";
import {
  type FunctionCallOutputItem,
  type LineProblem,
  makeRecord,
  newId,
  type Policy,
  type ResponseItem,
  responseItemRecord,
  type SessionMeta,
  type TurnContext,
  type WireApi,
} from "../record/mod.ts";
import {
  appendAtCommitPoint,
  type CommitHook,
  createSession,
  FileStore,
  type SessionLocation,
  type SessionStore,
  type StoreWriter,
} from "../store/mod.ts";
import { loadSession } from "./_load.ts";
import { normalizeLoaded } from "./_loaded.ts";
import { type HeldPolicy, policyForContinued } from "./_policy.ts";

/** The policy of a fresh session when none is given: ask before changing anything. */
export const DEFAULT_POLICY: Policy = { approval: "ask-changes" };

/** What a run asks of the session it starts or continues. */
export interface RunSessionInput {
  /** The user's message for this turn. */
  message: string;
  /** Continue this session (id or unique prefix); absent: start a fresh one. */
  sessionId?: string | undefined;
  /** Sessions root of the file store; absent: `TURNLOG_SESSIONS_DIR`, else `./sessions`. */
  root?: string | undefined;
  /** The store that keeps the session; absent: the file store at `root`. */
  store?: SessionStore | undefined;
  /** The system message of a fresh session. */
  systemPrompt: string;
  /** The workspace folder, recorded in a new session's `session_meta`. */
  cwd: string;
  /** Who serves the model: "embedded", "openai" or a host. */
  modelProvider: string;
  /** The model; absent on resume: the one the session last used. */
  model?: string | undefined;
  /** The wire API; absent on resume: the one the session last used. */
  wireApi?: WireApi | undefined;
  /**
   * An explicit policy; absent on resume: the recorded one, never a silent escalation, and
   * never looser than the default for a session imported or recorded in another folder.
   */
  policy?: Policy | undefined;
  /** The run id; absent: a new UUIDv7. */
  runId?: string | undefined;
  /** Told before and after the turn's start is appended (fault injection, observability). */
  onCommit?: CommitHook | undefined;
}

/** The session a run works on, locked for it. */
export interface RunSession {
  /** The session id (stable across runs). */
  sessionId: string;
  /** This run's id (new every turn). */
  runId: string;
  /** True when the run continues a session. */
  resumed: boolean;
  /** Where the session is. */
  location: SessionLocation;
  /** The session's `session_meta`. */
  meta: SessionMeta;
  /** The turn context written for this run: its model, wire API and policy. */
  turn: TurnContext;
  /** The full history to send to the model. */
  history: ResponseItem[];
  /** Only what this run appended for the history: synthesized outputs and the user message. */
  newItemsToPersist: ResponseItem[];
  /** Outputs synthesized for calls a crash left without one (appended). */
  synthesizedItems: FunctionCallOutputItem[];
  /** Outputs left out of the history because their call is missing. */
  droppedItems: DroppedItem[];
  /** Lines of the file that are not valid records (skipped). */
  problems: LineProblem[];
  /** Valid records in the file before this run appended anything. */
  recordCountBefore: number;
  /** The locked writer; the run appends through it and closes it at the end. */
  writer: StoreWriter;
  /** The recorded policy this run does not get, and why (see `policyForContinued`). */
  heldPolicy?: HeldPolicy | undefined;
}

async function startFresh(
  input: RunSessionInput,
  store: SessionStore,
  runId: string,
): Promise<RunSession> {
  const turn: TurnContext = {
    runId,
    model: input.model ?? "unknown",
    wireApi: input.wireApi ?? "responses",
    policy: input.policy ?? DEFAULT_POLICY,
    resumed: false,
  };
  const { writer, meta, location } = await createSession(store, {
    id: runId,
    cwd: input.cwd,
    modelProvider: input.modelProvider,
    model: turn.model,
    wireApi: turn.wireApi,
    policy: turn.policy,
  });
  const items: ResponseItem[] = [
    { type: "message", role: "system", content: input.systemPrompt },
    { type: "message", role: "user", content: input.message },
  ];
  try {
    await appendAtCommitPoint(writer, "turn_start", {
      records: [makeRecord("turn_context", turn), ...items.map((item) => responseItemRecord(item))],
      onCommit: input.onCommit,
    });
  } catch (error) {
    await writer.close();
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

async function continueSession(
  input: RunSessionInput & { sessionId: string },
  store: SessionStore,
  runId: string,
): Promise<RunSession> {
  const location = await store.find(input.sessionId);
  // The lock comes before the read, so no other run can append between the two; the file is
  // changed (a torn tail sealed) only once the read has accepted it.
  const writer = await store.lock(location, { seal: false });
  try {
    const resumed = normalizeLoaded(await loadSession(location, { store }));
    await writer.seal();
    const recorded = resumed.lastTurn ??
      { ...resumed.meta, runId: resumed.meta.id, resumed: false };
    const { policy, held } = input.policy === undefined
      ? policyForContinued(recorded.policy, resumed.meta, {
        workspace: input.cwd,
        fallback: DEFAULT_POLICY,
      })
      : { policy: input.policy, held: undefined };
    const turn: TurnContext = {
      runId,
      model: input.model ?? recorded.model,
      wireApi: input.wireApi ?? recorded.wireApi,
      policy,
      resumed: true,
    };
    const userMessage: ResponseItem = { type: "message", role: "user", content: input.message };
    const newItemsToPersist: ResponseItem[] = [...resumed.synthesizedItems, userMessage];
    await appendAtCommitPoint(writer, "turn_start", {
      records: [
        makeRecord("turn_context", turn),
        ...newItemsToPersist.map((item) => responseItemRecord(item)),
      ],
      onCommit: input.onCommit,
    });
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
      ...(held === undefined ? {} : { heldPolicy: held }),
    };
  } catch (error) {
    await writer.close();
    throw error;
  }
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
export function initializeSessionForRun(input: RunSessionInput): Promise<RunSession> {
  const store = input.store ?? new FileStore(input.root);
  const runId = input.runId ?? newId();
  const { sessionId } = input;
  return sessionId === undefined
    ? startFresh(input, store, runId)
    : continueSession({ ...input, sessionId }, store, runId);
}
