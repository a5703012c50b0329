/**
 * One turn as the `resume` CLI runs it: find the session to continue (or fork), connect to the
 * model, run the turn with Ctrl-C as cancellation and a terminal approver, print the events
 * (readable or JSON lines), then the session id, the record counts and the command that
 * continues the session.
 *
 * @module
 */
import { resolve } from "node:path";
import { ERROR_OUTCOMES, TurnlogError } from "../src/errors/mod.ts";
import { DEFAULT_POLICY, forkSession, recordedWorkspaceDoubt } from "../src/resume/mod.ts";
import {
  connectModel,
  createCompactor,
  isTerminalEvent,
  type ModelConnection,
  type RunEvent,
  type RunEventOf,
  runTurn,
  terminalApprover,
} from "../src/runtime/mod.ts";
import { openStore, type SessionStore } from "../src/store/mod.ts";
import { visible, visibleJson } from "../src/text/mod.ts";
import type { ResumeArgs } from "./_args.ts";
import { resumeCommand } from "./_commands.ts";
import { copyOfExample } from "./_examples.ts";
import { colorFor, stdout, type Write } from "./_output.ts";
import { EventPrinter, styles } from "./_render.ts";
import { fail } from "./_voice.ts";

/** Exit codes of the resume CLI. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** What a CLI turn ended with. */
export interface CliTurnResult {
  exitCode: number;
  started: RunEventOf<"run_started"> | undefined;
  terminal: RunEvent | undefined;
  recordsAfter: number | undefined;
}

/**
 * Where the turn goes: a session to continue (its id), or undefined for a new one; and the
 * workspace, when a shipped example is continued as a copy.
 */
async function targetSession(
  args: ResumeArgs,
  store: SessionStore,
  write: Write,
): Promise<{ sessionId: string | undefined; workspace?: string | undefined }> {
  const continued = async (id: string) => {
    const say = args.json ? undefined : write;
    const copy = await copyOfExample(store, id, { workspace: args.workspace, write: say });
    return copy ?? { sessionId: id };
  };
  if (args.last) {
    const newest = await store.newest();
    if (newest !== undefined) return await continued(newest.id);
    throw new TurnlogError("not_found", `No session in ${store.name} to continue (--last)`);
  }
  if (args.fork === undefined) {
    if (args.session === undefined) return { sessionId: undefined };
    return await continued((await store.find(args.session)).id);
  }
  const fork = await forkSession(args.fork, { store, atTurn: args.atTurn });
  const { forkedFrom } = fork.meta;
  if (!args.json) {
    const upTo = forkedFrom?.turn == null
      ? "every turn"
      : `the turns before turn ${forkedFrom.turn}`;
    write(
      `Forked session ${visible(fork.meta.id)} from ${
        visible(forkedFrom?.sessionId ?? "")
      } (${upTo}); the original is unchanged\n`,
    );
  }
  return { sessionId: fork.meta.id };
}

/**
 * The workspace of the turn and why it is that folder: `--workspace`; else, for a session
 * continued, the folder its `session_meta` records, when that folder still exists and is
 * trusted (see {@linkcode recordedWorkspaceDoubt}); else the current directory.
 */
async function workspaceFor(
  args: ResumeArgs,
  store: SessionStore,
  sessionId: string | undefined,
): Promise<{ dir: string | undefined; why: string }> {
  if (args.workspace !== undefined) return { dir: args.workspace, why: "named with --workspace" };
  const here = "the current folder";
  if (sessionId === undefined) return { dir: undefined, why: here };
  const head = await store.head(await store.find(sessionId));
  const meta = head?.record?.type === "session_meta" ? head.record.payload : undefined;
  if (meta === undefined) return { dir: undefined, why: here };
  // Judged by real paths: a recorded folder inside the current one is trusted (see there).
  const real = (path: string) => Deno.realPath(path).catch(() => resolve(path));
  const recorded = { ...meta, cwd: await real(meta.cwd) };
  const untrusted = recordedWorkspaceDoubt(recorded, homeOrUndefined(), await real(Deno.cwd()));
  if (untrusted !== undefined) {
    return {
      dir: undefined,
      why: `${here}: the recorded ${visible(meta.cwd)} ${untrusted}, so the tools work there ` +
        "only when --workspace names it",
    };
  }
  const exists = await Deno.stat(meta.cwd).then((info) => info.isDirectory, () => false);
  return exists
    ? { dir: meta.cwd, why: "the folder the session was recorded in" }
    : { dir: undefined, why: `${here}: the recorded ${visible(meta.cwd)} is not there` };
}

/** `$HOME`, or undefined when it is unset or may not be read. */
function homeOrUndefined(): string | undefined {
  try {
    return Deno.env.get("HOME") || undefined;
  } catch {
    return undefined;
  }
}

/** Ctrl-C cancels the turn; a second Ctrl-C quits at once. Returns how to stop listening. */
function onInterrupt(controller: AbortController): () => void {
  let interrupts = 0;
  const listener = () => {
    interrupts++;
    if (interrupts > 1) Deno.exit(EXIT.cancelled);
    Deno.stderr.writeSync(
      new TextEncoder().encode("\nCancelling the turn (Ctrl-C again to quit at once)…\n"),
    );
    controller.abort();
  };
  Deno.addSignalListener("SIGINT", listener);
  return () => Deno.removeSignalListener("SIGINT", listener);
}

