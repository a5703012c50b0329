/**
 * Where the CLIs write, the one writer: stdout and stderr, whole writes, and a reader that went
 * away (`| head`) is not an error of ours. Once a stream's pipe is closed, later writes to it
 * are dropped, so the work behind them (a turn appending to its session) goes on to its end.
 * The one decision of colour too: stdout on a terminal, never a captured sink.
 *
 * @module
 */
import { colorEnabled } from "../src/text/_terminal.ts";
import { keepPricesOnDisk } from "../src/usage/_kept_where.ts";

const encoder = new TextEncoder();

/** Writes text to a stream, whole; a closed pipe ends the writing, silently. */
export type Write = (text: string) => void;

/** A writer to `stream` that ignores a closed pipe from then on. */
export function writerTo(stream: { writeSync(bytes: Uint8Array): number }): Write {
  let closed = false;
  return (text) => {
    if (closed) return;
    const bytes = encoder.encode(text);
    try {
      let written = 0;
      while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
    } catch (error) {
      if (!(error instanceof Deno.errors.BrokenPipe)) throw error;
      closed = true;
    }
  };
}

/** Standard output, ignoring a closed pipe. */
export const stdout: Write = writerTo(Deno.stdout);
/** Standard error, ignoring a closed pipe. */
export const stderr: Write = writerTo(Deno.stderr);

/** Where a command writes a long output: stdout, or what a test captures. */
export type Sink = (text: string) => Promise<void>;

/** Standard output as a sink (written whole at once, a closed pipe ignored). */
export const stdoutSink: Sink = (text) => Promise.resolve(stdout(text));
/** Standard error as a sink. */
export const stderrSink: Sink = (text) => Promise.resolve(stderr(text));

/**
 * Whether what goes to `out` is coloured: only standard output, only on a terminal, never with
 * `NO_COLOR` set; never a sink or writer a test captures.
 */
export function colorFor(out: Sink | Write): boolean {
  return (out === stdoutSink || out === stdout) && colorEnabled("stdout");
}

/**
 * A synchronous writer onto a sink, for a view written piece by piece as it is made: standard
 * output written at once; another sink in order, finished once `done` resolves.
 */
export function syncWriterTo(out: Sink): { write: Write; done: () => Promise<void> } {
  if (out === stdoutSink) return { write: stdout, done: () => Promise.resolve() };
  let chain = Promise.resolve();
  return { write: (text) => void (chain = chain.then(() => out(text))), done: () => chain };
}

/** Prints text given in pieces, a few at a time, never as one string. */
export async function printPieces(out: Sink, pieces: Iterable<string>): Promise<void> {
  let pending = "";
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= 1 << 16) {
      await out(pending);
      pending = "";
    }
  }
  await out(pending);
}

/** Set once a command's work is done and none of it runs on (see {@linkcode endsWhenDone}). */
let done = false;

/**
 * Says that when the command returns, nothing of it runs on (no server, child, timer or write
 * in flight; its files closed): the process may end at once with its code (`Deno.exit()`),
 * not after Deno takes its isolate down, which costs a warm listing about 7 ms of CPU (0.94x
 * its whole process). A command that leaves work to finish after it returns never says so.
 * Run in a test's process, it changes nothing: only {@linkcode runAsProcess} reads it.
 */
export function endsWhenDone(): void {
  done = true;
}

/**
 * Runs a command as the process (which keeps its prices beside its catalog: a library caller's do
 * not, `src/usage/_kept_where.ts`): what it returns becomes the exit code, taken once the event
 * loop has nothing left to do, or at once when the command said nothing of it runs on
 * ({@linkcode endsWhenDone}). Deno 2.9 writes V8's code cache as it loads each module, so an
 * end at once loses none of it (a first run in an empty DENO_DIR that ends with `Deno.exit()`
 * leaves the same 48 entries of a listing's code as one that does not).
 */
export async function runAsProcess(command: (argv: string[]) => Promise<number>): Promise<void> {
  keepPricesOnDisk();
  const code = await command(Deno.args);
  if (done) Deno.exit(code);
  Deno.exitCode = code;
}
