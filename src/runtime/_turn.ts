/**
 * One turn of the agent: start or continue a session, send the whole history to the model,
 * run the tool calls it asks for (asking for approval where the policy says so), send the
 * results back, until the model answers without tool calls or the round limit is reached.
 * Everything that happens comes out as typed events; every failure becomes a `run_failed`
 * event, never a rejection.
 *
 * Commit order is what makes a crash repairable: the assistant's message and its tool calls
 * are appended before any tool runs, and each output right after its tool finishes, so a
 * process killed mid-tool leaves exactly one call without an output, which resume repairs.
 *
 * @module
 */
import { errorKind, errorMessage, outcomeOf, TurnlogError } from "../errors/mod.ts";
import type { Policy, WireApi } from "../record/mod.ts";
import { initializeSessionForRun, type RunSession } from "../resume/mod.ts";
import type { CommitHook } from "../store/mod.ts";
import { ToolSet } from "../tools/mod.ts";
import { ActiveTurn, type TurnSettings } from "./_active_turn.ts";
import { type Approver, denyingApprover } from "./_approvals.ts";
import type { Compactor } from "./_compactor.ts";
import type { ModelConnection } from "./_connect.ts";
import type { RunEvent } from "./_events.ts";
import { modelRound } from "./_round.ts";
import { toolCall } from "./_tool_step.ts";
import type { SessionStore } from "../store/mod.ts";

/** How many model rounds a turn may take before it ends on its own. */
export const DEFAULT_MAX_ROUNDS = 8;

/**
 * The characters of history one request may carry: more than any model's context window
 * holds (32 Mi characters, some 8 million tokens), far less than the engine's longest string.
 */
export const MAX_REQUEST_CHARS = 32 * 1024 * 1024;

/** The system message of a fresh session. */
export const DEFAULT_SYSTEM_PROMPT: string =
  "You are a careful assistant working in the user's workspace folder through tools: " +
  "list_dir, read_file, search_text, write_file (changes a file; may need the user's " +
  "approval) and slow_task (a long-running job). Paths are relative to the workspace. " +
  "Use the tools to find facts instead of guessing, and answer briefly. When a call is " +
  "denied, do not retry it.";

/** What a turn needs. */
export interface RunTurnOptions {
  /** The user's message. */
  message: string;
  /** The model endpoint (OpenAI, a compatible server or the embedded model). */
  connection: ModelConnection;
  /** Continue this session (id or unique prefix); absent: start a new one. */
  sessionId?: string | undefined;
  /** Sessions root; absent: `TURNLOG_SESSIONS_DIR`, else `./sessions`. */
  sessionsDir?: string | undefined;
  /** The store that keeps the session (see `openStore`); absent: the file store at `sessionsDir`. */
  store?: SessionStore | undefined;
  /** The model; absent: the one the session last used, or the connection's for a new one. */
  model?: string | undefined;
  /** Absent: the session's recorded one on resume, else "responses". */
  wireApi?: WireApi | undefined;
  /** Absent: the session's recorded policy on resume, else "ask-changes". */
  policy?: Policy | undefined;
  /** The tools; absent: the workspace tools over `workspace`. */
  tools?: ToolSet | undefined;
  /** The workspace folder of the default tools; absent: the current directory. */
  workspace?: string | undefined;
  /**
   * The folder a new session records as its `cwd`; absent: the workspace's absolute path. A
   * notebook or fixture that works in a temp folder passes a fixed one, so that its session
   * file is the same bytes wherever and however often it runs.
   */
  recordedCwd?: string | undefined;
  /** Decides calls that need approval; absent: every such call is denied. */
  approver?: Approver | undefined;
  /** Cancels the turn: the tool in flight is aborted and the run ends as cancelled. */
  signal?: AbortSignal | undefined;
  /** Model rounds before the turn ends on its own; default {@linkcode DEFAULT_MAX_ROUNDS}. */
  maxRounds?: number | undefined;
  /** The system message of a new session; default {@linkcode DEFAULT_SYSTEM_PROMPT}. */
  systemPrompt?: string | undefined;
  /** Context compaction, checked at the start of a resumed turn and after every round. */
  compactor?: Compactor | undefined;
  /**
   * The characters of history a request may carry ({@linkcode MAX_REQUEST_CHARS}): a longer
   * history that compaction did not shrink ends the turn before the request, saying so.
   */
  maxRequestChars?: number | undefined;
  /** The run id; absent: a new UUIDv7. */
  runId?: string | undefined;
  /**
   * Told before and after each append to the session file, with the commit point and the
   * records (fault injection stops the process at one; observability watches them). The turn
   * waits for it; an error it throws fails the turn like a failed write.
   */
  onCommit?: CommitHook | undefined;
}

class Cancelled extends TurnlogError {
  constructor() {
    super("cancelled", "The run was cancelled");
    this.name = "Cancelled";
  }
}

/** The workspace folder `where` could not be opened: a workspace error saying why. */
function workspaceError(where: string, error: unknown): TurnlogError {
  // A refusal already names the folder and why.
  if (error instanceof TurnlogError && error.kind === "workspace") return error;
  const message = error instanceof Deno.errors.NotFound
    ? `Workspace folder not found: ${where}`
    : `Cannot open the workspace ${where}: ${errorMessage(error)}`;
  return new TurnlogError("workspace", message, { cause: error });
}

/** The `run_failed` of a run that ended before it started, its kinds from the error table. */
function failedBeforeStart(error: unknown): RunEvent {
  return {
    type: "run_failed",
    kind: outcomeOf(error).failure,
    errorKind: errorKind(error),
    error: errorMessage(error),
  };
}

