/**
 * Waiting for something to become true, with a deadline: a poll that would otherwise wait
 * forever fails with what it was waiting for.
 *
 * @module
 */

/** Options of {@linkcode waitFor}. */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 10,000). */
  timeoutMs?: number;
  /** How long to sleep between tries, in milliseconds (default 20). */
  intervalMs?: number;
}

/**
 * Polls `check` until it returns a value other than `undefined` or `false`, and returns it.
 *
 * @throws {Error} `Timed out after N ms waiting for <what>` when the deadline passes
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
