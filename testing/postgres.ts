/**
 * A throwaway PostgreSQL cluster for tests: `initdb` into a temp folder as an unprivileged user,
 * a server on a free loopback port (its socket in the same folder), a database, and a `stop()`
 * that ends the server and removes the folder. Each call makes a cluster of its own, so test
 * files may run in parallel.
 *
 * @module
 */
import { join } from "node:path";
import { type Db, plainClient } from "../src/store/postgres/_connection.ts";
import {
  type Cluster,
  createDatabaseAt,
  exists,
  findPostgresBinaries,
  initCluster,
  type Runner,
  runner,
  startServer,
  stopServer,
} from "./postgres_cluster.ts";

export { findPostgresBinaries, POSTGRES_BIN_ENV, TestPostgresError } from "./postgres_cluster.ts";

/** What a test prints when it cannot run: the server binaries are not installed. */
export const POSTGRES_SKIPPED =
  "skipped: PostgreSQL server binaries not installed (Debian: apt-get install postgresql)";

/** Options of {@linkcode startTestPostgres}. */
export interface TestPostgresOptions {
  /**
   * The database created for the caller.
   *
   * @default {"turnlog"}
   */
  database?: string;
  /**
   * Run as a production server does: every commit flushed to disk (`fsync`,
   * `synchronous_commit`) and the default buffers, for figures a benchmark may quote. Tests
   * leave this off: fast, and not durable, which a test does not need.
   *
   * @default {false}
   */
  durable?: boolean;
}

/**
 * Runs `work` on a plain connection to `url` (a test's own view of the database, apart from the
 * store's connections), and closes it.
 */
export async function withSql<T>(url: string, work: (sql: Db) => Promise<T>): Promise<T> {
  const client = plainClient(url);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A running throwaway cluster. */
export interface TestPostgres extends AsyncDisposable {
  /** The URL of the caller's database, with a password (`postgres://postgres:<pw>@...`). */
  url: string;
  /** The superuser's password (random per cluster), for tests that check it never leaks. */
  password: string;
  /** The loopback port the server listens on. */
  port: number;
  /** Creates another empty database in the cluster and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown: open connections are cut) and keeps its data. */
  stopServer(): Promise<void>;
  /** Starts the server again on the same port after {@linkcode TestPostgres.stopServer}. */
  startServer(): Promise<void>;
  /** Stops the server and removes the cluster's folder. */
  stop(): Promise<void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The clusters this process started and has not stopped yet, by folder. */
const running = new Map<string, { bin: string; as: Runner }>();
let unloadHooked = false;

/**
 * Stops a cluster at once (immediate shutdown) and removes its folder, synchronously: what the
 * `unload` handler can still do for a cluster a test file left running.
 */
function stopNowSync(dir: string, bin: string, as: Runner): void {
  const data = join(dir, "data");
  try {
    Deno.statSync(join(data, "postmaster.pid"));
    const [cmd, args] = as.argv(join(bin, "pg_ctl"), [
      "stop",
      "--wait",
      "--silent",
      "--mode=immediate",
      `--pgdata=${data}`,
    ]);
    new Deno.Command(cmd, { args, stdin: "null", stdout: "null", stderr: "null" }).outputSync();
  } catch {
    // No server running there.
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      Deno.removeSync(dir, { recursive: true });
      return;
    } catch {
      // A file the exiting server removed itself; the second pass finds the rest.
    }
  }
}

function hookUnload(): void {
  if (unloadHooked) return;
  unloadHooked = true;
  globalThis.addEventListener("unload", () => {
    for (const [dir, { bin, as }] of running) stopNowSync(dir, bin, as);
  });
}

/**
 * Stops and removes the clusters of test processes that died without cleaning up (killed, or
 * interrupted): each cluster folder's name holds its owner's pid.
 */
async function sweepStale(tmp: string, bin: string, as: Runner): Promise<void> {
  try {
    await Deno.stat("/proc/self");
  } catch {
    return; // No /proc: owners cannot be checked.
  }
  for await (const entry of Deno.readDir(tmp)) {
    const owner = /^turnlog-pg-(\d+)-/.exec(entry.name)?.[1];
    if (!entry.isDirectory || owner === undefined) continue;
    const dir = join(tmp, entry.name);
    if (!(await exists(`/proc/${owner}`))) stopNowSync(dir, bin, as);
  }
}

/** Starts the server on a free port; returns the port. */
async function startOnFreePort(cluster: Cluster): Promise<number> {
  for (let attempt = 1;; attempt++) {
    const port = freePort();
    try {
      await startServer(cluster, port);
      return port;
    } catch (error) {
      // Another process may have taken the port between our probe and the server's bind.
      if (attempt >= 3) throw error;
    }
  }
}

/**
 * Starts a throwaway cluster and creates a database in it; undefined when the server binaries
 * are not installed (print {@linkcode POSTGRES_SKIPPED} then). Unless `durable`, the server runs
 * with fsync off and small buffers: fast, and not durable, which a test does not need.
 *
 * @example
 * ```ts ignore
 * const pg = await startTestPostgres();
 * if (pg === undefined) console.log(POSTGRES_SKIPPED);
 * else await using _ = pg; // stopped and removed at the end of the block
 * ```
 */
export async function startTestPostgres(
  options: TestPostgresOptions = {},
): Promise<TestPostgres | undefined> {
  const bin = await findPostgresBinaries();
  if (bin === undefined) return undefined;
  const as = await runner();
  // The folder's name carries the owner's pid, so a later run can clean up after a dead one.
  const dir = await Deno.makeTempDir({ prefix: `turnlog-pg-${Deno.pid}-` });
  await sweepStale(join(dir, ".."), bin, as);
  const cluster: Cluster = {
    bin,
    as,
    dir,
    data: join(dir, "data"),
    durable: options.durable === true,
  };
  const password = crypto.randomUUID().replaceAll("-", "");
  try {
    await initCluster(cluster, { user: "postgres", password });
    const port = await startOnFreePort(cluster);
    running.set(dir, { bin, as });
    hookUnload();
    const urlOf = (database: string) =>
      `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
    let databases = 0;
    const createDatabase = async (name = `turnlog_${++databases}`) => {
      await createDatabaseAt(urlOf("postgres"), name);
      return urlOf(name);
    };
    const url = await createDatabase(options.database ?? "turnlog");
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      try {
        if (await exists(join(cluster.data, "postmaster.pid"))) await stopServer(cluster);
      } finally {
        running.delete(dir);
        await Deno.remove(dir, { recursive: true });
      }
    };
    return {
      url,
      password,
      port,
      createDatabase,
      stopServer: () => stopServer(cluster),
      startServer: () => startServer(cluster, port),
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    running.delete(dir);
    stopNowSync(dir, bin, as);
    throw error;
  }
}