/**
 * Runs one turn and yields its events, ending with exactly one of `run_succeeded`,
 * `run_failed` or `run_cancelled`. It never throws; a session that cannot be opened (unknown
 * id, in use) yields only `run_failed` and creates nothing.
 *
 * @example
 * ```ts ignore
 * await using connection = await connectModel({ model: "scripted" });
 * for await (const event of runTurn({ message: "list the files", connection })) {
 *   console.log(event.type);
 * }
 * ```
 */
export async function* runTurn(options: RunTurnOptions): AsyncGenerator<RunEvent> {
  const where = options.workspace ?? Deno.cwd();
  let tools: ToolSet;
  try {
    tools = options.tools ?? await ToolSet.open(where);
  } catch (error) {
    yield failedBeforeStart(workspaceError(where, error));
    return;
  }
  let session: RunSession;
  try {
    session = await initializeSessionForRun({
      message: options.message,
      sessionId: options.sessionId,
      root: options.sessionsDir,
      store: options.store,
      systemPrompt: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
      cwd: options.recordedCwd ?? tools.workspace.root,
      modelProvider: options.connection.modelProvider,
      model: options.model ??
        (options.sessionId === undefined ? options.connection.model : undefined),
      wireApi: options.wireApi,
      policy: options.policy,
      runId: options.runId,
      onCommit: options.onCommit,
    });
  } catch (error) {
    yield failedBeforeStart(error);
    return;
  }
  const settings: TurnSettings = {
    connection: options.connection,
    tools,
    approver: options.approver ?? denyingApprover("no approver is configured for this run"),
    compactor: options.compactor,
    maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS,
    maxRequestChars: options.maxRequestChars ?? MAX_REQUEST_CHARS,
    signal: options.signal ?? new AbortController().signal,
    onCommit: options.onCommit,
  };
  yield* driveTurn(new ActiveTurn(session, settings));
}

function* opening(turn: ActiveTurn): Generator<RunEvent> {
  const { session } = turn;
  yield {
    type: "run_started",
    runId: session.runId,
    sessionId: session.sessionId,
    resumed: session.resumed,
    policy: session.turn.policy,
    model: session.turn.model,
    modelProvider: turn.settings.connection.modelProvider,
    wireApi: session.turn.wireApi,
    endpoint: turn.settings.connection.baseURL,
    workspace: turn.settings.tools.workspace.root,
    sessionPath: session.location.path,
    recordCountBefore: session.recordCountBefore,
    ...(session.resumed && session.meta.cwd !== turn.settings.tools.workspace.root
      ? { recordedCwd: session.meta.cwd }
      : {}),
    ...(session.heldPolicy === undefined ? {} : { heldPolicy: session.heldPolicy }),
  };
  if (session.problems.length > 0) {
    yield {
      type: "lines_skipped",
      problems: session.problems.map(({ line, kind, message }) => ({ line, kind, message })),
    };
  }
  if (session.synthesizedItems.length === 0 && session.droppedItems.length === 0) return;
  yield {
    type: "session_repaired",
    synthesized: session.synthesizedItems.length,
    callIds: session.synthesizedItems.map((item) => item.callId),
    outputs: session.synthesizedItems.map(({ callId, toolName, output }) => ({
      callId,
      toolName,
      output,
    })),
    dropped: session.droppedItems.length,
  };
}

/** The rounds of a turn; returns whether the round limit ended it. */
async function* rounds(turn: ActiveTurn): AsyncGenerator<RunEvent, boolean> {
  const { signal, maxRounds } = turn.settings;
  while (true) {
    if (signal.aborted) throw new Cancelled();
    if (turn.rounds >= maxRounds) return true;
    const calls = yield* modelRound(turn);
    for (const call of calls) yield* toolCall(turn, call);
    if (calls.length > 0 && signal.aborted) throw new Cancelled();
    yield* turn.compaction("after_round");
    if (calls.length === 0) return false;
  }
}

async function* driveTurn(turn: ActiveTurn): AsyncGenerator<RunEvent> {
  const { runId, sessionId } = turn.session;
  try {
    yield* opening(turn);
    if (turn.session.resumed) yield* turn.compaction("turn_start");
    const roundLimitReached = yield* rounds(turn);
    await turn.finish("succeeded");
    yield {
      type: "run_succeeded",
      runId,
      sessionId,
      rounds: turn.rounds,
      usage: turn.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      answer: turn.answer,
      roundLimitReached,
      recordCount: turn.recordCount(),
    };
  } catch (error) {
    yield* failure(turn, error);
  } finally {
    // A consumer that stopped reading early leaves the turn here without an end of its own.
    await turn.abandon().catch(() => {});
    await turn.session.writer.close();
  }
}

async function* failure(turn: ActiveTurn, error: unknown): AsyncGenerator<RunEvent> {
  const { runId, sessionId } = turn.session;
  if (turn.settings.signal.aborted) {
    await turn.finish("cancelled").catch(() => {});
    yield {
      type: "run_cancelled",
      runId,
      sessionId,
      rounds: turn.rounds,
      recordCount: turn.recordCount(),
    };
    return;
  }
  const text = errorMessage(error);
  await turn.finish("failed", text).catch(() => {});
  yield {
    type: "run_failed",
    runId,
    sessionId,
    kind: outcomeOf(error).failure,
    errorKind: errorKind(error),
    error: text,
    recordCount: turn.recordCount(),
  };
}
