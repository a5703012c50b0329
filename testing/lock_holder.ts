/**
 * Holds a session's lock in a process of its own until that process is killed: how the tests
 * show that a crashed writer never leaves a session locked, in a file or in a database.
 *
 * Run as `deno run -A testing/lock_holder.ts <store> <session id>` (a `postgres://` URL or a
 * sessions folder); prints `locked` once it holds the lock, then waits.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { openStore } from "../src/store/mod.ts";

/** This script's path, for spawning it. */
export const LOCK_HOLDER_PATH = fileURLToPath(import.meta.url);

/** A process that holds a session's lock. */
export interface LockHolder {
  /** The holder's pid. */
  pid: number;
  /** Kills the holder with SIGKILL (a crash: no chance to unlock) and waits for it to end. */
  kill(): Promise<void>;
}

/**
 * Spawns a process that locks `sessionId` in the store `spec` names, and resolves once it holds
 * the lock.
 */
export async function spawnLockHolder(spec: string, sessionId: string): Promise<LockHolder> {
  const config = fileURLToPath(new URL("../deno.json", import.meta.url));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", `--config=${config}`, "-A", LOCK_HOLDER_PATH, spec, sessionId],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("locked\n")) {
    const { value, done } = await reader.read();
    if (done) {
      await child.status;
      throw new Error(`The lock holder ended before it held the lock: ${seen.trim()}`);
    }
    seen += value;
  }
  return {
    pid: child.pid,
    async kill() {
      child.kill("SIGKILL");
      await reader.cancel();
      await child.status;
    },
  };
}

if (import.meta.main) {
  const [spec, sessionId] = Deno.args;
  if (spec === undefined || sessionId === undefined) {
    console.error("usage: lock_holder.ts <store> <session id>");
    Deno.exit(2);
  }
  const store = await openStore(spec);
  await store.lock(await store.find(sessionId));
  console.log("locked");
  // Hold on until killed.
  setInterval(() => {}, 60_000);
}
