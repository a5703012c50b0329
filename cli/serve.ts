/**
 * `./denow task serve`: serves the agent route and the session browser on loopback. `POST
 * /api/agent/stream` with `{ message, sessionId? }` streams the turn's events as Server-Sent
 * Events; approvals are answered with `POST /api/agent/approvals/<runId>/<callId>`
 * `{ decision }`; `GET /` lists the sessions and `GET /sessions/<id>` shows one, live.
 *
 * @module
 */
import {
  ApprovalRegistry,
  connectModel,
  createCompactor,
  type ModelConnection,
} from "../src/runtime/mod.ts";
import type { Policy, WireApi } from "../src/record/mod.ts";
import { ADAPTERS, foreignRootOf } from "../src/formats/mod.ts";
import {
  type BrowseHome,
  browseHomes,
  catalogSourcesOf,
  createServerHandler,
  homeStartLine,
  parseHost,
} from "../src/server/mod.ts";
import { serveHttp } from "../src/http/mod.ts";
import { openStore, type SessionStore } from "../src/store/mod.ts";
import { parseFlags, parsePolicy, parsePositiveInt, parseWireApi, UsageError } from "./_args.ts";
import { EXIT_CODES_HELP, fail } from "./_voice.ts";
import { DEFAULT_SESSIONS_WORDS, docsPage, resumeCommand, TASK } from "./_commands.ts";
import { HOME_FLAGS } from "./_homes.ts";
import { archivedViews } from "../src/archive/mod.ts";
import { runAsProcess } from "./_output.ts";
import { openCatalog, updateCatalogOf } from "./_catalog.ts";
import type { Catalog } from "../src/catalog/mod.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} serve [options]

Serves, on loopback unless --hostname says otherwise, only requests whose Host it serves,
and a POST only as application/json from its own origin or a client that names none${
  docsPage("docs/serving.md", " (docs/serving.md)")
};
a refused request is a 403 with one line saying why:
  POST /api/agent/stream                      {"message": "...", "sessionId"?: "..."}
       streams the turn's events as Server-Sent Events (event: <type>, data: <json>);
       an unknown sessionId streams one run_failed event and creates nothing; the
       response's turnlog-approval-token header answers the run's approvals
  POST /api/agent/approvals/<runId>/<callId>  {"decision": "approve" | "deny"}
       with the header turnlog-approval-token: <the stream's token>
       answers an approval_requested event; no answer in time is a denial
  GET  /                                      the sessions of turnlog's store and of the other
                                              tools' homes, newest first, by project, a page at
                                              a time (open it in a browser)
  GET  /search?q=<words | "a phrase">         the sessions that hold them (as the search command)
  GET  /sessions/<id | prefix>                a session's page, of any tool, updated live while
                                              a run (or the tool) appends
  GET  /sessions/<id>/events                  the page's Server-Sent Events:
       event: changed, data: {"records": n, "sizeBytes": n} when the session file changes

Options:
      --port <n>               port (default 8787; 0 = any free port)
      --hostname <h>           interface (default 127.0.0.1); a name or address other than
                               0.0.0.0 or :: is also served as a Host
      --allow-host <name>      also answer requests whose Host is <name> (any port) or
                               <name:port>, as behind a proxy; repeat for more. Without it
                               only 127.0.0.1, localhost and [::1] on serve's port are
                               answered${docsPage("docs/serving.md", " (see docs/serving.md)")}
      --sessions-dir <d>       sessions root (default: $TURNLOG_SESSIONS_DIR, else ${DEFAULT_SESSIONS_WORDS});
                               another tool's root or home is the one home browsed beside
                               turnlog's store
