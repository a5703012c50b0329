/**
 * `deno task serve`: serves the agent route and the session browser on loopback. `POST
 * /api/agent/stream` with `{ message, sessionId? }` streams the turn's events as Server-Sent
 * Events; approvals are answered with `POST /api/agent/approvals/<runId>/<callId>`
 * `{ decision }`; `GET /` lists the sessions and `GET /sessions/<id>` shows one, live.
 *
 * @module
 */
import { ApprovalRegistry } from "../src/runtime/mod.ts";
import { connectModel } from "../src/runtime/mod.ts";
import { createCompactor } from "../src/runtime/mod.ts";
import { createServerHandler } from "../src/server/mod.ts";
import { errorMessage } from "../src/errors/mod.ts";
import { resolveSessionsRoot } from "../src/store/mod.ts";
import { parseFlags, parsePolicy, parsePositiveInt, parseWireApi, UsageError } from "./_args.ts";
import { resumeCommand } from "./_commands.ts";

/** The help text. */
export const HELP = `Usage: ./denow task serve [options]

Serves, on loopback unless --hostname says otherwise:
  POST /api/agent/stream                      {"message": "...", "sessionId"?: "..."}
       streams the turn's events as Server-Sent Events (event: <type>, data: <json>);
       an unknown sessionId streams one run_failed event and creates nothing
  POST /api/agent/approvals/<runId>/<callId>  {"decision": "approve" | "deny"}
       answers an approval_requested event; no answer in time is a denial
  GET  /                                      the sessions, newest first (open it in a browser)
  GET  /sessions/<id | prefix>                a session's page, updated live while a run appends
  GET  /sessions/<id>/events                  the page's Server-Sent Events:
       event: changed, data: {"records": n, "sizeBytes": n} when the session file changes

Options:
      --port <n>               port (default 8787; 0 = any free port)
      --hostname <h>           interface (default 127.0.0.1)
      --sessions-dir <d>       sessions root (default: $TURNLOG_SESSIONS_DIR, else ./sessions)
      --workspace <dir>        the folder the tools work in (default: the current directory)
      --model <name>           as for resume ("scripted" = the embedded model)
      --wire-api <api>         responses (default) or chat
      --policy <p>             policy of new sessions: auto | ask-changes (default) | ask-all
      --approval-timeout <s>   seconds an approval waits before it counts as denied (default 300)
      --compact-threshold <n>  compact a session's history at this many tokens
                               (default: 75% of the model's context window)
  -h, --help                   this help`;

/** Runs the server until Ctrl-C; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let options;
  try {
    const { values, positionals } = parseFlags(argv, {
      help: { type: "boolean", short: "h" },
      port: { type: "string" },
      hostname: { type: "string" },
      "sessions-dir": { type: "string" },
      workspace: { type: "string" },
      model: { type: "string" },
      "wire-api": { type: "string" },
      policy: { type: "string" },
      "approval-timeout": { type: "string" },
      "compact-threshold": { type: "string" },
    });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
    const port = values.port === undefined ? 8787 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`Invalid --port "${values.port}": expected 0 to 65535`);
    }
    options = {
      port,
      hostname: (values.hostname as string | undefined) ?? "127.0.0.1",
      sessionsDir: values["sessions-dir"] as string | undefined,
      workspace: values.workspace as string | undefined,
      model: values.model as string | undefined,
      wireApi: parseWireApi(values["wire-api"] as string | undefined),
      policy: parsePolicy(values.policy as string | undefined),
      timeout: parsePositiveInt(
        "approval-timeout",
        values["approval-timeout"] as string | undefined,
      ) ?? 300,
      compactThreshold: parsePositiveInt(
        "compact-threshold",
        values["compact-threshold"] as string | undefined,
      ),
    };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`error: ${error.message}\nRun ./denow task serve --help for the options.`);
    return 2;
  }

  let connection;
  try {
    connection = await connectModel({ model: options.model });
  } catch (error) {
    console.error(`error: Could not start the model: ${errorMessage(error)}`);
    return 1;
  }
  const stopping = new AbortController();
  const handler = createServerHandler({
    connection,
    wireApi: options.wireApi,
    policy: options.policy,
    sessionsDir: options.sessionsDir,
    workspace: options.workspace,
    approvals: new ApprovalRegistry({ timeoutMs: options.timeout * 1000 }),
    compactor: createCompactor({ threshold: options.compactThreshold }),
    commandFor: resumeCommand,
    signal: stopping.signal,
  });
  const server = Deno.serve({
    hostname: options.hostname,
    port: options.port,
    onListen: ({ hostname, port }) => {
      const base = `http://${hostname}:${port}`;
      console.log(
        `turnlog serving on ${base}  (model ${connection.model}, ${connection.modelProvider})`,
      );
      console.log(`sessions: ${resolveSessionsRoot(options.sessionsDir)}`);
      console.log(`browse the sessions: ${base}/`);
      console.log(
        `try: curl -N -X POST ${base}/api/agent/stream -H 'content-type: application/json' -d '{"message":"list the files"}'`,
      );
    },
  }, handler);
  const stop = () => {
    // Live pages' event streams never end by themselves; the server waits for them.
    stopping.abort();
    server.shutdown();
  };
  Deno.addSignalListener("SIGINT", stop);
  await server.finished;
  Deno.removeSignalListener("SIGINT", stop);
  await connection.close();
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
