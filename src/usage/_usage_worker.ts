/**
 * A worker of a cold usage count: reads the files it is sent with their format's `usage` (`USAGE_READERS`, not the
 * adapters: a lean start), one
 * after another in the order sent, and answers each with its usage, or with why it could not
 * be read (`UsagePool` in `_pool.ts`).
 *
 * @module
 */
import { USAGE_READERS } from "../formats/usage_readers.ts";
import type { UsageAnswer, UsageJob } from "./_pool.ts";

/** The worker's own scope (this module runs in a worker alone). */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<UsageJob>) => void) | null;
  postMessage(message: UsageAnswer): void;
};

// One file at a time: a reader awaits now and then, and two files read at once would both be
// held.
let turn = Promise.resolve();
scope.onmessage = (event) => {
  const { id, path, format } = event.data;
  turn = turn.then(async () => {
    try {
      // The pool sends only files of a format with a reader here.
      scope.postMessage({ id, usage: await USAGE_READERS.get(format)!(path) });
    } catch (error) {
      scope.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
};
