/**
 * `./denow task postgres`: a PostgreSQL server for trying turnlog's shared store on one
 * machine, with the server binaries installed (Debian: `apt-get install postgresql`). It makes
 * a cluster in `.postgres/` the first time (user and password `turnlog`, a database `turnlog`),
 * serves it on 127.0.0.1 until Ctrl-C, and prints the `TURNLOG_STORE` to export. Data stays
 * in `.postgres/` between runs; delete the folder to start over.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  type Cluster,
  createDatabaseAt,
  exists,
  findPostgresBinaries,
  initCluster,
  runner,
  startServer,
  stopServer,
} from "../testing/postgres_cluster.ts";
import { withSql } from "../testing/postgres.ts";

const HELP = `Usage: ./denow task postgres [--port 5433] [--data .postgres]

Serves a PostgreSQL database for turnlog on 127.0.0.1:<port> until Ctrl-C, its data in
<data> (made the first time, kept between runs), and prints what to export:
  TURNLOG_STORE=postgres://turnlog:turnlog@127.0.0.1:<port>/turnlog
For trying the shared store on one machine; a team's server is its own (docs/many-machines.md).`;

/** The login and database of the local server. */
const NAME = "turnlog";

/** Makes the cluster in `cluster.dir` the first time, owned by the user the server runs as. */
async function ensureCluster(cluster: Cluster): Promise<boolean> {
  if (await exists(join(cluster.data, "PG_VERSION"))) return false;
  await Deno.mkdir(cluster.dir, { recursive: true });
  await initCluster(cluster, { user: NAME, password: NAME });
  await Deno.remove(join(cluster.dir, "pwfile")).catch(() => {});
  return true;
}

async function ensureDatabase(adminUrl: string): Promise<void> {
  const found = await withSql(
    adminUrl,
    (sql) => sql.query("SELECT 1 FROM pg_database WHERE datname = $1", [NAME]),
  );
  if (found.rowCount === 0) await createDatabaseAt(adminUrl, NAME);
}

/**
 * Whether 127.0.0.1:`port` can be listened on: asked before the server starts, which would
 * wait for its start-up and then say only "could not start server" (the cause in its log).
 */
function portFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) return false;
    throw error;
  }
}

/** The first free port after `port` (for the hint), or `port + 1` when none is near. */
function freePortAfter(port: number): number {
  for (let next = port + 1; next <= Math.min(port + 100, 65535); next++) {
    if (portFree(next)) return next;
  }
  return port + 1;
}

/** Resolves at Ctrl-C or SIGTERM. */
function stopped(): Promise<void> {
  return new Promise((done) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(signal, () => done());
    }
  });
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "5433" },
      data: { type: "string", default: ".postgres" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    console.error(`turnlog postgres: Invalid --port "${values.port}": expected 1 to 65535`);
    return 2;
  }
  if (!portFree(port)) {
    console.error(`turnlog postgres: Port ${port} on 127.0.0.1 is in use by another program`);
    console.error(`Pick another port: ./denow task postgres --port ${freePortAfter(port)}`);
    return 1;
  }
  const bin = await findPostgresBinaries();
  if (bin === undefined) {
    console.error("turnlog postgres: PostgreSQL server binaries are not installed");
    console.error("Install them (Debian: apt-get install postgresql), or set TURNLOG_PG_BIN.");
    return 1;
  }
  const dir = resolve(values.data);
  const cluster: Cluster = { bin, as: await runner(), dir, data: join(dir, "data"), durable: true };
  const made = await ensureCluster(cluster);
  await startServer(cluster, port);
  const url = `postgres://${NAME}:${NAME}@127.0.0.1:${port}/${NAME}`;
  try {
    await ensureDatabase(`postgres://${NAME}:${NAME}@127.0.0.1:${port}/postgres`);
    console.log(
      `PostgreSQL for turnlog on 127.0.0.1:${port}, data in ${values.data}${
        made ? " (new)" : ""
      }; Ctrl-C stops it. In another terminal:\n  export TURNLOG_STORE=${url}`,
    );
    await stopped();
  } finally {
    await stopServer(cluster);
  }
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main(Deno.args));
  } catch (error) {
    console.error(`turnlog postgres: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(1);
  }
}
