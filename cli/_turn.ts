/**
 * One turn as the `resume` CLI runs it: connect to the model, run the turn with Ctrl-C as
 * cancellation and a terminal approver, print the events (readable or JSON lines), then the
 * session id, the record counts and the command that continues the session.
 *
 * @module
 */
import { terminalApprover } from "../src/runtime/mod.ts";
import { resolveSessionsRoot, shortestUniquePrefix, walkSessions } from "../src/store/mod.ts";
import { connectModel, type ModelConnection } from "../src/runtime/mod.ts";
import { isTerminalEvent, type RunEvent, type RunEventOf } from "../src/runtime/mod.ts";
import { runTurn } from "../src/runtime/mod.ts";
import { createCompactor } from "../src/runtime/mod.ts";
import { errorMessage } from "../src/errors/mod.ts";
import type { ResumeArgs } from "./_args.ts";
import { stderr, stdout } from "./_output.ts";
import { resumeCommand } from "./_commands.ts";
import { EventPrinter, styles } from "./_render.ts";
import { colorEnabled } from "../src/text/mod.ts";

/** Exit codes of the resume CLI. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 130 } as const;

/** What a CLI turn ended with. */
export interface CliTurnResult {
  exitCode: number;
  started: RunEventOf<"run_started"> | undefined;
  terminal: RunEvent | undefined;
  recordsAfter: number | undefined;
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
  const write = options.write ?? stdout;
  const writeError = options.writeError ?? stderr;
  const s = styles(options.write ? false : colorEnabled());
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
    writeError(`error: Could not start the model: ${errorMessage(error)}\n`);
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
  const printer = new EventPrinter({ write, colour: options.write ? false : colorEnabled() });
  try {
    // A resumed turn keeps the session's model unless one was chosen (flag or OPENAI_MODEL).
    const chosenModel = connection.embedded || args.model !== undefined ||
      Deno.env.get("OPENAI_MODEL") || sessionId === undefined;
    for await (
      const event of runTurn({
        message: args.message ?? "",
        sessionId,
        sessionsDir: args.sessionsDir,
        connection,
        model: chosenModel ? connection.model : undefined,
        wireApi: args.wireApi,
        policy: args.policy,
        workspace: args.workspace,
        approver: terminalApprover(),
        signal: controller.signal,
        maxRounds: args.maxRounds,
        compactor: createCompactor({ threshold: args.compactThreshold }),
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
    // The runtime counts what it appended: no second read of a file that may be large.
    const terminal = result.terminal;
    result.recordsAfter = terminal !== undefined && "recordCount" in terminal
      ? terminal.recordCount
      : undefined;
    if (!args.json) {
      const command = resumeCommand({
        prefix: await shortestUniquePrefix(root, result.started.sessionId),
        root,
        workspace: args.workspace,
        message: "your next message",
      });
      write(
        `\n${s.bold("Session")}  ${result.started.sessionId}\n` +
          `${
            s.bold("Records")
          }  ${result.started.recordCountBefore} before → ${result.recordsAfter} after  ${
            s.dim(result.started.sessionPath)
          }\n` +
          `${s.bold("Continue")} ${command}\n`,
      );
    }
  }
  return result;
}
