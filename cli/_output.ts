/**
 * Where the CLIs write: stdout and stderr, whole writes, and a reader that went away (`| head`)
 * is not an error of ours. Once a stream's pipe is closed, later writes to it are dropped, so
 * the work behind them (a turn appending to its session) goes on to its end.
 *
 * @module
 */

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
