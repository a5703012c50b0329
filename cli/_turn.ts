/**
 * One turn as the `resume` CLI runs it: connect to the model, run the turn with Ctrl-C as
 * cancellation and a terminal approver, print the events (readable or JSON lines), then the
 * session id, the record counts and the command that continues the session.
 *
 * @module
 */
import { terminalApprover } from "../src/approvals.ts";
import { readRecords } from "../src/reader.ts";
import { findSession, resolveSessionsRoot, walkSessions } from "../src/store.ts";
import { connectModel, type ModelConnection } from "../src/runtime/config.ts";
import { isTerminalEvent, type RunEvent, type RunEventOf } from "../src/runtime/events.ts";
import { describeError, runTurn } from "../src/runtime/turn.ts";
import type { ResumeArgs } from "./_args.ts";
import { colourEnabled, EventPrinter, styles } from "./_render.ts";

/** Exit codes of the resume CLI. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** What a CLI turn ended with. */
export interface CliTurnResult {
  exitCode: number;
  started: RunEventOf<"run_started"> | undefined;
  terminal: RunEvent | undefined;
  recordsAfter: number | undefined;
}

/** Counts the valid records of a session file, streaming. */
export async function countRecords(path: string): Promise<number> {
  let count = 0;
  for await (const entry of readRecords(path)) if (entry.record) count++;
  return count;
}

/** The shortest id prefix (8, 13, 18 or 23 characters, else the id) that finds only `id`. */
export async function shortPrefix(root: string, id: string): Promise<string> {
  for (const length of [8, 13, 18, 23]) {
    const prefix = id.slice(0, length);
    try {
      if ((await findSession(root, prefix)).id === id) return prefix;
    } catch {
      // Ambiguous at this length: try a longer one.
    }
  }
  return id;
}

function quoteArg(arg: string): string {
  return /^[\w./:@=-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Runs one turn for the CLI and prints it; never throws. */
export async function runCliTurn(
  args: ResumeArgs,
  options: {
    connection?: ModelConnection;
    write?: (text: string) => void;
    writeError?: (text: string) => void;
  } = {},
): Promise<CliTurnResult> {
  const encoder = new TextEncoder();
  const write = options.write ?? ((text: string) => Deno.stdout.writeSync(encoder.encode(text)));
  const writeError = options.writeError ??
    ((text: string) => Deno.stderr.writeSync(encoder.encode(text)));
  const s = styles(options.write ? false : colourEnabled());
  const result: CliTurnResult = {
    exitCode: EXIT.ok,
    started: undefined,
    terminal: undefined,
    recordsAfter: undefined,
  };
  const root = resolveSessionsRoot(args.sessionsDir);

  let sessionId = args.session;
  if (args.last) {
    for await (const location of walkSessions(root)) {
      sessionId = location.id;
      break;
    }
    if (sessionId === undefined) {
      writeError(`error: No session in ${root} to continue (--last)\n`);
      return { ...result, exitCode: EXIT.usage };
    }
  }

  let connection = options.connection;
  const ownConnection = connection === undefined;
  try {
    connection ??= await connectModel({ model: args.model });
  } catch (error) {
    writeError(`error: Could not start the model: ${describeError(error)}\n`);
    return { ...result, exitCode: EXIT.failed };
  }

  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) Deno.exit(EXIT.cancelled);
    writeError("\nCancelling the turn (Ctrl-C again to quit at once)…\n");
    controller.abort();
  };
  Deno.addSignalListener("SIGINT", onInterrupt);
  const printer = new EventPrinter({ write, colour: options.write ? false : colourEnabled() });
  try {
    // A resumed turn keeps the session's model unless one was chosen (flag or OPENAI_MODEL).
    const chosenModel = connection.embedded || args.model !== undefined ||
      Deno.env.get("OPENAI_MODEL") || sessionId === undefined;
    for await (
      const event of runTurn({
        message: args.message ?? "",
        sessionId,
        sessionsDir: args.sessionsDir,
        client: connection.client,
        model: chosenModel ? connection.model : undefined,
        modelProvider: connection.modelProvider,
        wireApi: args.wireApi,
        policy: args.policy,
        workspace: args.workspace,
        approver: terminalApprover(),
        signal: controller.signal,
        maxRounds: args.maxRounds,
      })
    ) {
      if (args.json) write(JSON.stringify(event) + "\n");
      else if (event.type === "run_failed" && !result.started) {
        writeError(`error: ${event.error}\n`);
      } else printer.print(event);
      if (event.type === "run_started") result.started = event;
      if (isTerminalEvent(event)) result.terminal = event;
    }
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
    if (ownConnection) await connection.close();
  }

  const terminal = result.terminal;
  if (terminal?.type === "run_failed") {
    result.exitCode = terminal.kind === "session" || terminal.kind === "workspace"
      ? EXIT.usage
      : EXIT.failed;
  } else if (terminal?.type === "run_cancelled") {
    result.exitCode = EXIT.cancelled;
  }
  if (result.started) {
    result.recordsAfter = await countRecords(result.started.sessionPath);
    if (!args.json) {
      const prefix = await shortPrefix(root, result.started.sessionId);
      const extra = [
        ...(args.sessionsDir ? ["--sessions-dir", args.sessionsDir] : []),
        ...(args.workspace ? ["--workspace", args.workspace] : []),
      ].map(quoteArg).join(" ");
      write(
        `\n${s.bold("Session")}  ${result.started.sessionId}\n` +
          `${
            s.bold("Records")
          }  ${result.started.recordCountBefore} before → ${result.recordsAfter} after  ${
            s.dim(result.started.sessionPath)
          }\n` +
          `${s.bold("Continue")} ./denow task resume --session ${prefix}${
            extra ? " " + extra : ""
          } "your next message"\n`,
      );
    }
  }
  return result;
}
