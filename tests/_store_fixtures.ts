/**
 * Builders for the store tests, whatever the backend: session metas, first turns, a session with
 * a compaction checkpoint, and reading a whole session back.
 *
 * @module
 */
import {
  FORMAT_VERSION,
  idTime,
  makeRecord,
  newId,
  type ResponseItem,
  responseItemRecord,
  type SessionMeta,
  type SessionMetaRecord,
  type SessionRecord,
} from "../src/record/mod.ts";
import type { SessionLocation, SessionStore, StoreWriter } from "../src/store/mod.ts";
import { assistant, itemRecords, RUN_BASE, user } from "./_helpers.ts";

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

/** The `session_meta` record a session starts with, stamped with its creation time. */
export function metaRecord(meta: SessionMeta): SessionMetaRecord {
  return makeRecord("session_meta", meta, new Date(meta.createdAt));
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

/** `n` assistant messages `<tag> 0`, `<tag> 1`, ... */
export function chatter(tag: string, n = 2): SessionRecord[] {
  return itemRecords(Array.from({ length: n }, (_, i) => assistant(`${tag} ${i}`)));
}

/** The text of each message record (empty for other records). */
export function contents(records: SessionRecord[]): string[] {
  return records.map((r) => "content" in r.payload ? String(r.payload.content) : "");
}

/** Creates a session at `iso` holding a first turn with `message`, and closes its writer. */
export async function sessionAt(
  store: SessionStore,
  iso: string,
  message?: string,
): Promise<SessionLocation> {
  const meta = metaAt(iso);
  const { location, writer } = await store.create(metaRecord(meta));
  if (message !== undefined) await writer.append(firstTurnRecords(meta.id, message));
  await writer.close();
  return location;
}

/** A session of a first turn, `before` messages, a checkpoint, then `after` more messages. */
export async function sessionWithCheckpoint(
  store: SessionStore,
  sizes: { before: number; after: number },
): Promise<{ location: SessionLocation; checkpointLine: number; checkpoint: SessionRecord }> {
  const meta = metaAt("2026-11-30T10:00:00Z");
  const { location, writer } = await store.create(metaRecord(meta));
  await writer.append([...firstTurnRecords("run-1", "hello"), ...chatter("old", sizes.before)]);
  const kept: ResponseItem[] = [{ type: "message", role: "system", content: "sys" }];
  const checkpoint = responseItemRecord({
    type: "compaction_checkpoint",
    version: 1,
    reason: "test",
    tokensBefore: 1000,
    removedItemCount: sizes.before + 1,
    keptItemCount: 1,
    recordsBefore: writer.appendedRecords,
    replacementHistory: [...kept, { type: "compaction_summary", content: "summary" }],
  });
  await writer.append([checkpoint, ...chatter("new", sizes.after)]);
  await writer.close();
  return { location, checkpointLine: 1 + 3 + sizes.before + 1, checkpoint };
}

/** Every record of a session, read forward; a bad record fails the test. */
export async function readAll(
  store: SessionStore,
  location: SessionLocation,
): Promise<SessionRecord[]> {
  const records: SessionRecord[] = [];
  for await (const entry of store.read(location)) {
    if (entry.problem) throw new Error(entry.problem.message);
    records.push(entry.record);
  }
  return records;
}

/** A writer closed at the end of its `await using` block. */
export function disposable(writer: StoreWriter): StoreWriter & AsyncDisposable {
  return Object.assign(writer, { [Symbol.asyncDispose]: async () => await writer.close() });
}
