/**
 * The measurements of a store named by its spec (a sessions folder or a `postgres://` URL), so
 * the file store and the PostgreSQL store are measured by the same code: resume (from the last
 * checkpoint, or every record) and one append. A child opens each store once, before it
 * measures: a server keeps its connections.
 *
 * @module
 */
import { normalizeLoaded, resumeSession } from "../src/resume/mod.ts";
import { loadSession } from "../src/resume/mod.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import {
  openStore,
  type SessionLocation,
  type SessionStore,
  type StoreWriter,
} from "../src/store/mod.ts";

/** A session in a store: the store's spec and the session's id. */
export interface StoredSessionRef {
  store: string;
  id: string;
}

/** What a child measures on a store. */
export type StoreTask =
  | { kind: "store_resume"; store: string; id: string; full?: boolean }
  | {
    kind: "store_append";
    targets: StoredSessionRef[];
    /** Take each lock once and keep it (a turn's appends), instead of once per append. */
    hold?: boolean;
  };

/** One operation's samples and its check value. */
export interface StoreOnce {
  samples: number[];
  check: number | string;
}

const stores = new Map<string, Promise<SessionStore>>();
const locations = new Map<string, SessionLocation>();
const writers = new Map<string, StoreWriter>();

function storeOf(spec: string): Promise<SessionStore> {
  let store = stores.get(spec);
  if (store === undefined) {
    store = openStore(spec);
    stores.set(spec, store);
  }
  return store;
}

async function locationOf(ref: StoredSessionRef): Promise<SessionLocation> {
  const key = `${ref.store}\n${ref.id}`;
  let location = locations.get(key);
  if (location === undefined) {
    location = await (await storeOf(ref.store)).find(ref.id);
    locations.set(key, location);
  }
  return location;
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

/** Resume as `resumeSession` does (or, with `full`, replaying every record): one sample. */
async function resume(task: Extract<StoreTask, { kind: "store_resume" }>): Promise<StoreOnce> {
  const store = await storeOf(task.store);
  const [ms, history] = await timed(async () => {
    if (!task.full) return (await resumeSession(task.id, { store })).history;
    const location = await store.find(task.id);
    return normalizeLoaded(await loadSession(location, { store, fromCheckpoint: false })).history;
  });
  return { samples: [ms], check: history.length };
}

/**
 * One append to each session in turn, the order swapped every iteration: take the lock,
 * append one record, release (or, with `hold`, append through a writer that keeps the lock).
 * Samples are one per target.
 */
async function append(
  task: Extract<StoreTask, { kind: "store_append" }>,
  iteration: number,
): Promise<StoreOnce> {
  const record = iteration % 2 === 0
    ? makeRecord("run_finished", { runId: "bench", outcome: "succeeded", rounds: 1 })
    : responseItemRecord({ type: "message", role: "user", content: "one more record" });
  const samples = task.targets.map(() => 0);
  const order = task.targets.map((_, index) => index);
  if (iteration % 2 === 1) order.reverse();
  for (const index of order) {
    const ref = task.targets[index]!;
    const store = await storeOf(ref.store);
    const location = await locationOf(ref);
    const key = `${ref.store}\n${ref.id}`;
    if (task.hold && !writers.has(key)) writers.set(key, await store.lock(location));
    const held = writers.get(key);
    const [ms] = await timed(async () => {
      if (held) return await held.append([record]);
      const writer = await store.lock(location);
      try {
        await writer.append([record]);
      } finally {
        await writer.close();
      }
    });
    samples[index] = ms;
  }
  const first = task.targets[0]!;
  return {
    samples,
    check: (await (await storeOf(first.store)).size(await locationOf(first))).records,
  };
}

/** Runs a store task once. */
export function runStoreTask(task: StoreTask, iteration: number): Promise<StoreOnce> {
  return task.kind === "store_resume" ? resume(task) : append(task, iteration);
}

/** Releases the held locks and closes the stores, so the child can end. */
export async function closeStoreTasks(): Promise<void> {
  for (const writer of writers.values()) await writer.close();
  writers.clear();
  for (const store of stores.values()) await (await store).close();
  stores.clear();
}