${
  ADAPTERS.map((adapter) =>
    `      ${
      `--${adapter.flag}`.padEnd(23)
    }  browse ${adapter.shortTool}'s home, its sessions only read:\n` +
    `${" ".repeat(31)}${adapter.home.described}`
  ).join("\n")
}
      --no-catalog             list and search the sessions from their files as they are
                               asked for, not from the catalog (TURNLOG_CATALOG moves it)
      --store-only             browse turnlog's store only (without it or a home flag, every
                               home is browsed beside the store)
      --store <s>              where sessions are kept: postgres://user:password@host:port/db
                               (one database for every instance) or a sessions folder
                               (default: $TURNLOG_STORE, else the sessions root)
      --workspace <dir>        the folder the tools work in (default: the current directory)
      --model <name>           as for resume ("scripted" = the embedded model)
      --wire-api <api>         responses (default) or chat
      --policy <p>             policy of new sessions: auto | ask-changes (default) | ask-all
      --headers-timeout <s>    seconds a connection has to send its request headers before
                               it is closed (default 10)
      --approval-timeout <s>   seconds an approval waits before it counts as denied (default 300)
      --compact-threshold <n>  compact a session's history at this many tokens
                               (default: 75% of the model's context window)
      --max-message-chars <n>  the longest message a turn takes (default 1000000); a
                               longer one (or a larger body) is refused with 413
  -h, --help                   this help

${EXIT_CODES_HELP}`;

/** What `serve` was asked to do. */
interface ServeArgs {
  help: boolean;
  port: number;
  hostname: string;
  allowedHosts: string[];
  sessionsDir: string | undefined;
  store: string | undefined;
  workspace: string | undefined;
  model: string | undefined;
  wireApi: WireApi | undefined;
  policy: Policy | undefined;
  timeout: number;
  headersTimeout: number;
  compactThreshold: number | undefined;
  maxMessageChars: number | undefined;
  /** The home flags given (`codex`, `claude`). */
  homeFlags: string[];
  storeOnly: boolean;
  noCatalog: boolean;
}

function parseServeArgs(argv: string[]): ServeArgs {
  const { values, positionals } = parseFlags(argv, {
    help: { type: "boolean", short: "h" },
    port: { type: "string" },
    hostname: { type: "string" },
    "allow-host": { type: "string", multiple: true },
    "sessions-dir": { type: "string" },
    store: { type: "string" },
    workspace: { type: "string" },
    model: { type: "string" },
    "wire-api": { type: "string" },
    policy: { type: "string" },
    "approval-timeout": { type: "string" },
    "headers-timeout": { type: "string" },
    "compact-threshold": { type: "string" },
    "max-message-chars": { type: "string" },
    "store-only": { type: "boolean" },
    "no-catalog": { type: "boolean" },
    ...HOME_FLAGS,
  });
  if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
  const port = values.port === undefined ? 8787 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`Invalid --port "${values.port}": expected 0 to 65535`);
  }
  return {
    help: values.help === true,
    port,
    hostname: values.hostname ?? "127.0.0.1",
    allowedHosts: allowedHosts(values["allow-host"] ?? [], values.hostname),
    sessionsDir: values["sessions-dir"],
    store: values.store,
    workspace: values.workspace,
    model: values.model,
    wireApi: parseWireApi(values["wire-api"]),
    policy: parsePolicy(values.policy),
    timeout: parsePositiveInt("approval-timeout", values["approval-timeout"]) ?? 300,
    headersTimeout: parsePositiveInt("headers-timeout", values["headers-timeout"]) ?? 10,
    compactThreshold: parsePositiveInt("compact-threshold", values["compact-threshold"]),
    maxMessageChars: parsePositiveInt("max-message-chars", values["max-message-chars"]),
    homeFlags: ADAPTERS.map((a) => a.flag).filter((flag) =>
      (values as Record<string, unknown>)[flag] === true
    ),
    storeOnly: values["store-only"] === true,
    noCatalog: values["no-catalog"] === true,
  };
}

/**
 * The homes serve browses, and the sessions folder left for the store: a `--sessions-dir`
 * that is another tool's root is that home alone; else the homes the flags name, every home
 * without one, none with `--store-only`.
 */
async function homesOf(
  args: ServeArgs,
): Promise<{ homes: BrowseHome[]; sessionsDir: string | undefined }> {
  if (args.storeOnly && args.homeFlags.length > 0) {
    throw new UsageError(`--store-only and --${args.homeFlags[0]} do not go together`);
  }
  if (args.sessionsDir !== undefined) {
    const home = await foreignRootOf(args.sessionsDir);
    if (home) return { homes: [home], sessionsDir: undefined };
  }
  const homes = args.storeOnly ? [] : browseHomes(Deno.env, args.homeFlags);
  // The other tools' sessions only in the archive are browsed as one more home each.
  for (const view of args.storeOnly ? [] : await archivedViews()) {
    const adapter = ADAPTERS.find((known) => known.name === view.format);
    const browsed = homes.some((home) => home.adapter === adapter);
    if (adapter && (args.homeFlags.length === 0 || browsed)) {
      homes.push({ adapter, root: view.root, archived: true });
    }
  }
  return { homes, sessionsDir: args.sessionsDir };
}

/** The `--allow-host` values, checked, and the `--hostname` when it names one interface. */
function allowedHosts(values: string[], hostname: string | undefined): string[] {
  for (const value of values) {
    if (parseHost(value) === undefined) {
      throw new UsageError(
        `Invalid --allow-host "${value}": expected a host name or address, optionally with :port`,
      );
    }
  }
  if (hostname === undefined || ["0.0.0.0", "::", "[::]"].includes(hostname)) return values;
  return [
    ...values,
    hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname,
  ];
}

/** Serves until Ctrl-C. */
async function serve(
  args: ServeArgs,
  connection: ModelConnection,
  store: SessionStore,
  homes: readonly BrowseHome[],
  catalog: Catalog | undefined,
): Promise<void> {
  const stopping = new AbortController();
  const handlerOn = (port: number) =>
    createServerHandler({
      port,
      allowedHosts: args.allowedHosts,
      connection,
      wireApi: args.wireApi,
      policy: args.policy,
      store,
      workspace: args.workspace,
      approvals: new ApprovalRegistry({ timeoutMs: args.timeout * 1000 }),
      compactor: createCompactor({ threshold: args.compactThreshold }),
      maxMessageChars: args.maxMessageChars,
      commandFor: resumeCommand,
      signal: stopping.signal,
      homes,
      catalog,
      readInBackground: catalog === undefined,
    });
  let handler: ((request: Request) => Promise<Response>) | undefined;
  const server = await serveHttp({
    hostname: args.hostname,
    port: args.port,
    headersTimeoutMs: args.headersTimeout * 1000,
    onListen: ({ hostname, port }) => {
      // The handler must know the port it was given (0: any free one) to check Hosts.
      handler = handlerOn(port);
      const base = `http://${hostname}:${port}`;
      console.log(
        `turnlog serving on ${base}  (model ${connection.model}, ${connection.modelProvider}, ${connection.baseURL})`,
      );
      console.log(`sessions: ${store.name}`);
      for (const home of homes) {
        console.log(homeStartLine(home, Deno.env));
      }
      console.log(`browse the sessions: ${base}/`);
      console.log(
        `try: curl -N -X POST ${base}/api/agent/stream -H 'content-type: application/json' -d '{"message":"list the files"}'`,
      );
    },
  }, (request) => handler!(request));
  const stop = () => {
    // Live pages' event streams never end by themselves; the server waits for them.
    stopping.abort();
    server.shutdown();
  };
  // SIGTERM ends the process at once, as it always did, leaving no socket folder behind.
  const end = () => {
    server.removeSocketSync();
    Deno.exit(143);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", end);
  await server.finished;
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", end);
}

