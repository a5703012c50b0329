/**
 * A `serve` instance in a process of its own, as a team runs several behind a load balancer:
 * started with `deno task serve`'s permissions on a free port, found by the address it prints,
 * killed with SIGKILL (a crash) or stopped at the end of a test.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { NO_USER_HOMES } from "./user_env.ts";

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const SERVE = fileURLToPath(new URL("../cli/serve.ts", import.meta.url));

/** A running `serve` process. */
export interface ServeProcess extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** The process id. */
  pid: number;
  /** What it printed on stdout when it started, up to its `browse the sessions:` line. */
  started: string;
  /** Kills the process with SIGKILL (no chance to clean up) and waits for it to end. */
  kill(): Promise<void>;
  /** What it wrote to stderr so far, when started with `collectStderr`; else "". */
  stderr(): string;
}

/** Reads lines from `reader` until one matches `pattern`; fails with what was read on EOF. */
async function lineMatching(
  reader: ReadableStreamDefaultReader<string>,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  let seen = "";
  while (true) {
    const match = pattern.exec(seen);
    if (match) return match;
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve ended before it listened; it printed:\n${seen}`);
    seen += value;
  }
}

/**
 * Starts `cli/serve.ts` with `args` on a free loopback port (`--port 0`) and resolves once it
 * listens. Its stderr is passed through, so a test's log shows why an instance failed, or
 * kept for the test to read (`collectStderr`).
 */
export async function startServe(
  args: string[],
  options: {
    env?: Record<string, string>;
    collectStderr?: boolean;
    /** More flags for `deno run` (`--deny-read=<file>`: a file serve may not read). */
    denoFlags?: string[];
  } = {},
): Promise<ServeProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${CONFIG}`,
      "-q",
      "-P=serve",
      ...(options.denoFlags ?? []),
      SERVE,
      "--port",
      "0",
      ...args,
    ],
    env: {
      ...NO_USER_HOMES,
      NO_COLOR: "1",
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      ...options.env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: options.collectStderr ? "piped" : "inherit",
  }).spawn();
  let stderr = "";
  if (options.collectStderr) {
    child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({ write: (chunk) => void (stderr += chunk) }),
    ).catch(() => {});
  }
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let ended = false;
  const end = async (signal: Deno.Signal) => {
    if (ended) return;
    ended = true;
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
    await reader.cancel().catch(() => {});
    await child.status;
  };
  try {
    const [started, base] = await lineMatching(
      reader,
      /turnlog serving on (http:\/\/[^\s]+)[\s\S]*\nbrowse the sessions: \S+\n/,
    );
    // Keep reading, so the child never blocks on a full pipe.
    (async () => {
      while (!(await reader.read().catch(() => ({ done: true }))).done) { /* drained */ }
    })();
    return {
      base: base!,
      pid: child.pid,
      started,
      kill: () => end("SIGKILL"),
      stderr: () => stderr,
      [Symbol.asyncDispose]: () => end("SIGTERM"),
    };
  } catch (error) {
    await end("SIGKILL");
    throw error;
  }
}
