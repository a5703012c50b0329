/**
 * A PostgreSQL cluster's steps, with the server binaries of this machine: find them, make a
 * cluster (`initdb` as the unprivileged `postgres` user when we are root), start and stop its
 * server on loopback, create a database. The throwaway test clusters (`testing/postgres.ts`)
 * and the local server of `./denow task postgres` are made of them.
 *
 * @module
 */
import { join } from "node:path";
import { plainClient } from "../src/store/postgres/_connection.ts";

/** The environment variable naming the folder of `initdb`, `pg_ctl` and `postgres`. */
export const POSTGRES_BIN_ENV = "TURNLOG_PG_BIN";

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

/** Whether a path exists. */
export async function exists(path: string): Promise<boolean> {
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
export interface Runner {
  argv(program: string, args: string[]): [string, string[]];
  uid: number | undefined;
  gid: number | undefined;
}

/** How this process runs the server binaries. */
export async function runner(): Promise<Runner> {
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

/** Runs a server binary; a failure is a {@linkcode TestPostgresError} with its output. */
export async function run(
  as: Runner,
  program: string,
  args: string[],
  what: string,
): Promise<void> {
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

/** Where a cluster lives and how its commands run. */
export interface Cluster {
  bin: string;
  as: Runner;
  dir: string;
  data: string;
  /** Flush every commit to disk; false: fsync off and small buffers (fast, not durable). */
  durable: boolean;
}

/** `initdb` with a superuser `user` whose password `password` guards TCP connections. */
export async function initCluster(
  cluster: Cluster,
  login: { user: string; password: string },
): Promise<void> {
  const { password } = login;
  const { as, dir } = cluster;
  const pwfile = join(dir, "pwfile");
  await Deno.writeTextFile(pwfile, `${password}\n`);
  if (as.uid !== undefined) {
    await Deno.chown(dir, as.uid, as.gid ?? null);
    await Deno.chown(pwfile, as.uid, as.gid ?? null);
  }
  await run(as, join(cluster.bin, "initdb"), [
    `--pgdata=${cluster.data}`,
    `--username=${login.user}`,
    `--pwfile=${pwfile}`,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "--encoding=UTF8",
    "--locale=C",
    ...(cluster.durable ? [] : ["--no-sync"]),
    "--no-instructions",
  ], "initdb");
}

/** Starts the server on `port` (loopback, its socket in the cluster's folder) and waits for it. */
export async function startServer(cluster: Cluster, port: number): Promise<void> {
  const fast = ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"];
  const serverOptions = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${cluster.dir}`,
    ...(cluster.durable ? [] : [...fast, "-c shared_buffers=16MB"]),
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

/** Stops the server (fast shutdown: open connections are cut) and waits until it is down. */
export function stopServer(cluster: Cluster): Promise<void> {
  return run(cluster.as, join(cluster.bin, "pg_ctl"), [
    "stop",
    "--wait",
    "--silent",
    "--mode=fast",
    `--pgdata=${cluster.data}`,
  ], "pg_ctl stop");
}

/** Creates the database `name` through `adminUrl` (a superuser's URL). */
export async function createDatabaseAt(adminUrl: string, name: string): Promise<void> {
  const admin = plainClient(adminUrl);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}
