/**
 * A worker of a catalog update: reads the files it is sent for their facts, one at a time
 * (`readFacts`), and answers each with what it read, or null when the read failed (the update
 * then reads that file itself, and says why when it fails there too).
 *
 * @module
 */
import { readFacts } from "./_facts.ts";

type Job = { wanted: Parameters<typeof readFacts>[0]; size: number };

/** The worker's own scope (this module runs in a worker alone). */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Job>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async (event) => {
  const { wanted, size } = event.data;
  const read = await readFacts(wanted, size).catch(() => null);
  scope.postMessage({ read });
};