/** Runs the turn, printing its events; returns the run_started and terminal events. */
async function runAndPrint(
  args: ResumeArgs,
  target: { sessionId: string | undefined; store: SessionStore; workspaceWhy: string },
  connection: ModelConnection,
  write: Write,
): Promise<Pick<CliTurnResult, "started" | "terminal">> {
  const { sessionId, store, workspaceWhy } = target;
  const controller = new AbortController();
  const stop = onInterrupt(controller);
  const printer = new EventPrinter({ write, colour: colorFor(write), workspaceWhy });
  let started: RunEventOf<"run_started"> | undefined;
  let terminal: RunEvent | undefined;
  // A resumed turn keeps the session's model unless one was chosen (flag or OPENAI_MODEL).
  const chosen = connection.embedded || args.model !== undefined ||
    Deno.env.get("OPENAI_MODEL") || sessionId === undefined;
  try {
    for await (
      const event of runTurn({
        message: args.message ?? "",
        sessionId,
        store,
        connection,
        model: chosen ? connection.model : undefined,
        wireApi: args.wireApi,
        policy: args.policy,
        workspace: args.workspace,
        approver: terminalApprover(),
        signal: controller.signal,
        maxRounds: args.maxRounds,
        compactor: createCompactor({ threshold: args.compactThreshold }),
      })
    ) {
      if (event.type === "run_started") started = event;
      if (isTerminalEvent(event)) terminal = event;
      if (args.json) write(visibleJson(event) + "\n");
      else if (event.type !== "run_failed" || started) printer.print(event);
    }
  } finally {
    stop();
  }
  return { started, terminal };
}

/** The exit code a turn's end gives. */
function exitCodeOf(terminal: RunEvent | undefined): number {
  if (terminal?.type === "run_failed") return ERROR_OUTCOMES[terminal.errorKind].exitCode;
  if (terminal?.type === "run_cancelled") return EXIT.cancelled;
  return EXIT.ok;
}

/** The lines after the turn: the session, its records, and how to continue it. */
async function summary(
  store: SessionStore,
  started: RunEventOf<"run_started">,
  options: { recordsAfter: number | undefined; colour: boolean },
): Promise<string> {
  const s = styles(options.colour);
  const policy = started.policy.approval === DEFAULT_POLICY.approval
    ? undefined
    : started.policy.approval;
  const command = resumeCommand({
    prefix: await store.shortestUniquePrefix(started.sessionId),
    root: store.name,
    policy,
    message: "your next message",
  });
  return `\n${s.bold("Session")}  ${visible(started.sessionId)}\n` +
    `${s.bold("Records")}  ${started.recordCountBefore} before → ${options.recordsAfter} after  ${
      s.dim(visible(started.sessionPath))
    }\n` +
    `${s.bold("Continue")} ${command}\n`;
}

/**
 * Runs one turn for the CLI and prints it; returns its exit code and what it saw. Errors are
 * printed in the CLI's one voice (`turnlog resume: ...` and a hint), never thrown.
 */
export async function runCliTurn(
  args: ResumeArgs,
  options: { connection?: ModelConnection; write?: Write } = {},
): Promise<CliTurnResult> {
  const write = options.write ?? stdout;
  const result: CliTurnResult = {
    exitCode: EXIT.ok,
    started: undefined,
    terminal: undefined,
    recordsAfter: undefined,
  };
  let store: SessionStore | undefined;
  try {
    store = await openStore({ store: args.store, sessionsDir: args.sessionsDir });
    return await turnOnStore(args, store, { ...options, write, result });
  } catch (error) {
    return { ...result, exitCode: fail("resume", error) };
  } finally {
    await store?.close();
  }
}

/** {@linkcode runCliTurn} on an open store. */
async function turnOnStore(
  args: ResumeArgs,
  store: SessionStore,
  options: { connection?: ModelConnection; write: Write; result: CliTurnResult },
): Promise<CliTurnResult> {
  const { write, result } = options;
  let connection = options.connection;
  try {
    const { sessionId, workspace: example } = await targetSession(args, store, write);
    const workspace = example === undefined || args.workspace !== undefined
      ? await workspaceFor(args, store, sessionId)
      : { dir: example, why: "the example's files, in the sessions folder" };
    args = { ...args, workspace: workspace.dir };
    connection ??= await connectModel({ model: args.model });
    const target = { sessionId, store, workspaceWhy: workspace.why };
    const { started, terminal } = await runAndPrint(args, target, connection, write);
    Object.assign(result, { started, terminal, exitCode: exitCodeOf(terminal) });
    if (terminal?.type === "run_failed" && !started) {
      return {
        ...result,
        exitCode: fail("resume", new TurnlogError(terminal.errorKind, terminal.error)),
      };
    }
  } finally {
    if (options.connection === undefined) await connection?.close();
  }
  if (!result.started) return result;
  // The runtime counts what it appended: no second read of a session that may be large.
  const terminal = result.terminal;
  result.recordsAfter = terminal && "recordCount" in terminal ? terminal.recordCount : undefined;
  if (!args.json) {
    const colour = colorFor(write);
    write(await summary(store, result.started, { recordsAfter: result.recordsAfter, colour }));
  }
  return result;
}