/** Runs the server until Ctrl-C; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv);
  } catch (error) {
    return fail("serve", error);
  }
  if (args.help) {
    console.log(HELP);
    return 0;
  }
  let store: SessionStore;
  let homes: BrowseHome[];
  let catalog: Catalog | undefined;
  try {
    const places = await homesOf(args);
    homes = places.homes;
    store = await openStore({ store: args.store, sessionsDir: places.sessionsDir });
    // A database that cannot be reached is said now, not at the first request.
    await store.newest();
    catalog = openCatalog("serve", args.noCatalog);
    // A first build of a big home is made (its progress shown) before the list is asked for.
    if (catalog) await updateCatalogOf("serve", catalog, catalogSourcesOf(store, homes));
  } catch (error) {
    catalog?.close();
    return fail("serve", error);
  }
  let connection: ModelConnection;
  try {
    connection = await connectModel({ model: args.model });
  } catch (error) {
    await store.close();
    return fail("serve", error);
  }
  try {
    await serve(args, connection, store, homes, catalog);
  } finally {
    catalog?.close();
    await connection.close();
    await store.close();
  }
  return 0;
}

/** The command as the shell runs it (`turnlog serve`): an error is printed, never thrown. */
export async function cli(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    return fail("serve", error);
  }
}

if (import.meta.main) await runAsProcess(cli);
