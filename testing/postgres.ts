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

/** What a test prints when it cannot run: the server binaries are not installed. */
export const POSTGRES_SKIPPED =
  "skipped: PostgreSQL server binaries not installed (Debian: apt-get install postgresql)";

/** The environment variable naming the folder of `initdb`, `pg_ctl` and `postgres`. */
export const POSTGRES_BIN_ENV = "TURNLOG_PG_BIN";

/** Options of {@linkcode startTestPostgres}. */
export interface TestPostgresOptions {
  /**
   * The database created for the caller.
   *
   * @default {"turnlog"}
   */
  database?: string;
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

/** The folder of the PostgreSQL server binaries, or undefined when they are not installed. */
export async function findPostgresBinaries(): Promise<string | undefined> {
  const explicit = Deno.env.get(POSTGRES_BIN_ENV);
  if (explicit !== undefined) {
    return (await exists(join(explicit, "initdb"))) ? explicit : undefined;
  }
  const debian: number[] = [];
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
      if (/^\d+$/.test(entry.name)) debian.push(Number(entry.name));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  for (const version of debian.sort((a, b) => b - a)) {
    const bin = `/usr/lib/postgresql/${version}/bin`;
    if (await exists(join(bin, "initdb"))) return bin;
  }
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir !== "" && await exists(join(dir, "initdb")) && await exists(join(dir, "pg_ctl"))) {
      return dir;
    }
  }
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A cluster could not be set up although the binaries are there. */
export class TestPostgresError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "TestPostgresError";
  }
}

/** How commands run: as the `postgres` user when we are root (initdb refuses root). */
interface Runner {
  argv(program: string, args: string[]): [string, string[]];
  uid: number | undefined;
  gid: number | undefined;
}

async function runner(): Promise<Runner> {
  if (Deno.uid() !== 0) return { argv: (p, a) => [p, a], uid: undefined, gid: undefined };
  const passwd = await Deno.readTextFile("/etc/passwd");
  const line = passwd.split("\n").find((l) => l.startsWith("postgres:"));
  if (line === undefined) {
    throw new TestPostgresError(
      "Cannot start a test cluster as root: there is no unprivileged 'postgres' user to run initdb",
    );
  }
  const [, , uid, gid] = line.split(":");
  return {
    argv: (p, a) => [
      "setpriv",
      ["--reuid=postgres", "--regid=postgres", "--clear-groups", "--", p, ...a],
    ],
    uid: Number(uid),
    gid: Number(gid),
  };
}

async function run(as: Runner, program: string, args: string[], what: string): Promise<void> {
  const [cmd, argv] = as.argv(program, args);
  const { code, stdout, stderr } = await new Deno.Command(cmd, {
    args: argv,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).output();
  if (code !== 0) {
    const text = new TextDecoder().decode(stderr).trim() || new TextDecoder().decode(stdout).trim();
    throw new TestPostgresError(`${what} failed (exit ${code}): ${text}`);
  }
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

/** Where a cluster lives and how its commands run. */
interface Cluster {
  bin: string;
  as: Runner;
  dir: string;
  data: string;
}

/** `initdb` with a superuser `postgres` whose password `password` guards TCP connections. */
async function initCluster(cluster: Cluster, password: string): Promise<void> {
  const { as, dir } = cluster;
  const pwfile = join(dir, "pwfile");
  await Deno.writeTextFile(pwfile, `${password}\n`);
  if (as.uid !== undefined) {
    await Deno.chown(dir, as.uid, as.gid ?? null);
    await Deno.chown(pwfile, as.uid, as.gid ?? null);
  }
  await run(as, join(cluster.bin, "initdb"), [
    `--pgdata=${cluster.data}`,
    "--username=postgres",
    `--pwfile=${pwfile}`,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "--encoding=UTF8",
    "--locale=C",
    "--no-sync",
    "--no-instructions",
  ], "initdb");
}

/** Starts the server on `port` (loopback, its socket in the cluster's folder) and waits for it. */
async function startServer(cluster: Cluster, port: number): Promise<void> {
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${cluster.dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
    "-c shared_buffers=16MB",
    "-c max_connections=60",
  ].join(" ");
  const log = join(cluster.dir, "server.log");
  await run(cluster.as, join(cluster.bin, "pg_ctl"), [
    "start",
    "--wait",
    "--silent",
    `--pgdata=${cluster.data}`,
    `--log=${log}`,
    `--options=${serverOptions}`,
  ], `pg_ctl start (port ${port}, log in ${log})`);
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

/** Stops the server (fast shutdown: open connections are cut) and waits until it is down. */
function stopServer(cluster: Cluster): Promise<void> {
  return run(cluster.as, join(cluster.bin, "pg_ctl"), [
    "stop",
    "--wait",
    "--silent",
    "--mode=fast",
    `--pgdata=${cluster.data}`,
  ], "pg_ctl stop");
}

async function createDatabaseAt(adminUrl: string, name: string): Promise<void> {
  const admin = plainClient(adminUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * Starts a throwaway cluster and creates a database in it; undefined when the server binaries
 * are not installed (print {@linkcode POSTGRES_SKIPPED} then). The server runs with fsync off
 * and small buffers: fast, and not durable, which a test does not need.
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
  const cluster: Cluster = { bin, as, dir, data: join(dir, "data") };
  const password = crypto.randomUUID().replaceAll("-", "");
  try {
    await initCluster(cluster, password);
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
