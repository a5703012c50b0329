/**
 * Shared fixtures of the PostgreSQL store tests: one throwaway cluster per test file (stopped and
 * removed when the file's tests end), a fresh database per test, and session builders.
 *
 * @module
 */
import { POSTGRES_SKIPPED, startTestPostgres, type TestPostgres } from "../testing/postgres.ts";
import { idTime, newId } from "../src/record/_ids.ts";
import {
  FORMAT_VERSION,
  makeRecord,
  type SessionMeta,
  type SessionRecord,
} from "../src/record/_schemas.ts";
import { PostgresStore, type StoreWriter } from "../src/store/postgres/mod.ts";
import type { SessionLocation } from "../src/store/_store.ts";
import { itemRecords, RUN_BASE, user } from "./_helpers.ts";

/**
 * Starts the test file's cluster, or says clearly that its tests are skipped. The cluster stops
 * when the file's process unloads (testing/postgres.ts sees to that).
 */
export async function fileCluster(file: string): Promise<TestPostgres | undefined> {
  const pg = await startTestPostgres();
  if (pg === undefined) console.log(`${file}: ${POSTGRES_SKIPPED}`);
  return pg;
}

/** A store on a new, empty database of `pg`, closed when disposed. */
export async function freshStore(
  pg: TestPostgres,
): Promise<PostgresStore & AsyncDisposable & { url: string }> {
  const url = await pg.createDatabase();
  return Object.assign(new PostgresStore(url), { url });
}

/** A `session_meta` for a session created at `iso` (its id a UUIDv7 of that time). */
export function metaAt(iso: string, id: string = newId(new Date(iso))): SessionMeta {
  return {
    version: FORMAT_VERSION,
    id,
    createdAt: idTime(id)!.toISOString(),
    cwd: RUN_BASE.cwd,
    modelProvider: RUN_BASE.modelProvider,
    model: RUN_BASE.model,
    wireApi: RUN_BASE.wireApi,
    policy: { approval: "ask-changes" },
  };
}

/** The `turn_context` that starts a run. */
export function turnContext(runId: string, resumed = false): SessionRecord {
  return makeRecord("turn_context", {
    runId,
    model: RUN_BASE.model,
    wireApi: RUN_BASE.wireApi,
    policy: { approval: "ask-changes" },
    resumed,
  });
}

/** A first turn's records: turn_context, system, user. */
export function firstTurnRecords(runId: string, message: string): SessionRecord[] {
  return [
    turnContext(runId),
    ...itemRecords([{ type: "message", role: "system", content: "sys" }, user(message)]),
  ];
}

/** Creates a session at `iso` holding a first turn with `message`, and closes its writer. */
export async function sessionAt(
  store: PostgresStore,
  iso: string,
  message?: string,
): Promise<SessionLocation> {
  const meta = metaAt(iso);
  const { location, writer } = await store.create(meta);
  if (message !== undefined) await writer.append(firstTurnRecords(meta.id, message));
  await writer.close();
  return location;
}

/** Every record of a session, read forward. */
export async function readAll(
  store: PostgresStore,
  location: SessionLocation,
): Promise<SessionRecord[]> {
  const records: SessionRecord[] = [];
  for await (const entry of store.read(location)) {
    if (entry.problem) throw new Error(entry.problem.message);
    records.push(entry.record);
  }
  return records;
}

/** Closes a writer, returning it for `await using`. */
export function disposable(writer: StoreWriter): StoreWriter & AsyncDisposable {
  return Object.assign(writer, { [Symbol.asyncDispose]: async () => await writer.close() });
}
